"""chatcli-personas: Personas for chatcli: /persona, /agents, @name messages; and markdown slash-command templates."""
