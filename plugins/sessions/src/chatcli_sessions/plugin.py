"""Entry module: hookimpls only."""
