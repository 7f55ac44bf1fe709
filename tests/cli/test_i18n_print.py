"""chatcli-print (``chatcli -p``) in Brazilian Portuguese: its errors, status lines and the
terminal's approval question under CHATCLI_LANG=pt_BR, English unchanged. The approval question
keeps click's answer keys (y/n) in both languages."""

from __future__ import annotations

import json

import pytest
from chatcli_print import oneshot
from chatcli_testing import Reply, ToolCall
from cli_support import CHATCLI, PYTHON, SCRIPTED_APP, TtyInput, run_process

NOTE = json.dumps([{"tool": "write_note", "args": {"path": "n.txt", "text": "olá"}},
                   {"reply": {"text": "feito"}}])


def test_empty_prompt_error_in_portuguese_and_english(home):
    pt = run_process([CHATCLI, "-p", ""], home, CHATCLI_LANG="pt_BR")
    assert pt.returncode == 2
    assert "o prompt está vazio" in pt.stderr
    assert 'passe um: chatcli -p "pergunta"' in pt.stderr
    en = run_process([CHATCLI, "-p", ""], home)
    assert "the prompt is empty" in en.stderr
    assert 'give one: chatcli -p "question"' in en.stderr


def test_tool_status_lines_of_a_real_run_in_portuguese(home):
    denied = run_process([PYTHON, SCRIPTED_APP, "-p", "nota"], home, CLI_TEST_SCRIPT=NOTE,
                         CHATCLI_LANG="pt_BR")
    assert denied.returncode == 0, denied.stderr
    assert 'chatcli: ferramenta write_note(path="n.txt", text="olá") não executada:' in (
        denied.stderr)
    allowed = run_process([PYTHON, SCRIPTED_APP, "-p", "nota", "--allow", "write"], home,
                          CLI_TEST_SCRIPT=NOTE, CHATCLI_LANG="pt_BR")
    assert allowed.returncode == 0, allowed.stderr
    assert "chatcli: ferramenta write_note concluída (" in allowed.stderr
    assert allowed.stdout == "feito\n"
    english = run_process([PYTHON, SCRIPTED_APP, "-p", "note", "--allow", "write"], home,
                          CLI_TEST_SCRIPT=NOTE)
    assert "chatcli: tool write_note done (" in english.stderr


@pytest.mark.parametrize(("answers", "written"), [("y\n", True), ("n\n", False),
                                                  ("\n", False), ("s\ny\n", True)])
def test_approval_question_in_portuguese_answered_with_y_or_n(
        cli, home, monkeypatch, chatcli_language, answers, written):
    chatcli_language("pt_BR")
    monkeypatch.setattr(oneshot, "_isatty", lambda stream: True)  # somebody can be asked
    cli.script(Reply(tool_calls=[ToolCall(name="write_note",
                                          arguments={"path": "n.txt", "text": "x"})]),
               Reply(text="ok"))
    result = cli("-p", "escreva", stdin=TtyInput(answers))
    assert result.code == 0, result.err
    assert ('chatcli: permitir write_note(path="n.txt", text="x") (ferramenta write)? '
            '[y/N]: ') in result.err
    assert (home / "work" / "n.txt").exists() == written
    if written:
        assert "chatcli: ferramenta write_note concluída (" in result.err


def test_approval_question_in_english(cli, home, monkeypatch):
    monkeypatch.setattr(oneshot, "_isatty", lambda stream: True)
    cli.script(Reply(tool_calls=[ToolCall(name="write_note",
                                          arguments={"path": "n.txt", "text": "x"})]),
               Reply(text="ok"))
    result = cli("-p", "write", stdin=TtyInput("y\n"))
    assert 'chatcli: allow write tool write_note(path="n.txt", text="x")? [y/N]: ' in result.err
    assert (home / "work" / "n.txt").exists()
