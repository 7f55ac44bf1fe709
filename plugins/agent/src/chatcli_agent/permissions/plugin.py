"""The permission policy plugin (being written)."""
