"""chatcli providers for CLI assistants: Claude Code (claude -p) and Codex (codex exec)."""
