"""{{title}}: a chatcli plugin (tool)."""
