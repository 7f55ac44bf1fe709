"""chatcli-mcp: MCP servers' tools, prompts and resources in chatcli."""
