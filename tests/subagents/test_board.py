"""The board (``/agents``, ``/agents show``, ``/agents types``), ``/delegate``, the ``[agents]``
settings and the token limit, in a real session against a wire server."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import UsageError
from chatcli_plugin_records import AgentType
from chatcli_subagents.board import REGISTRY
from chatcli_subagents.settings import AgentsConfig, read_config
from chatcli_testing import Fault, Reply, ToolCall
from subagents_support import ContentServer, TypesPlugin, chat


def delegate(agent: str, task: str, description: str) -> ToolCall:
    return ToolCall("delegate", {"agent": agent, "task": task, "description": description})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("the answer is 42\n")
    return root


def test_the_board_lists_workers_with_their_states_and_shows_a_transcript(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-1 read the notes", "read notes"),
                                     delegate("explore", "TASK-2 fail", "doomed")]),
                   Reply(text="ok")],
        "TASK-1": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})],
                         usage={"input_tokens": 100, "output_tokens": 20}),
                   Reply(text="The notes say 42.",
                         usage={"input_tokens": 150, "output_tokens": 10})],
        "TASK-2": [Fault(status=400, message="bad request for the worker")]})
    with server:
        session = chat(server, ws)
        assert "no workers yet" in session.slash("/agents")
        session.turn("PARENT: go")
        board = session.slash("/agents").splitlines()
        shown = session.slash("/agents show w1")
        with pytest.raises(UsageError) as missing:
            session.slash("/agents show w9")
    assert board[0].split() == ["ID", "TYPE", "STATE", "TURNS", "TOKENS", "TIME", "TASK"]
    assert board[1].split()[:5] == ["w1", "explore", "done", "2", "280"]
    assert board[1].endswith("read notes")
    assert board[2].split()[:3] == ["w2", "explore", "failed"]
    assert "failed (OpenAI rejected the request (HTTP 400)" in board[2]
    assert board[2].endswith("doomed")
    lines = shown.splitlines()
    assert lines[0] == "w1 explore: read notes — done"
    assert lines[1:3] == ["── user ──", "TASK-1 read the notes"]
    assert '  → read_file {"path": "notes.txt"}' in lines
    assert "  ← read_file: the answer is 42" in lines
    assert lines[-2:] == ["── assistant ──", "The notes say 42."]
    assert "PARENT" not in shown
    assert "no worker 'w9' in this conversation (workers: w1, w2)" in str(missing.value)


def test_agents_types_lists_every_type_and_where_it_comes_from(ws: Path) -> None:
    reviewer = AgentType(name="reviewer", description="reviews diffs", tools=("read_file",),
                         model="haiku", source="/home/u/.claude/agents/reviewer.md")
    with ContentServer({}) as server:
        shown = chat(server, ws, TypesPlugin(reviewer)).slash("/agents types")
    lines = shown.splitlines()
    assert lines[0].startswith("general   built-in  —  a worker with the same tools as you")
    assert lines[1].startswith("explore   built-in  —  a read-only worker")
    assert lines[1].endswith("[tools @read]")
    assert lines[2] == ("reviewer  /home/u/.claude/agents/reviewer.md  —  reviews diffs "
                        "[model haiku; tools read_file]")


def test_delegate_runs_one_worker_from_the_chat_and_prints_its_report(ws: Path) -> None:
    server = ContentServer({
        "TASK-D": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                   Reply(text="It says 42.")]})
    with server:
        session = chat(server, ws)
        printed = session.slash("/delegate explore TASK-D what is in notes.txt?")
        with pytest.raises(UsageError, match="unknown agent type 'nobody'"):
            session.slash("/delegate nobody do it")
        with pytest.raises(UsageError, match="needs a type and a task"):
            session.slash("/delegate explore")
        board = session.slash("/agents")
    assert "[w1 explore] started: TASK-D what is in notes.txt?" in printed
    assert "w1 explore done · 2 turns · " in printed
    assert printed.rstrip().endswith("It says 42.")
    assert session.conversation.messages() == []  # the chat's own log is untouched
    assert board.splitlines()[1].split()[:3] == ["w1", "explore", "done"]


def test_the_token_limit_stops_a_worker(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("general", "TASK-T spend", "spend")]),
                   Reply(text="ok")],
        "TASK-T": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})],
                         usage={"input_tokens": 900, "output_tokens": 200}),
                   Reply(text="never")]})
    with server:
        session = chat(server, ws, agents={"max_tokens": 1000})
        session.turn("PARENT: go")
    assert len(server.of("TASK-T")) == 1  # stopped before its second call
    report = session.results()[0].content
    assert report.startswith("w1 general stopped (the token limit (1,000) passed) · 1 turn · "
                             "1,100 tokens")


def test_wrong_agents_settings_are_reported_with_the_fix_and_the_default_used() -> None:
    said: list[str] = []
    config = read_config({"max_workers": 0, "max_seconds": "30", "max_depht": 2,
                          "max_tokens": "lots"}, said.append)
    assert config == AgentsConfig(max_seconds=30.0)
    assert said == [
        "[agents] max_workers must be a whole number from 1 to 64, not 0; using 4 — fix it: "
        "chatcli config set agents.max_workers 4",
        "[agents] max_tokens must be a whole number from 1,000 to 100,000,000, not 'lots'; using "
        "200000 — fix it: chatcli config set agents.max_tokens 200000",
        "[agents] has no setting 'max_depht' (known: lock_wait, max_depth, max_seconds, "
        "max_tokens, max_turns, max_workers); it is ignored — remove it: chatcli config unset "
        "agents.max_depht"]


def test_the_chats_stop_key_stops_a_delegate_command(ws: Path) -> None:
    import threading
    import time

    from session_harness import HarnessApp

    class StoppableApp(HarnessApp):
        """A front end that stops the command in progress through ``app.cancel`` (the
        chat's Ctrl+C)."""

        cancel: threading.Event | None = None
        turn_cancel: threading.Event | None = None

    server = ContentServer({"TASK-S": [Reply(text="late", pauses={0: 20})]})
    with server:
        session = chat(server, ws)
        app = StoppableApp(session)
        app.turn_cancel = threading.Event()
        app.turn_cancel.set()  # an earlier turn was stopped
        printed: list[str] = []
        runner = threading.Thread(target=lambda: printed.append(
            session.slash("/delegate explore TASK-S wait", app)))
        runner.start()
        deadline = time.monotonic() + 10
        while not server.of("TASK-S"):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert app.cancel is not None and app.turn_cancel is app.cancel
        app.cancel.set()
        runner.join(5)
        assert not runner.is_alive()
    assert "w1 explore cancelled after " in printed[0]
    assert app.cancel is None and app.turn_cancel is not None and app.turn_cancel.is_set()


def test_a_wrong_agents_setting_is_reported_when_the_session_opens(ws: Path) -> None:
    with ContentServer({}) as server:
        session = chat(server, ws, agents={"max_depth": 0})
    assert session.warned == [
        "[agents] max_depth must be a whole number from 1 to 8, not 0; using 1 — fix it: "
        "chatcli config set agents.max_depth 1"]


def test_the_guide_names_the_verifier_before_a_type_that_only_reviews() -> None:
    from chatcli_subagents.prompt import delegation_section, verifiers
    from chatcli_subagents.types import BUILT_IN

    types = {agent.name: agent for agent in BUILT_IN} | {
        "security-specialist": AgentType(name="security-specialist",
                                         description="Reviews code the way an attacker would"),
        "writer": AgentType(name="writer", description="writes prose"),
        "code-checker": AgentType(name="code-checker", description="lints"),
        "verifier": AgentType(name="verifier", description="checks a worker's result")}
    assert verifiers(types) == ["verifier", "code-checker", "security-specialist"]
    assert "delegate to `verifier` to verify it" in delegation_section(types).text
    assert "to verify it" not in delegation_section(
        {agent.name: agent for agent in BUILT_IN}).text


def test_worker_ids_follow_the_models_order_of_calls_whichever_starts_first(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    import chatcli_subagents.worker as worker_module

    real_depth_of = worker_module.depth_of
    arrived: list[str] = []
    lock = threading.Lock()

    def first_one_dawdles(conversation):  # the first worker thread to start waits a little
        with lock:
            arrived.append(threading.current_thread().name)
            first = len(arrived) == 1
        if first:
            time.sleep(0.4)
        return real_depth_of(conversation)

    monkeypatch.setattr(worker_module, "depth_of", first_one_dawdles)
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", f"TASK-{n} look", f"look {n}")
                                     for n in (1, 2, 3)]),
                   Reply(text="ok")],
        **{f"TASK-{n}": [Reply(text=f"found {n}")] for n in (1, 2, 3)}})
    with server:
        session = chat(server, ws)
        session.turn("PARENT: go")
        board = session.conversation.stash[REGISTRY]
        assert len(arrived) == 3
        assert [(w.id, w.task) for w in sorted(board.listed(), key=lambda w: w.id)] == [
            ("w1", "TASK-1 look"), ("w2", "TASK-2 look"), ("w3", "TASK-3 look")]
        assert "no worker" not in session.slash("/agents show w3")
