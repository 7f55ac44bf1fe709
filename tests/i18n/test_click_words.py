"""click's own words in chatcli's catalog: the list chatcli-cli keeps is what the installed
click marks for translation (an upgrade that adds a message fails here), and the real command
line says "Uso:", "Opções" and click's errors in Portuguese (English unchanged)."""

from __future__ import annotations

import os
from pathlib import Path

import chatcli_cli._click_words
import click
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir, extract_python
from process_support import CHATCLI, run_process

#: click's helpers for Windows consoles and external editors: never used by chatcli.
_UNUSED = ("_termui_impl.py", "_winconsole.py")


def _listed() -> set[object]:
    """The messages chatcli-cli's list marks, as Babel extracts them (plurals as pairs)."""
    with open(chatcli_cli._click_words.__file__, "rb") as source:
        found = {message for _line, _function, message, _comments in extract_python(
            source, DEFAULT_KEYWORDS, [], {})}
    return {m if isinstance(m, str) else tuple(x for x in m if x is not None) for m in found}


def test_the_list_is_what_the_installed_click_marks():
    marked = set()
    for filename, _line, message, _comments, _context in extract_from_dir(
            os.path.dirname(click.__file__), method_map=[("**.py", "python")],
            keywords=DEFAULT_KEYWORDS):
        if filename not in _UNUSED:
            marked.add(message if isinstance(message, str) else tuple(message))
    assert _listed() == marked


def test_click_speaks_portuguese(home: Path):
    help_page = run_process([CHATCLI, "sessions", "--help"], home, CHATCLI_LANG="pt_BR")
    assert help_page.returncode == 0, help_page.stderr
    assert help_page.stdout.startswith("Uso: chatcli sessions")
    assert "Opções:" in help_page.stdout and "Mostra esta mensagem e sai." in help_page.stdout
    wrong = run_process([CHATCLI, "sessions", "--no-such-option"], home, CHATCLI_LANG="pt_BR")
    assert wrong.returncode == 2
    assert "--no-such-option" in wrong.stderr and "No such option" not in wrong.stderr
    english = run_process([CHATCLI, "sessions", "--help"], home)
    assert english.stdout.startswith("Usage: chatcli sessions")
    assert "Show this message and exit." in english.stdout
