"""chatcli_memory_postgres."""
