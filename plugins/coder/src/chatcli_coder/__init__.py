"""chatcli-coder: the tools a coding assistant needs."""
