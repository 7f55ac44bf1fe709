"""Entry module of chatcli-personas (hook implementations only)."""
