"""/compact speaks the user's language: its status, its answers and its warnings in Brazilian
Portuguese under CHATCLI_LANG=pt_BR, English otherwise (the real command line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli_testing import Reply
from test_scenario_cli import NO_COUNT, Shell


def test_compact_status_and_undo_in_portuguese(chatcli_home: Path, tmp_path: Path,
                                              openai_server: Any) -> None:
    shell = Shell(tmp_path, openai_server)
    openai_server.script(Reply(text="Hello. DONE", usage=NO_COUNT))
    shell.run("-p", "hello")
    status = shell.run("-c", "-p", "/compact status", CHATCLI_LANG="pt_BR")
    said = status.stdout + status.stderr
    assert "compactações em vigor: 0 · o histórico guarda 2 mensagens, a visão 2" in said
    assert "próxima requisição: ~" in said and "de 4,000 tokens" in said
    assert "chat: compacta em " in said and "execuções de agente: " in said
    assert "mantém as 6 mensagens mais recentes na íntegra" in said
    undo = shell.run("-c", "-p", "/compact undo", CHATCLI_LANG="pt_BR")
    assert "nada a desfazer: nenhuma compactação se aplica a esta conversa" in (
        undo.stdout + undo.stderr)
    english = shell.run("-c", "-p", "/compact status", CHATCLI_LANG="en")
    assert "compactions in force: 0 · the log holds 2 messages, the view 2" in (
        english.stdout + english.stderr)


def test_a_wrong_setting_is_reported_in_portuguese(chatcli_home: Path, tmp_path: Path,
                                                  openai_server: Any) -> None:
    shell = Shell(tmp_path, openai_server)
    openai_server.script(Reply(text="Hello. DONE", usage=NO_COUNT))
    done = shell.run("-p", "hello", CHATCLI_LANG="pt_BR", CHATCLI_COMPACTION__AGE_AFTER="0")
    assert ("[compaction] age_after deve ser um número inteiro de no mínimo 1, não '0'; "
            "usando 3 — para corrigir: chatcli config set compaction.age_after 3") in done.stderr
