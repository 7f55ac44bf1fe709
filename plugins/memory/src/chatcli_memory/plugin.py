"""Entry module (hook implementations only)."""
