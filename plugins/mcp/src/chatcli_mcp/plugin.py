"""Entry module of chatcli-mcp (hook implementations only; the SDK loads when a server starts)."""
