"""The interactive chat in Brazilian Portuguese (CHATCLI_LANG=pt_BR) in a real terminal: the
greeting, /help's command descriptions (the REPL's, chatcli-skills', chatcli-subagents') and key
hints, an unknown command, the footer; English without it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal

pytestmark = pytest.mark.terminal


def test_the_chat_speaks_brazilian_portuguese(start_chat: Callable[..., Terminal],
                                              openai_server) -> None:
    openai_server.script(Reply(text="Olá!", usage={"input_tokens": 1234, "output_tokens": 5}))
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_LANG="pt_BR")
    screen = term.wait_for("Ctrl+D sai")
    assert "/help mostra os comandos" in screen and "/help for commands" not in screen
    term.type("/help")
    screen = term.wait_for("@caminho completa arquivos")
    assert "lista os comandos" in screen  # the REPL's own /help
    assert "envia a última mensagem de novo" in screen  # /retry
    assert "lista as habilidades" in screen  # /skills (chatcli-skills)
    assert "os subagentes: /agents" in screen  # /agents (chatcli-subagents)
    assert "list the commands" not in screen
    term.type("/hepl")
    term.wait_for("comando desconhecido /hepl — você quis dizer /help?")
    term.type("oi")
    screen = term.wait_for("Olá!")
    screen = term.wait_for("1,234 de entrada · 5 de saída")
    term.send("C-d")
    term.wait_for("EXIT=0")


def test_the_chat_stays_english_without_a_language(start_chat: Callable[..., Terminal],
                                                   openai_server) -> None:
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_LANG="en")
    term.type("/help")
    screen = term.wait_for("completes files")
    assert "/help for commands" in screen
    assert "list the commands" in screen and "lista os comandos" not in screen
