"""Placeholder so the entry point imports; its owner replaces it."""
