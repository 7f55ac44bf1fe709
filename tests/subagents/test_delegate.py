"""The delegate tool in a real session: the OpenAI provider (official SDK) against a wire server
that answers the parent and each worker from their own scripts, by request content."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import chatcli_subagents.plugin as subagents_plugin
import pytest
from chatcli import Approval, StopReason
from chatcli_plugin_records import AgentType
from chatcli_subagents.board import REGISTRY
from chatcli_testing import Fault, Reply, ToolCall
from subagents_support import ContentServer, TypesPlugin, chat, content_text


def delegate(agent: str, task: str, description: str = "a task") -> ToolCall:
    return ToolCall("delegate", {"agent": agent, "task": task, "description": description})


def tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools") or []}


def all_text(body: dict[str, Any]) -> str:
    return "\n".join(content_text(m.get("content")) for m in body.get("messages") or [])


def settled(board: Any, seconds: float = 3.0) -> list[str]:
    """The workers' states once none is queued or running (a cancelled turn ends as soon as
    it is told; its workers stop a moment later)."""
    deadline = time.monotonic() + seconds
    while any(w.state in ("queued", "running") for w in board.listed()):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return [w.state for w in board.listed()]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [content_text(m.get("content")) for m in body["messages"] if m["role"] == "tool"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("the answer is 42\n")
    return root


def test_three_delegations_run_side_by_side_two_at_a_time(ws: Path) -> None:
    slow = Reply(text="found it", pauses={0: 0.6})
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", f"TASK-{n} look around", f"part {n}")
                                     for n in (1, 2, 3)]),
                   Reply(text="all three reported")],
        "TASK-1": [slow], "TASK-2": [slow], "TASK-3": [slow]})
    with server:
        session = chat(server, ws, agents={"max_workers": 2})
        started = time.monotonic()
        finished = session.turn("PARENT: split the work")
        took = time.monotonic() - started
    assert finished.text == "all three reported"
    workers = {"TASK-1", "TASK-2", "TASK-3"}
    assert all(len(server.of(key)) == 1 for key in workers)
    assert server.most_at_once(workers) == 2  # side by side, never more than max_workers
    assert took < 3 * 0.6 + 0.5  # not one after another (two rounds of 0.6 s)
    results = session.results()
    assert len(results) == 3 and not any(r.is_error for r in results)
    assert all("found it" in r.content and " done · 1 turn · " in r.content for r in results)


def test_a_worker_gets_its_task_not_the_parents_history(ws: Path) -> None:
    server = ContentServer({
        "EARLIER": [Reply(text="noted the secret")],
        "PARENT": [Reply(tool_calls=[delegate("general", "TASK-A read notes.txt", "read")]),
                   Reply(text="the worker says 42")],
        "TASK-A": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                   Reply(text="The notes say 42.")]})
    with server:
        session = chat(server, ws)
        session.turn("EARLIER: the secret word is PLUGH")
        finished = session.turn("PARENT: ask a worker")
    assert finished.text == "the worker says 42"
    first, second = server.of("TASK-A")
    for span in (first, second):
        text = all_text(span.body)
        assert "TASK-A read notes.txt" in text
        assert "PLUGH" not in text and "EARLIER" not in text and "PARENT" not in text
        system = content_text(span.body["messages"][0]["content"])
        assert "You are worker w1, of type `general`" in system
        assert "delegate" not in tool_names(span.body)  # depth 1: a worker cannot delegate
    assert tool_names(first.body) == {"read_file", "write_file"}
    assert tool_results(second.body) == ["the answer is 42\n"]
    report = session.results()[0].content
    assert report.startswith("w1 general done · 2 turns · ")
    assert report.endswith("The notes say 42.")
    assert "notes.txt" not in report.split("\n\n", 1)[0]  # it changed nothing
    parent = server.of("PARENT")[0]
    assert "delegate" in tool_names(parent.body)
    system = content_text(parent.body["messages"][0]["content"])
    assert "## Delegating to workers" in system


def test_explore_never_gets_a_write_tool(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-X change notes.txt")]),
                   Reply(text="ok")],
        "TASK-X": [Reply(tool_calls=[ToolCall("write_file", {"path": "notes.txt",
                                                             "content": "gone"})]),
                   Reply(text="I could not write.")]})
    with server:
        session = chat(server, ws, interactive=True, approver=lambda *a: Approval(True))
        session.turn("PARENT: go")
    first, second = server.of("TASK-X")
    assert tool_names(first.body) == {"read_file"}
    assert "unknown tool 'write_file'; available tools: read_file" in tool_results(second.body)[0]
    assert (ws / "notes.txt").read_text() == "the answer is 42\n"


def test_a_worker_never_gets_a_tool_its_parent_does_not_offer(ws: Path) -> None:
    everything = AgentType(name="all", description="every tool", tools=("*",), source="test")
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("all", "TASK-ALL list your tools")]),
                   Reply(text="ok")],
        "TASK-ALL": [Reply(text="done")]})
    with server:
        session = chat(server, ws, TypesPlugin(everything))
        session.session.engine.tool_names = frozenset({"read_file", "delegate"})
        session.turn("PARENT: go")
    assert tool_names(server.of("TASK-ALL")[0].body) == {"read_file"}
    assert "write_file" not in tool_names(server.of("PARENT")[0].body)


def test_an_unknown_type_is_an_error_naming_the_types(ws: Path) -> None:
    verifier = AgentType(name="verifier", description="verifies a change", source="test")
    server = ContentServer({"PARENT": [Reply(tool_calls=[delegate("nobody", "TASK-N")]),
                                       Reply(text="ok")]})
    with server:
        session = chat(server, ws, TypesPlugin(verifier))
        session.turn("PARENT: go")
    result = session.results()[0]
    assert result.is_error
    assert "unknown agent type 'nobody'; the types are: explore, general, verifier" in (
        result.content)
    parent = server.of("PARENT")[0].body
    description = next(t["function"]["description"] for t in parent["tools"]
                       if t["function"]["name"] == "delegate")
    assert "- verifier: verifies a change" in description
    assert "- explore: a read-only worker" in description
    assert "delegate to `verifier` to verify it" in content_text(parent["messages"][0]["content"])


def test_a_failing_worker_reports_its_error_and_the_other_result_arrives(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-BAD fail", "bad"),
                                     delegate("explore", "TASK-GOOD work", "good")]),
                   Reply(text="one failed")],
        "TASK-BAD": [Fault(status=400, message="the model refused this request")],
        "TASK-GOOD": [Reply(text="good result", pauses={0: 0.3})]})
    with server:
        session = chat(server, ws)
        finished = session.turn("PARENT: two")
    assert finished.text == "one failed"
    bad, good = session.results()
    assert bad.is_error and "w1 explore failed" in bad.content
    assert "the model refused this request" in bad.content
    assert not good.is_error and good.content.endswith("good result")
    board = session.conversation.stash[REGISTRY]
    assert [(w.id, w.state) for w in board.listed()] == [("w1", "failed"), ("w2", "done")]


def test_a_deeper_worker_may_delegate_when_max_depth_allows(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("general", "TASK-OUTER plan")]), Reply(text="ok")],
        "TASK-OUTER": [Reply(tool_calls=[delegate("explore", "TASK-INNER look")]),
                       Reply(text="inner said: seen")],
        "TASK-INNER": [Reply(text="seen")]})
    with server:
        session = chat(server, ws, agents={"max_depth": 2})
        session.turn("PARENT: nest")
    assert "delegate" in tool_names(server.of("TASK-OUTER")[0].body)
    assert "delegate" not in tool_names(server.of("TASK-INNER")[0].body)
    assert session.results()[0].content.endswith("inner said: seen")
    workers = session.conversation.stash[REGISTRY].listed()
    assert [(w.id, w.depth, w.state) for w in workers] == [("w1", 1, "done"), ("w2", 2, "done")]
    assert workers[1].conversation is not None
    assert workers[1].conversation.parent is workers[0].conversation


def test_the_time_limit_stops_a_worker(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-SLOW wait")]), Reply(text="ok")],
        "TASK-SLOW": [Reply(text="too late", pauses={0: 10})]})
    with server:
        session = chat(server, ws, agents={"max_seconds": 1})
        started = time.monotonic()
        session.turn("PARENT: go")
        took = time.monotonic() - started
    assert took < 4
    result = session.results()[0]
    assert not result.is_error
    assert result.content.startswith("w1 explore stopped (the time limit (1 s) passed)")
    assert session.conversation.stash[REGISTRY].find("w1").state == "stopped"


def test_the_turn_limit_of_a_type_stops_a_worker(ws: Path) -> None:
    looping = AgentType(name="looper", description="loops", max_turns=2, source="test")
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("looper", "TASK-LOOP go")]), Reply(text="ok")],
        "TASK-LOOP": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                      Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"}),
                                        ToolCall("read_file", {"path": "notes.txt"})]),
                      Reply(text="never reached")]})
    with server:
        session = chat(server, ws, TypesPlugin(looping))
        session.turn("PARENT: go")
    assert len(server.of("TASK-LOOP")) == 2
    assert "stopped (the turn limit (2) was reached) · 2 turns" in session.results()[0].content


def test_approvals_from_workers_are_labelled_with_the_worker(ws: Path) -> None:
    asked: list[str] = []

    def approver(call: Any, tool: Any, verdict: Any) -> Approval:
        asked.append(verdict.reason)
        return Approval(True)

    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("general", "TASK-W write out.txt")]),
                   Reply(text="ok")],
        "TASK-W": [Reply(tool_calls=[ToolCall("write_file", {"path": "out.txt",
                                                             "content": "hello"})]),
                   Reply(text="wrote it")]})
    with server:
        session = chat(server, ws, interactive=True, approver=approver)
        session.turn("PARENT: go")
    assert asked == ["w1 general"]
    assert (ws / "out.txt").read_text() == "hello"
    report = session.results()[0].content
    assert "files changed: out.txt" in report
    worker = session.conversation.stash[REGISTRY].find("w1")
    assert worker.changed == ["out.txt"]


def test_a_workers_requests_are_subagent_calls(ws: Path) -> None:
    purposes: list[tuple[str, bool]] = []

    class Watch:
        from chatcli import hookimpl

        @hookimpl(trylast=True)
        def before_request(self, request: Any, conversation: Any) -> None:
            purposes.append((request.purpose, request.volatile_last))

    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-P go")]), Reply(text="ok")],
        "TASK-P": [Reply(text="done")]})
    with server:
        session = chat(server, ws, Watch())
        session.turn("PARENT: go")
    assert purposes == [("chat", False), ("subagent", True), ("chat", False)]
    worker = session.conversation.stash[REGISTRY].find("w1")
    assert worker.conversation.metadata["subagent"] == {
        "id": "w1", "type": "explore", "parent": session.conversation.id, "task": "TASK-P go",
        "description": "a task"}
    assert worker.conversation.title == "w1 explore: a task"


def test_cancelling_the_parent_stops_its_workers(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-C1 wait", "one"),
                                     delegate("explore", "TASK-C2 wait", "two")]),
                   Reply(text="never")],
        "TASK-C1": [Reply(text="late", pauses={0: 20})],
        "TASK-C2": [Reply(text="late", pauses={0: 20})]})
    cancel = threading.Event()
    with server:
        session = chat(server, ws)
        done: list[Any] = []
        runner = threading.Thread(target=lambda: done.append(
            session.turn("PARENT: wait", cancel=cancel, check=False)))
        runner.start()
        deadline = time.monotonic() + 10
        while len(server.of("TASK-C1")) + len(server.of("TASK-C2")) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        cancel.set()
        runner.join(5)
        assert not runner.is_alive()
        count = len(server.spans)
        time.sleep(0.5)
        assert len(server.spans) == count  # no request after the cancel
    assert done[0].stop_reason == StopReason.INTERRUPTED
    assert settled(session.conversation.stash[REGISTRY]) == ["cancelled", "cancelled"]
    assert all(w.seconds < 5 for w in session.conversation.stash[REGISTRY].listed())


def test_progress_lines_are_labelled_with_the_worker(ws: Path) -> None:
    lines: list[str] = []
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-L read", "reading notes")]),
                   Reply(text="ok")],
        "TASK-L": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                   Reply(text="read")]})
    with server:
        session = chat(server, ws)
        session.session.engine.on_tool_output = lines.append
        session.turn("PARENT: go")
    assert lines[0] == "[w1 explore] started: reading notes"
    assert lines[1] == '[w1 explore] → read_file(path="notes.txt")'
    assert lines[2].startswith("[w1 explore] done · 2 turns · ")


def test_a_type_names_its_model_and_an_alias_keeps_the_parents(ws: Path) -> None:
    cheap = AgentType(name="cheap", description="cheap model", model="tiny-model", source="t")
    aliased = AgentType(name="aliased", description="an alias", model="haiku", source="t")
    elsewhere = AgentType(name="elsewhere", description="a provider not installed",
                          provider="nowhere", model="x", source="t")
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("cheap", "TASK-CHEAP go"),
                                     delegate("aliased", "TASK-ALIAS go"),
                                     delegate("elsewhere", "TASK-ELSE go")]),
                   Reply(text="ok")],
        "TASK-CHEAP": [Reply(text="cheap done")], "TASK-ALIAS": [Reply(text="alias done")]})
    with server:
        session = chat(server, ws, TypesPlugin(cheap, aliased, elsewhere))
        session.turn("PARENT: go")
    assert server.of("TASK-CHEAP")[0].body["model"] == "tiny-model"
    assert server.of("TASK-ALIAS")[0].body["model"] == "m"  # the parent's
    assert server.of("PARENT")[0].body["model"] == "m"
    assert server.of("TASK-ELSE") == []
    failed = session.results()[2]
    assert failed.is_error and "w3 elsewhere failed" in failed.content
    assert "nowhere" in failed.content


def _git(root: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout


def test_a_worktree_worker_edits_its_own_branch_and_reports_it(ws: Path) -> None:
    pytest.importorskip("chatcli_subagents.worktree")  # the isolation helper's module
    _git(ws, "init", "-q")
    _git(ws, "add", ".")
    _git(ws, "commit", "-qm", "start")
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[ToolCall("delegate", {
            "agent": "general", "task": "TASK-WT write new.txt", "description": "isolated",
            "isolation": "worktree"})]), Reply(text="ok")],
        "TASK-WT": [Reply(tool_calls=[ToolCall("write_file", {"path": "new.txt",
                                                              "content": "made\n"})]),
                    Reply(text="made new.txt")]})
    with server:
        session = chat(server, ws, interactive=True, approver=lambda *a: Approval(True))
        session.turn("PARENT: go")
    report = session.results()[0].content
    worker = session.conversation.stash[REGISTRY].find("w1")
    assert worker.state == "done" and worker.branch
    assert f"branch: {worker.branch}" in report and "files changed: new.txt" in report
    assert not (ws / "new.txt").exists()  # the main tree is untouched until merged
    assert _git(ws, "show", f"{worker.branch}:new.txt") == "made\n"


def test_a_queued_worker_cancelled_never_reaches_the_model(ws: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-Q1 wait", "first"),
                                     delegate("explore", "TASK-Q2 wait", "second")]),
                   Reply(text="never")],
        "TASK-Q1": [Reply(text="late", pauses={0: 20})],
        "TASK-Q2": [Reply(text="late", pauses={0: 20})]})  # either may take the one place
    cancel = threading.Event()
    with server:
        session = chat(server, ws, agents={"max_workers": 1})
        runner = threading.Thread(target=lambda: session.turn("PARENT: go", cancel=cancel,
                                                              check=False))
        runner.start()
        deadline = time.monotonic() + 10
        while not (server.of("TASK-Q1") or server.of("TASK-Q2")) or len(
                session.conversation.stash[REGISTRY].listed()) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        board = session.conversation.stash[REGISTRY]
        assert sorted(w.state for w in board.listed()) == ["queued", "running"]
        assert subagents_plugin.status_items(session.session) == {
            "workers": "1 worker running, 1 queued"}
        cancel.set()
        runner.join(5)
        assert not runner.is_alive()
    assert len(server.of("TASK-Q1")) + len(server.of("TASK-Q2")) == 1
    assert settled(board) == ["cancelled", "cancelled"], [(w.state, w.error)
                                                          for w in board.listed()]
    assert subagents_plugin.status_items(session.session) is None
    assert sorted(w.error for w in board.listed()) == ["cancelled before it started",
                                                      "its caller was interrupted"]


def test_workers_on_the_anthropic_wire_format(ws: Path) -> None:
    from subagents_support import AnthropicContentServer
    from subagents_support import tool_names as names_of

    server = AnthropicContentServer({
        "EARLIER": [Reply(text="noted")],
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-A1 read notes.txt", "one"),
                                     delegate("explore", "TASK-A2 read notes.txt", "two")]),
                   Reply(text="both read it")],
        "TASK-A1": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                    Reply(text="42 (one)", pauses={0: 0.4})],
        "TASK-A2": [Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
                    Reply(text="42 (two)", pauses={0: 0.4})]})
    with server:
        session = chat(server, ws, provider="anthropic")
        session.turn("EARLIER: the secret word is XYZZY")
        finished = session.turn("PARENT: two readers")
    assert finished.text == "both read it"
    assert server.most_at_once({"TASK-A1", "TASK-A2"}) == 2
    for key in ("TASK-A1", "TASK-A2"):
        first, second = server.of(key)
        assert names_of(first.body) == {"read_file"}
        assert "XYZZY" not in json.dumps(first.body) and "PARENT" not in json.dumps(second.body)
        system = "".join(block["text"] for block in first.body["system"])
        assert "You are worker w" in system and "of type `explore`" in system
    reports = sorted(result.content for result in session.results())
    assert reports[0].endswith("42 (one)") and reports[1].endswith("42 (two)")


def test_a_worker_gets_no_tool_a_plugin_took_from_its_parents_request(ws: Path) -> None:
    from chatcli import hookimpl

    class Persona:
        """Trims the tools of every request of the user's conversation, as a persona does."""

        @hookimpl(tryfirst=True)
        def before_request(self, request: Any, conversation: Any) -> None:
            if conversation.parent is None:
                request.tools = [t for t in request.tools if t.name in ("read_file", "delegate")]

    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("general", "TASK-PT go")]), Reply(text="ok")],
        "TASK-PT": [Reply(text="done")]})
    with server:
        session = chat(server, ws, Persona())
        session.turn("PARENT: go")
    assert tool_names(server.of("PARENT")[0].body) == {"read_file", "delegate"}
    assert tool_names(server.of("TASK-PT")[0].body) == {"read_file"}
