"""``activity``'s words for a call naming no file come from the front end (its language):
English by default, a front end's own template otherwise; a file's name is shown either way."""

from __future__ import annotations

from chatcli_render import activity


def test_activity_words_are_the_callers() -> None:
    assert activity("exec", {"command": "ls"}) == "running exec"
    assert activity("exec", {"command": "ls"}, running="executando {tool}") == "executando exec"
    assert activity("edit", {"path": "calc.py"}, running="executando {tool}") == "edit calc.py"
    assert activity("x{y}", None, running="executando {tool}") == "executando x{y}"
