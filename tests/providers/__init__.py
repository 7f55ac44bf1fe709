"""Provider tests (a package, so its test modules may share a name with another folder's:
tests/sessions/test_any_character.py and tests/providers/test_any_character.py)."""
