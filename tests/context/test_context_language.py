"""chatcli-context speaks the user's language: ``/context status`` (its table, totals and
hints), the ``/context`` subcommands and ``/cost`` in Brazilian Portuguese under
CHATCLI_LANG=pt_BR through the real command line; the prompt the model reads stays English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from context_support import cli, write


def test_context_status_in_portuguese(openai_server: Any, workspace: Path, home: Path) -> None:
    write(workspace, "AGENTS.md", "Always run the tests.\n")
    assert cli(home, workspace, openai_server, "-p", "hello").returncode == 0
    done = cli(home, workspace, openai_server, "-c", "-p", "/context status",
               CHATCLI_LANG="pt_BR")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "prompt da próxima requisição (openai/m, sem cache de prompt):" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("seção "))
    assert header.split() == ["seção", "caracteres", "~tokens", "tipo", "cache"]
    row = next(line for line in out.splitlines() if "bootstrap:AGENTS.md" in line)
    assert row.split()[-2:] == ["estável", "-"]
    assert "mensagens (2)" in out and "prefixo estável ~" in out
    assert "janela de contexto" in out and "estimativa local corrigida ×" in out
    assert "última chamada: nenhuma ainda nesta sessão" in out
    assert "context_pull está ativado (origem: o padrão)" in out
    for english in ("prompt of the next request", "stable prefix", "last call", "section"):
        assert english not in out
    # the model's prompt is English whatever the user's language
    system = str(openai_server.requests[0].json["messages"][0]["content"])
    assert "Always run the tests." in system


def test_context_commands_and_cost_in_portuguese(openai_server: Any, workspace: Path,
                                                home: Path) -> None:
    write(workspace, "notes.md", "some notes\n")
    assert cli(home, workspace, openai_server, "-p", "hello").returncode == 0
    created = cli(home, workspace, openai_server, "-c", "-p", "/context create notes notes.md",
                  CHATCLI_LANG="pt_BR")
    assert 'contexto "notes" criado: 1 arquivo, 11 caracteres (de notes.md)' in created.stdout
    assert "anexe-o a esta conversa com /context attach notes" in created.stdout
    missing = cli(home, workspace, openai_server, "-c", "-p", "/context show nope",
                  CHATCLI_LANG="pt_BR")
    assert "erro: nenhum contexto chamado 'nope'" in missing.stdout
    cost = cli(home, workspace, openai_server, "-c", "-p", "/cost", CHATCLI_LANG="pt_BR",
               plugins="openai,sessions,context,cost")
    assert cost.returncode == 0, cost.stderr
    assert "orçamento: nenhum ([cost] budget = 5.0 define um, em USD)" in cost.stdout
    assert cost.stdout.split()[:2] == ["provedor/modelo", "chamadas"]
    english = cli(home, workspace, openai_server, "-c", "-p", "/cost", CHATCLI_LANG="en",
                  plugins="openai,sessions,context,cost")
    assert "budget: none ([cost] budget = 5.0 sets one, in USD)" in english.stdout

