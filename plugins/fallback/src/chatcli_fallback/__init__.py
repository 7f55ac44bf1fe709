"""chatcli fallback chains and provider pools: one provider name that moves on when a
service fails."""
