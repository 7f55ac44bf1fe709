"""The approval menu in Brazilian Portuguese, in a real terminal: the question, its options and
the follow-up prompt are the catalog's, answered by number as in English, and the decision
reaches the tool and the policy exactly as an English answer does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply

from .terminal import Terminal
from .test_approval import ASKER, answer, chat, note, option, plugin, tool_results

pytestmark = pytest.mark.terminal
__all__ = ["chat"]  # the fixture, shared with test_approval


def test_the_approval_menu_in_portuguese(chat: Callable[..., Terminal], openai_server: Any,
                                         tmp_path: Path) -> None:
    plugin(tmp_path, "asker", ASKER)
    openai_server.script(note("a"), Reply(text="resposta a"), note("b"),
                         Reply(text="resposta b"))
    term = chat("asker", CHATCLI_LANG="pt_BR")
    title = "Permitir a ferramenta write note(text='{}')? — the note file is outside src"

    term.type("anote a")
    screen = answer(term, title.format("a"), "sim, só desta vez")
    assert option(screen, "sim, nesta sessão (note(notes.txt))") == "2"
    assert option(screen, "sempre: salvar a regra note(notes.txt)") == "3"
    assert option(screen, "não, e dizer ao modelo por quê…") == "5"
    assert "Allow" not in screen and "yes, once" not in screen
    term.wait_for("resposta a")

    term.type("anote b")
    answer(term, title.format("b"), "não, e dizer ao modelo por quê…")
    term.wait_for("Por que não? Escreva na linha de entrada (o modelo vai ler):")
    term.type("use as notas de teste")
    term.wait_for("resposta b")

    assert (tmp_path / "notes.txt").read_text() == "a\n"
    approvals = (tmp_path / "approvals.jsonl").read_text().splitlines()
    assert approvals == ['[true, "once", "", "note(notes.txt)"]',
                         '[false, "once", "use as notas de teste", "note(notes.txt)"]']
    assert tool_results(openai_server.requests[-1])[0] == "noted"
