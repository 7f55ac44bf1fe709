"""Entry module of chatcli-compaction (hook implementations only; strategies load when used)."""
