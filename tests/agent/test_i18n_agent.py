"""chatcli-agent in Brazilian Portuguese: why the policy asks (the approval question's reason),
the terminal's approval question answered with its keys (y/n, kept in every language), an
"always" answer's note, /permissions, a run where nobody can be asked, and the command line's
options; English unchanged."""

from __future__ import annotations

import io
import sys

import pytest
from agent_support import Recorder
from chatcli import Approval
from chatcli_agent.permissions.command import describe
from chatcli_print import oneshot
from process_support import CHATCLI, run_process

NPM = ("exec", {"command": "npm test -- -k a"})


def _terminal_approver(monkeypatch: pytest.MonkeyPatch, answers: str):
    """chatcli -p's approval question on a terminal, answered with ``answers``."""
    monkeypatch.setattr(oneshot, "_isatty", lambda stream: True)
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    approver = oneshot._make_approver(frozenset())
    assert approver is not None
    return approver


@pytest.mark.parametrize(("answers", "ran"), [("y\n", True), ("n\n", False), ("\n", False),
                                              ("sim\ny\n", True)])
def test_the_approval_question_in_portuguese_takes_y_or_n(driver, monkeypatch, capsys,
                                                          chatcli_language, answers, ran):
    chatcli_language("pt_BR")
    session = driver(interactive=True, approver=_terminal_approver(monkeypatch, answers))
    done = session.turn(NPM)
    question = capsys.readouterr().err
    assert ('chatcli: permitir exec(command="npm test -- -k a") (ferramenta execute; executa '
            "`npm test -- -k a` (comandos perguntam no modo default))? [y/N]: ") in question
    assert bool(done.ran) is ran


def test_the_approval_question_in_english(driver, monkeypatch, capsys):
    session = driver(interactive=True, approver=_terminal_approver(monkeypatch, "y\n"))
    assert session.turn(NPM).ran
    assert ('chatcli: allow execute tool exec(command="npm test -- -k a") (runs `npm test -- '
            "-k a` (commands ask in default mode))? [y/N]: ") in capsys.readouterr().err


def test_the_reasons_and_the_always_note_in_portuguese(ws, driver, chatcli_language):
    chatcli_language("pt_BR")
    approver = Recorder(answers=[Approval(True, scope="always")])
    session = driver(interactive=True, approver=approver)
    session.turn(("edit", {"path": "src/app.py"}))
    assert approver.questions[0][2] == ("grava src/app.py (edições perguntam no modo default)")
    assert any(w.startswith("permissões: edit(src/app.py) salvo para este projeto (")
               and w.endswith("outros projetos continuam perguntando (/permissions lista as "
                              "regras)") for w in session.warnings)
    lines = describe(session.plugin.state_for(session.session))
    assert "  edit(src/app.py)  (salva para este projeto)" in lines
    outside = Recorder()
    driver(interactive=True, approver=outside).turn(("read", {"path": "/etc/hostname"}))
    assert outside.questions[0][2] == "lê /etc/hostname, fora do espaço de trabalho"


def test_nobody_to_ask_says_why_and_the_fix_in_portuguese(driver, chatcli_language):
    chatcli_language("pt_BR")
    done = driver().turn(("exec", {"command": "npm test"}))
    assert done.ran == [] and done.errors == [True]
    assert ("executa `npm test` (comandos perguntam no modo default); precisa da aprovação do "
            "usuário e ninguém pode ser perguntado nesta execução (permita com --allow "
            "'exec(npm test:*)' ou --permission-mode auto)") in done.texts[0]


def test_slash_permissions_in_portuguese(driver, chatcli_language):
    chatcli_language("pt_BR")
    session = driver(mode="plan")
    lines = describe(session.plugin.state_for(session.session))
    assert lines[0] == ("modo de permissão: plan (somente leitura: só leituras rodam, nada é "
                        "mudado; de --permission-mode)")
    assert "nenhuma regra (adicione-as em [permissions] allow/ask/deny na configuração)" in lines
    assert lines[-2] == ("comandos perigosos, arquivos de credenciais e caminhos fora do espaço "
                         "de trabalho sempre perguntam")


def test_the_command_line_options_in_portuguese(tmp_path):
    shown = run_process([CHATCLI, "--help"], tmp_path, CHATCLI_LANG="pt_BR")
    assert "Pré-aprova classes de risco de ferramentas" in " ".join(shown.stdout.split())
    bad = run_process([CHATCLI, "-p", "oi", "--allow", "tudo"], tmp_path, CHATCLI_LANG="pt_BR")
    assert bad.returncode == 2
    assert "'tudo' não é uma classe de risco" in " ".join(bad.stderr.split())
    english = run_process([CHATCLI, "-p", "hi", "--allow", "everything"], tmp_path)
    assert "'everything' is neither a risk class" in " ".join(english.stderr.split())


def test_slash_commands_of_a_real_run_in_portuguese(tmp_path):
    shown = run_process([CHATCLI, "-p", "/permissions", "--permission-mode", "plan"], tmp_path,
                        CHATCLI_LANG="pt_BR")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == (
        "modo de permissão: plan (somente leitura: só leituras rodam, nada é mudado; de "
        "--permission-mode)")
    cycled = run_process([CHATCLI, "-p", "/permissions cycle"], tmp_path, CHATCLI_LANG="pt_BR")
    assert cycled.stdout.strip() == ("modo de permissão: accept-edits (edições de arquivos dentro "
                                     "do espaço de trabalho também rodam sem perguntar)")
    no_task = run_process([CHATCLI, "-p", "/agent"], tmp_path, CHATCLI_LANG="pt_BR")
    assert no_task.returncode == 2
    assert ("/agent precisa de uma tarefa — use /agent [--max-steps N] TASK, por exemplo /agent "
            "corrija o teste que falha") in no_task.stderr
    english = run_process([CHATCLI, "-p", "/permissions cycle"], tmp_path)
    assert english.stdout.strip() == ("permission mode: accept-edits (file edits inside the "
                                      "workspace run without asking too)")
