"""chatcli_memory."""
