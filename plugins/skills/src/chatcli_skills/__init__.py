"""chatcli-skills: Agent Skills (SKILL.md folders) for chatcli — loading, activation, the
injection budget, ``/skill`` and ``chatcli skills``."""
