"""Entry module of chatcli-personas-core (hook implementations only)."""
