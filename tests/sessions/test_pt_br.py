"""chatcli-sessions in Brazilian Portuguese: the real command line's help and errors, the
in-chat commands and the migration summary (and English unchanged)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from sessions_helpers import FakeApp, turn

CHATCLI = Path(sys.executable).parent / "chatcli"


def run_chatcli(*args: str, lang: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, CHATCLI_LANG=lang))


def test_the_command_line_speaks_portuguese(home: Path) -> None:
    shown = run_chatcli("sessions", "list", "--help", lang="pt_BR")
    assert shown.returncode == 0, shown.stderr
    assert "Lista as sessões deste projeto" in shown.stdout
    assert "Imprime JSON (um array) para scripts." in shown.stdout
    failed = run_chatcli("sessions", "show", "nope", lang="pt_BR")
    assert failed.returncode == 2
    assert failed.stderr.strip().endswith(
        "nenhuma sessão corresponde a 'nope' — veja `chatcli sessions list`")
    english = run_chatcli("sessions", "show", "nope", lang="en")
    assert english.stderr.strip().endswith(
        "no session matches 'nope' — see `chatcli sessions list`")
    listed = run_chatcli("sessions", "list", lang="pt_BR")
    assert listed.stdout.startswith("Nenhuma sessão salva neste projeto ("), listed.stdout


def test_the_in_chat_commands_speak_portuguese(
        app: FakeApp, chatcli_language: Callable[[str], None]) -> None:
    chatcli_language("pt_BR")
    assert app.run("/rewind") == (
        "Ainda não há checkpoints: um é criado antes de cada mensagem que você envia.\n")
    turn(app.conversation, "first question")
    out = app.run("/session")
    assert out.startswith(f"Sessão {app.conversation.id} (salva), 2 mensagens.")
    assert "erro:" in app.run("/session nope")
    assert app.run("/rewind undo") == "Nada para desfazer.\n"
    chatcli_language("en")
    assert app.run("/rewind undo") == "Nothing to undo.\n"


def test_counts_and_ages_in_portuguese(chatcli_language: Callable[[str], None]) -> None:
    from chatcli_sessions.migrate import Migration
    from chatcli_sessions.project import age

    chatcli_language("pt_BR")
    assert Migration(copied=1, messages=1).summary() == (
        "1 sessão migrada (1 mensagem), verificada")
    assert Migration(copied=3, messages=12, skipped=2).summary() == (
        "3 sessões migradas (12 mensagens), 2 já estavam lá, verificadas")
    failed = Migration(copied=2, messages=4, problems=["x"])
    assert failed.summary() == "2 sessões migradas (4 mensagens), falha na verificação: 1 problema"
    assert age(1000.0, now=1000.0 + 7200) == "há 2 h"
    chatcli_language("en")
    assert Migration(copied=1, messages=1).summary() == "migrated 1 session (1 message), verified"
    assert age(1000.0, now=1000.0 + 7200) == "2 h ago"


def test_a_transcript_in_portuguese(host, chatcli_language: Callable[[str], None]) -> None:
    from chatcli_sessions.cli import sessions
    from click.testing import CliRunner
    from sessions_helpers import new_conversation

    conversation = new_conversation(host)
    turn(conversation, "how to vacuum postgres", "run VACUUM ANALYZE")
    chatcli_language("pt_BR")
    shown = CliRunner().invoke(sessions, ["show", conversation.id])
    assert shown.exit_code == 0, shown.output
    assert f"_sessão `{conversation.id}` · criada em " in shown.output
    assert "## Usuário\n\nhow to vacuum postgres" in shown.output
    assert "## Assistente" in shown.output
    chatcli_language("en")
    shown = CliRunner().invoke(sessions, ["show", conversation.id])
    assert "## User\n\nhow to vacuum postgres" in shown.output
