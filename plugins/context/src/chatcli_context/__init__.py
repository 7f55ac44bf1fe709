"""chatcli-context: the curated prompt and its accounting."""
