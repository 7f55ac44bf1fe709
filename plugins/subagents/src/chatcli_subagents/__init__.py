"""chatcli-subagents: the ``delegate`` tool (workers with a context of their own, run side by
side under ``[agents] max_workers``), agent types (``register_agent_types``), the ``/agents``
board and ``/delegate``."""
