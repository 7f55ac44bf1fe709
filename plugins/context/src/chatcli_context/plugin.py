"""Entry module of the context plugin (hook implementations only)."""
