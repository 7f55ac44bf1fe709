"""chatcli-render's own words in the user's language: a diff stat's total and a running tool's
activity are made when called, so they follow ``CHATCLI_LANG`` (English stays as it was)."""

from __future__ import annotations

from chatcli_render import activity
from chatcli_render.diff import FileStat, stat_lines

MINUS = "\u2212"


def test_the_stat_total_in_portuguese(chatcli_language) -> None:
    two = [FileStat("calc.py", 4, 1), FileStat("NOTES.txt", 1, 0)]
    assert stat_lines(two)[-1] == f"2 files changed, +5 {MINUS}1"
    chatcli_language("pt_BR")
    assert stat_lines(two) == [f"calc.py   | +4 {MINUS}1", f"NOTES.txt | +1 {MINUS}0",
                               f"2 arquivos alterados, +5 {MINUS}1"]
    assert stat_lines([FileStat("a", 0, 3)])[-1] == f"1 arquivo alterado, +0 {MINUS}3"
    chatcli_language("en")
    assert stat_lines([FileStat("a", 0, 3)])[-1] == f"1 file changed, +0 {MINUS}3"


def test_activity_in_portuguese_unless_the_caller_gives_its_words(chatcli_language) -> None:
    chatcli_language("pt_BR")
    assert activity("exec", {"command": "ls"}) == "executando exec"
    assert activity("", None) == "executando ferramenta"
    assert activity("edit", {"path": "calc.py"}) == "edit calc.py"
    assert activity("exec", None, running="rodando {tool}") == "rodando exec"
    chatcli_language("en")
    assert activity("exec", {"command": "ls"}) == "running exec"
    assert activity("", None) == "running tool"
