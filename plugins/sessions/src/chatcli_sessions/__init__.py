"""chatcli plugin."""
