"""User hooks: shell commands the user attaches to chatcli's events (PreToolUse, PostToolUse,
PostToolUseFailure, UserPromptSubmit, SessionStart, SessionEnd, PreCompact, PostCompact, Stop),
configured in chatcli's TOML or read from Claude Code's settings.json, with Claude Code's
payload and exit-code rules."""
