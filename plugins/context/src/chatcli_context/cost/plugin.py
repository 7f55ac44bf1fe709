"""Entry module of the cost plugin (hook implementations only)."""
