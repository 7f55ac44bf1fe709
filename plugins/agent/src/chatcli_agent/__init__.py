"""chatcli-agent: the permission policy, agent modes and user shell hooks."""
