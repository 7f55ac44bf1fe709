"""{{title}}: a chatcli plugin (provider)."""
