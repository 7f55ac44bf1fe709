"""chatcli_memory: long-term memory for chatcli (see README.md); the entry module is
``chatcli_memory.plugin``."""
