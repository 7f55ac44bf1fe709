"""The interactive chat in Brazilian Portuguese (CHATCLI_LANG=pt_BR) in a real terminal: the
greeting, /help's command descriptions (the REPL's, chatcli-skills', chatcli-subagents') and key
hints, an unknown command, the footer, the trust question (answered "s"); English without it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import Reply

from .terminal import CHATCLI, Terminal, have_tmux

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


def test_the_trust_question_is_asked_and_answered_in_portuguese(
        chatcli_home: Path, tmp_path: Path, openai_server) -> None:
    if not have_tmux():
        pytest.skip("tmux is not installed")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".chatcli").mkdir()
    (project / ".chatcli" / "config.toml").write_text('system = "PROJECT-SYSTEM"\n')
    env = {"CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
           "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"], "TERM": "xterm-256color",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(chatcli_home),
           "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": openai_server.url,
           "CHATCLI_PLUGINS": "openai,repl", "CHATCLI_LANG": "pt_BR"}
    term = Terminal(f"{CHATCLI} --provider openai", env, cwd=project)
    try:
        screen = term.wait_for("Confiar neste projeto? [s/N]")
        assert "Este projeto tem arquivos que mudam o chatcli:" in screen
        term.type("s")  # the Portuguese "yes"
        screen = term.wait_for("›")
        assert "é confiável (1 arquivo); uma mudança nele pergunta de novo" in " ".join(
            screen.split())
    finally:
        term.close()
