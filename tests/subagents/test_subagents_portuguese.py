"""chatcli-subagents in Brazilian Portuguese: the board, /delegate's status lines and errors,
the [agents] settings' warnings, a worktree's merge and discard lines; the delegate tool's report
(the model reads it) stays as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import UsageError
from chatcli_subagents.settings import read_config
from chatcli_subagents.worktree import create, discard, finish, merge
from chatcli_testing import Reply, ToolCall
from subagents_support import ContentServer, chat
from test_worktree import git


def test_the_board_and_delegate_speak_portuguese(tmp_path: Path, chatcli_language) -> None:
    chatcli_language("pt_BR")
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    server = ContentServer({
        "TASK-D": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                   Reply(text="It says 42.")]})
    with server:
        session = chat(server, tmp_path)
        empty = session.slash("/agents")
        printed = session.slash("/delegate explore TASK-D what is in notes.txt?")
        with pytest.raises(UsageError) as unknown:
            session.slash("/delegate nobody do it")
        board = session.slash("/agents").splitlines()
    assert empty.startswith("nenhum subagente ainda")
    assert "[w1 explore] iniciado: TASK-D what is in notes.txt?" in printed
    assert "[w1 explore] concluído · 2 turnos · " in printed
    assert "w1 explore done · 2 turns · " in printed  # the report, as the model reads it
    assert "tipo de agente desconhecido 'nobody'" in str(unknown.value)
    assert board[0].split() == ["ID", "TIPO", "ESTADO", "TURNOS", "TOKENS", "TEMPO", "TAREFA"]
    assert board[1].split()[:3] == ["w1", "explore", "concluído"]


def test_agents_settings_warnings_speak_portuguese(chatcli_language) -> None:
    chatcli_language("pt_BR")
    said: list[str] = []
    read_config({"max_workers": 0, "max_depht": 2}, said.append)
    assert said == [
        "[agents] max_workers precisa ser um número inteiro de 1 a 64, não 0; usando 4 — "
        "corrija: chatcli config set agents.max_workers 4",
        "[agents] não tem a configuração 'max_depht' (conhecidas: lock_wait, max_depth, "
        "max_seconds, max_tokens, max_turns, max_workers); ela é ignorada — remova: chatcli "
        "config unset agents.max_depht"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit (README.md) on ``main``."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# demo\n\nfirst line\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_merge_and_discard_lines_speak_portuguese(repo: Path, chatcli_language) -> None:
    chatcli_language("pt_BR")
    first, second = create(repo, "w1"), create(repo, "w2")
    (first.path / "README.md").write_text("# demo\n\nfirst line by w1\n")
    (second.path / "README.md").write_text("# demo\n\nfirst line by w2\n")
    one, two = finish(first), finish(second)
    merged = merge(repo, one.branch)
    assert merged.merged and merged.line.startswith(f"{one.branch} mesclado em main: ")
    refused = merge(repo, two.branch)
    assert refused.line.startswith(f"merge não feito: {two.branch} conflita com main em "
                                   "README.md; nada foi alterado")
    assert discard(repo, two.branch).startswith("descartados: ")
    assert discard(repo, two.branch) == f"não sobrou nada de {two.branch}"
