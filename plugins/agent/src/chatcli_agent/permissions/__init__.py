"""The permission policy: which tool calls run, which ask, which are refused."""
