"""Agent and coder modes: ``/agent TASK`` (``/run``) and ``/coder TASK``, a ReAct loop on the
chat's own conversation with a step limit, an anchor reminder, a trace and a final answer."""
