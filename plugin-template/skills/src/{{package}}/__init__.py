"""{{title}}: a chatcli plugin (skills)."""
