"""Entry module of chatcli-skills (hook implementations only)."""
