"""{{title}}: a chatcli plugin (command)."""
