"""Entry module of chatcli-skills-core (hook implementations only)."""
