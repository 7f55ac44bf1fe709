"""chatcli-personas: personas (``/persona``, ``/agents``, ``@name`` messages) and markdown
slash-command templates."""
