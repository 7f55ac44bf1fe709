"""chatcli provider plugin."""
