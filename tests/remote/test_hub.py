"""chatcli-remote's live sessions (hub.py): turns on their own thread, the event log with its
ids, replays and resets, subscribers, one turn at a time, approvals and menus answered from
other threads, cancel, slash commands run server-side, progress items — in process, the OpenAI
provider against chatcli_testing's wire server."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chatcli_agent.permissions.plugin as permissions_plugin
import chatcli_context.cost.plugin as cost_plugin
import chatcli_provider_openai.plugin as openai_plugin
import chatcli_remote.hub as hub_module
import chatcli_remote.plugin as remote_plugin
import chatcli_repl.plugin as repl_plugin
import chatcli_sessions.plugin as sessions_plugin
import pytest
from chatcli import (
    Approval,
    ChatcliError,
    Decision,
    PluginHost,
    ProviderSettings,
    Risk,
    Settings,
    SlashCommand,
    Tool,
    UsageError,
    Verdict,
    hookimpl,
    register_secret,
)
from chatcli_remote import catalog
from chatcli_remote.hub import Event, Hub, LiveSession, QuestionClosed, TurnBusy
from chatcli_remote.wire import make_event
from chatcli_testing import Fault, OpenAIServer, Reply, ToolCall
from pydantic import BaseModel

#: Seconds a test waits for an event before it fails (a safety net: nothing is timed).
PATIENCE = 30.0


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """No real key, setting or session leaks in."""


class _NoteArgs(BaseModel):
    path: str
    text: str


class NoteTools:
    """``note`` (WRITE, with a preview diff) writes a file in the workspace; ``look`` (READ)."""

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(Tool(name="note", description="write a note", args_model=_NoteArgs,
                      run=self._write, risk=Risk.WRITE, preview=self._preview))
        register(Tool(name="look", description="look", run=lambda a, c: "looked",
                      parameters={"type": "object", "properties": {}}))

    def _write(self, args: _NoteArgs, context: Any) -> str:
        (context.workspace / args.path).write_text(args.text)
        return f"wrote {args.path}"

    def _preview(self, args: _NoteArgs, context: Any) -> str:
        return f"--- a/{args.path}\n+++ b/{args.path}\n@@ -0,0 +1 @@\n+{args.text}\n"


class Commands:
    """Slash commands for the tests: ``/choose`` (a menu), ``/head`` (moves the head back)."""

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        def choose(app: Any, argument: str) -> None:
            picked = app.pick("Which colour?", ["red", "green", "blue"])
            app.console.print(f"picked {picked}", markup=False)

        def head(app: Any, argument: str) -> None:
            first = app.conversation.messages()[0]
            app.conversation.move_head(first.id, "rewind")
            app.prefill(first.text)

        register(SlashCommand(name="choose", help="pick a colour", run=choose))
        register(SlashCommand(name="head", help="back to the first message", run=head))


@dataclass(frozen=True)
class Item:
    """Shaped as chatcli_plugin_records.ProgressItem (the hub reads the three fields)."""

    id: str
    title: str
    state: str


class Progress:
    """A plugin saying what the session is busy with (as chatcli-subagents does)."""

    @hookimpl(optionalhook=True)
    def progress_items(self, conversation: Any) -> list[Any]:
        return [Item(id="w1", title="explore: the config loader", state="running")]


def make_hub(server: OpenAIServer, *extra: Any, **kwargs: Any) -> Hub:
    """A hub whose sessions answer through ``server``, with the note tools, the test commands,
    /cost and ``extra`` plugins."""
    host = PluginHost()
    assert host.register(openai_plugin, "openai")
    assert host.register(remote_plugin, "remote")
    assert host.register(cost_plugin, "cost")
    assert host.register(NoteTools(), "notes")
    assert host.register(Commands(), "commands")
    for index, plugin in enumerate(extra):
        assert host.register(plugin, f"extra{index}")
    settings = Settings(provider="openai", model="m",
                        providers={"openai": ProviderSettings(base_url=server.url)})
    return Hub(host, settings, **kwargs)


@pytest.fixture
def hub(openai_server: OpenAIServer) -> Iterator[Hub]:
    made = make_hub(openai_server)
    yield made
    made.close()


def before(event_id: str) -> str:
    """The id of the event logged just before ``event_id``."""
    boot, _, seq = event_id.rpartition("-")
    return f"{boot}-{int(seq) - 1}"


async def _collect(live: LiveSession, last_id: str | None, until: str = "done") -> list[Event]:
    events: list[Event] = []
    async with asyncio.timeout(PATIENCE):
        async for event in live.subscribe(last_id):
            events.append(event)
            if event.kind == until:
                break
    return events


def collect(live: LiveSession, last_id: str | None, until: str = "done") -> list[Event]:
    """The events after ``last_id`` up to the first ``until`` (through :meth:`subscribe`)."""
    return asyncio.run(_collect(live, last_id, until))


def turn(live: LiveSession, text: str) -> list[Event]:
    """Send ``text`` and return the turn's events, ``turn_started`` to ``done``."""
    return collect(live, before(live.start_turn(text)))


def wait_for(live: LiveSession, kind: str, after: str | None) -> Event:
    """The first event of ``kind`` after ``after``."""
    return collect(live, after, until=kind)[-1]


def kinds(events: list[Event]) -> list[str]:
    return [event.kind for event in events]


def note_call(text: str = "hello") -> Reply:
    return Reply(tool_calls=[ToolCall("note", {"path": "n.txt", "text": text})])


# ---------------------------------------------------------------------- turns and the log


def test_a_turns_events_come_in_order_and_end_with_done(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="Hello there, world"))
    live = hub.open(None, workspace)
    events = turn(live, "hi")
    assert kinds(events)[:2] == ["turn_started", "user"]
    assert events[0].data == {"turn": 1, "client": "", "kind": "message", "session": live.id}
    assert events[1].data == {"text": "hi"}
    assert "".join(str(e.data["delta"]) for e in events if e.kind == "text") == \
        "Hello there, world"
    assert kinds(events)[-3:] == ["usage", "status", "done"]
    done = events[-1].data
    assert done["stop_reason"] == "end_turn" and done["provider"] == "openai"
    assert "error_line" not in done
    seqs = [int(e.id.rpartition("-")[2]) for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert all(e.id.startswith(hub.boot + "-") for e in events)
    assert not live.running
    frame = events[1].sse().decode()
    assert frame == f'id: {events[1].id}\nevent: user\ndata: {{"text":"hi"}}\n\n'


def test_two_subscribers_see_the_same_events_with_the_same_ids(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="one two three four five"))
    live = hub.open(None, workspace)

    async def both() -> tuple[list[Event], list[Event]]:
        first = asyncio.create_task(_collect(live, None))
        second = asyncio.create_task(_collect(live, None))
        while live.subscribers < 2:
            await asyncio.sleep(0)
        live.start_turn("count", client="a")
        return await first, await second

    first, second = asyncio.run(both())
    assert [e.id for e in first] == [e.id for e in second]
    assert [e.data for e in first] == [e.data for e in second]
    assert first[-1].kind == "done"
    assert first[0].data["client"] == "a"


def test_batches_hold_every_event_once_in_order_and_join_what_was_waiting(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="abcdefghijkl", chunk_size=1))
    live = hub.open(None, workspace)
    events = turn(live, "hi")  # the turn is over: its events all wait in the log

    async def batches() -> list[list[Event]]:
        got: list[list[Event]] = []
        async with asyncio.timeout(PATIENCE):
            async for batch in live.subscribe_batches(before(events[0].id)):
                got.append(batch)
                if batch[-1].kind == "done":
                    break
        return got

    got = asyncio.run(batches())
    assert [e.id for batch in got for e in batch] == [e.id for e in events]
    assert len(got) < len(events)  # what was waiting came together, not one by one


def test_a_reconnect_replays_after_its_last_event_id(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="abcdefgh", chunk_size=2))
    live = hub.open(None, workspace)
    events = turn(live, "hi")
    middle = events[3]
    replayed, reset = live.events_after(middle.id)
    assert not reset
    assert [e.id for e in replayed] == [e.id for e in events[4:]]
    assert [e.id for e in collect(live, middle.id)] == [e.id for e in events[4:]]
    everything, reset = live.events_after(None)
    assert not reset and [e.id for e in everything] == [e.id for e in events]


def test_an_id_of_another_boot_or_too_old_gets_a_reset_with_the_snapshot(
        openai_server: OpenAIServer, workspace: Path) -> None:
    small = make_hub(openai_server, replay_events=5)
    try:
        openai_server.script(Reply(text="the answer is 42"))
        live = small.open(None, workspace)
        events = turn(live, "question")
        assert live.events_after("0abc-3")[1]
        assert live.events_after("garbage")[1]
        assert live.events_after(events[0].id)[1]  # older than the 5 kept
        assert not live.events_after(events[-2].id)[1]
        got = collect(live, "0abc-3", until="reset")
        assert kinds(got) == ["reset"]
        snapshot: Any = got[0].data["snapshot"]
        assert snapshot["id"] == live.id and snapshot["running"] is False
        assert [(m["role"], m["text"]) for m in snapshot["messages"]] == [
            ("user", "question"), ("assistant", "the answer is 42")]
        assert snapshot["last_event"] == events[-1].id == got[0].id
        assert snapshot["workspace"] == str(workspace.resolve())
    finally:
        small.close()


def test_a_slow_subscriber_is_dropped_and_the_turn_goes_on(
        hub: Hub, openai_server: OpenAIServer, workspace: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "QUEUE_SIZE", 3)
    openai_server.script(Reply(text="x" * 40, chunk_size=1))
    live = hub.open(None, workspace)

    async def lagging() -> list[Event]:
        stream = live.subscribe(None)
        first = asyncio.create_task(anext(stream))
        while live.subscribers < 1:
            await asyncio.sleep(0)
        started = live.start_turn("go")
        got = [await first]
        while live.running or live.events_after(started)[0][-1].kind != "done":
            await asyncio.sleep(0.01)  # the events pile up on this loop, unread
        got += [event async for event in stream]
        return got

    got = asyncio.run(lagging())
    assert len(got) <= 1 + 3  # what fitted in its queue; then it was closed
    assert live.events_after(None)[0][-1].kind == "done"


# ---------------------------------------------------------------------- one turn at a time


def test_a_second_turn_or_command_while_one_runs_is_refused(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(note_call(), Reply(text="done"))
    live = hub.open(None, workspace)
    started = live.start_turn("write it")
    approval = wait_for(live, "approval", before(started))
    with pytest.raises(TurnBusy) as busy:
        live.start_turn("another")
    assert "already running" in str(busy.value)
    with pytest.raises(TurnBusy):
        live.run_command("/cost")
    live.answer(str(approval.data["qid"]), allow=True)
    assert collect(live, approval.id)[-1].data["stop_reason"] == "end_turn"
    openai_server.script(Reply(text="next"))
    assert turn(live, "again")[-1].kind == "done"


# ---------------------------------------------------------------------- approvals


def test_an_approval_allowed_from_another_thread_runs_the_tool(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(note_call("hello"), Reply(text="written"))
    live = hub.open(None, workspace)
    started = live.start_turn("write it")
    approval = wait_for(live, "approval", before(started))
    data = approval.data
    assert data["tool"] == "note" and data["risk"] == "write"
    assert data["args"] == {"path": "n.txt", "text": "hello"}
    assert "+hello" in str(data["preview"])
    assert data["options"] == ["once", "session", "no"]
    questions: Any = live.snapshot()["questions"]
    assert questions[0]["qid"] == data["qid"]
    answering = threading.Thread(
        target=lambda: live.answer(str(data["qid"]), allow=True, by="alice"))
    answering.start()
    answering.join()
    rest = collect(live, approval.id)
    assert rest[0].kind == "answered"
    assert rest[0].data == {"qid": data["qid"], "by": "alice", "allow": True, "scope": "once"}
    finished = next(e for e in rest if e.kind == "tool_finished")
    assert finished.data["is_error"] is False and finished.data["content"] == "wrote n.txt"
    assert (finished.data["added"], finished.data["removed"]) == (1, 0)
    assert (workspace / "n.txt").read_text() == "hello"
    with pytest.raises(QuestionClosed):  # the first answer won
        live.answer(str(data["qid"]), allow=False, by="bob")
    assert not live.snapshot()["questions"]


def test_a_denied_approval_refuses_the_call_with_the_reason(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(note_call(), Reply(text="ok, not writing"))
    live = hub.open(None, workspace)
    started = live.start_turn("write it")
    approval = wait_for(live, "approval", before(started))
    live.answer(str(approval.data["qid"]), allow=False, reason="not today", by="bob")
    rest = collect(live, approval.id)
    assert rest[0].data == {"qid": approval.data["qid"], "by": "bob", "allow": False}
    finished = next(e for e in rest if e.kind == "tool_finished")
    assert finished.data["is_error"] is True
    assert "denied by the user: not today" in str(finished.data["content"])
    assert not (workspace / "n.txt").exists()
    assert "not today" in str(openai_server.requests[-1].json)


def test_a_session_wide_yes_answers_the_next_question_of_that_risk(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(note_call("one"), note_call("two"), Reply(text="both"))
    live = hub.open(None, workspace)
    started = live.start_turn("write twice")
    approval = wait_for(live, "approval", before(started))
    live.answer(str(approval.data["qid"]), allow=True, scope="session")
    rest = collect(live, approval.id)
    assert kinds(rest).count("approval") == 0
    assert [e.data["is_error"] for e in rest if e.kind == "tool_finished"] == [False, False]
    second = [e for e in rest if e.kind == "tool_started"][-1]
    assert "+two" in str(second.data["preview"])  # auto-allowed: the tool's own preview


def test_an_unanswered_approval_is_denied_after_the_timeout(
        openai_server: OpenAIServer, workspace: Path) -> None:
    quick = make_hub(openai_server, approval_timeout=0.2)
    try:
        openai_server.script(note_call(), Reply(text="ok"))
        live = quick.open(None, workspace)
        events = turn(live, "write it")
        answered = next(e for e in events if e.kind == "answered")
        assert answered.data["by"] == "timeout" and answered.data["allow"] is False
        finished = next(e for e in events if e.kind == "tool_finished")
        assert "nobody answered within 0.2 s" in str(finished.data["content"])
    finally:
        quick.close()


# ---------------------------------------------------------------------- cancel


def test_cancel_denies_a_waiting_approval_and_stops_the_turn(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(note_call(), Reply(text="never asked"))
    live = hub.open(None, workspace)
    started = live.start_turn("write it")
    approval = wait_for(live, "approval", before(started))
    live.cancel()
    rest = collect(live, approval.id)
    assert rest[0].data == {"qid": approval.data["qid"], "by": "cancel", "allow": False}
    assert rest[-1].data["stop_reason"] == "interrupted"
    assert not (workspace / "n.txt").exists()
    with pytest.raises(QuestionClosed):
        live.answer(str(approval.data["qid"]), allow=True)


def test_cancel_stops_a_stalled_model_call(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Fault(stall=PATIENCE * 2))
    live = hub.open(None, workspace)
    started = live.start_turn("hang")
    wait_for(live, "user", before(started))
    live.cancel()
    assert collect(live, started)[-1].data["stop_reason"] == "interrupted"
    assert not live.running


# ---------------------------------------------------------------------- slash commands


def test_cost_runs_server_side_and_its_console_is_output(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="hi", usage={"input_tokens": 1200, "output_tokens": 30}))
    live = hub.open(None, workspace)
    turn(live, "hello")
    events = collect(live, before(live.run_command("/cost", width=120, client="c")))
    assert events[0].data == {"turn": 2, "client": "c", "kind": "command", "session": live.id}
    output = "".join(str(e.data["text"]) for e in events if e.kind == "output")
    assert "1,200" in output and "\x1b[" not in output
    assert events[-1].kind == "done" and "error_line" not in events[-1].data


def test_an_unknown_command_says_so_and_ends_with_an_error_line(
        hub: Hub, workspace: Path) -> None:
    live = hub.open(None, workspace)
    events = collect(live, before(live.run_command("/cots")))
    output = "".join(str(e.data["text"]) for e in events if e.kind == "output")
    assert "unknown command /cots — did you mean /cost?" in output
    assert events[-1].data["error_line"] == "unknown command /cots"


def test_a_commands_menu_is_a_question_any_client_answers(hub: Hub, workspace: Path) -> None:
    live = hub.open(None, workspace)
    started = live.run_command("/choose")
    question = wait_for(live, "question", before(started))
    assert question.data["title"] == "Which colour?"
    assert question.data["options"] == ["red", "green", "blue"]
    with pytest.raises(QuestionClosed):
        live.answer(str(question.data["qid"]), allow=True)  # a menu, not an approval
    live.choose(str(question.data["qid"]), 2, by="carol")
    rest = collect(live, question.id)
    assert rest[0].data == {"qid": question.data["qid"], "by": "carol", "choice": 2}
    assert "picked 2" in "".join(str(e.data["text"]) for e in rest if e.kind == "output")
    with pytest.raises(QuestionClosed):
        live.choose(str(question.data["qid"]), 0)


def test_a_head_move_is_a_log_event_and_prefill_comes_along(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="first answer"), Reply(text="second answer"))
    live = hub.open(None, workspace)
    turn(live, "first")
    turn(live, "second")
    events = collect(live, before(live.run_command("/head")))
    log = next(e for e in events if e.kind == "log")
    first = live.session.conversation.messages()[0]
    assert log.data == {"head": first.id, "reason": "rewind"}
    assert next(e for e in events if e.kind == "prefill").data == {"text": "first"}


# ---------------------------------------------------------------------- progress


def test_progress_items_follow_each_tool_call(
        openai_server: OpenAIServer, workspace: Path) -> None:
    busy = make_hub(openai_server, Progress())
    try:
        openai_server.script(Reply(tool_calls=[ToolCall("look", {})]), Reply(text="seen"))
        live = busy.open(None, workspace)
        events = turn(live, "look")
        at = kinds(events).index("tool_finished")
        assert events[at + 1].kind == "progress"
        assert events[at + 1].data == {"items": [
            {"id": "w1", "title": "explore: the config loader", "state": "running"}]}
    finally:
        busy.close()


def test_without_a_progress_plugin_no_progress_event(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(tool_calls=[ToolCall("look", {})]), Reply(text="seen"))
    live = hub.open(None, workspace)
    assert "progress" not in kinds(turn(live, "look"))


# ---------------------------------------------------------------------- the hub


def test_the_hub_keeps_live_sessions_and_closes_idle_ones(
        hub: Hub, workspace: Path) -> None:
    import time

    live = hub.open(None, workspace)
    assert hub.get(live.id) is live and hub.open(live.id, workspace) is live
    assert hub.reap() == []
    assert hub.reap(now=time.monotonic() + hub.idle_seconds + 1) == [live.id]
    assert hub.get(live.id) is None and live.closed


# ---------------------------------------------------------------------- what events carry


class Policy:
    """Asks about ``note`` as chatcli-subagents' workers do (the worker's label in the reason)
    with a rule an "always" answer saves; records the answers the engine got."""

    def __init__(self, reason: str, rule: str | None) -> None:
        self.reason, self.rule = reason, rule
        self.approvals: list[Any] = []

    @hookimpl
    def authorize_tool_call(self, call: Any, tool: Any, context: Any) -> Any:
        return Verdict(Decision.ASK, self.reason, self.rule) if tool.name == "note" else None

    @hookimpl
    def tool_call_decided(self, approval: Any) -> None:
        self.approvals.append(approval)


class Noisy:
    """``shout`` prints two lines of live output; ``flood`` returns 10,000 characters."""

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        def shout(args: Any, context: Any) -> str:
            context.output("line one")
            context.output("line two")
            return "shouted"

        empty = {"type": "object", "properties": {}}
        register(Tool(name="shout", description="shout", run=shout, parameters=empty))
        register(Tool(name="flood", description="flood", run=lambda a, c: "y" * 10_000,
                      parameters=empty))


def test_a_workers_question_keeps_its_label_and_always_reaches_the_policy(
        openai_server: OpenAIServer, workspace: Path) -> None:
    policy = Policy("w2 explore: writes a note", "note(n.txt)")
    asked = make_hub(openai_server, policy)
    try:
        openai_server.script(note_call(), Reply(text="ok"))
        live = asked.open(None, workspace)
        started = live.start_turn("write")
        approval = wait_for(live, "approval", before(started))
        assert approval.data["label"] == "w2 (explore)"
        assert approval.data["reason"] == "writes a note"
        assert approval.data["rule"] == "note(n.txt)"
        assert approval.data["options"] == ["once", "session", "always", "no"]
        live.answer(str(approval.data["qid"]), allow=True, scope="always")
        assert collect(live, approval.id)[-1].kind == "done"
        assert policy.approvals == [Approval(True, "always")]
    finally:
        asked.close()


def test_tool_output_names_its_call_and_results_are_cut(
        openai_server: OpenAIServer, workspace: Path) -> None:
    noisy = make_hub(openai_server, Noisy())
    try:
        openai_server.script(Reply(tool_calls=[ToolCall("shout", {}, id="c1")]),
                             Reply(tool_calls=[ToolCall("flood", {}, id="c2")]),
                             Reply(text="done"))
        live = noisy.open(None, workspace)
        events = turn(live, "go")
        assert [e.data for e in events if e.kind == "tool_output"] == [
            {"line": "line one", "call_id": "c1"}, {"line": "line two", "call_id": "c1"}]
        started = next(e for e in events if e.kind == "tool_started")
        assert started.data == {"call_id": "c1", "name": "shout", "args": {},
                                "activity": "running shout"}
        flood = [e for e in events if e.kind == "tool_finished"][-1]
        content = str(flood.data["content"])
        assert content.startswith("y" * 4_096) and content.endswith("(5,904 more characters)")
    finally:
        noisy.close()


def test_secrets_are_redacted_in_every_event(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    secret = "s3cr3t-hub-value-8472"
    register_secret(secret)
    openai_server.script(note_call(f"key {secret}"), Reply(text=f"the key is {secret}",
                                                          chunk_size=100))
    live = hub.open(None, workspace)
    started = live.start_turn(f"store {secret}")
    approval = wait_for(live, "approval", before(started))
    live.answer(str(approval.data["qid"]), allow=True)
    collect(live, approval.id)
    frames = b"".join(event.sse() for event in live.events_after(None)[0])
    assert secret.encode() not in frames and b"***" in frames
    assert secret not in json.dumps(live.snapshot())


def test_a_retry_is_an_event(hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Fault(status=500), Reply(text="fine"))
    live = hub.open(None, workspace)
    events = turn(live, "hi")
    retrying = next(e for e in events if e.kind == "retrying")
    assert retrying.data["reason"] == "server error"
    assert retrying.data["error_type"] == "ServerError" and retrying.data["attempt"] == 1
    assert float(str(retrying.data["delay"])) > 0
    assert events[-1].data["stop_reason"] == "end_turn"


def test_a_failed_turns_done_names_the_errors_kind(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Fault(status=404, message="The model `m` does not exist"))
    live = hub.open(None, workspace)
    done = turn(live, "hi")[-1]
    assert done.kind == "done" and done.data["stop_reason"] == "error"
    assert done.data["error_type"] == "ModelNotFoundError"  # a client exits 2, as a local run
    assert "does not exist" in str(done.data["error_line"])


# ---------------------------------------------------------------------- opening and closing


def test_a_stored_session_is_resumed_by_id_in_another_hub(
        openai_server: OpenAIServer, workspace: Path) -> None:
    first = make_hub(openai_server, sessions_plugin)
    try:
        openai_server.script(Reply(text="remembered"))
        live = first.open(None, workspace)
        turn(live, "remember this")
        session_id = live.id
    finally:
        first.close()
    second = make_hub(openai_server, sessions_plugin)
    try:
        again = second.open(session_id, workspace)
        assert again.id == session_id and second.get(session_id) is again
        messages: Any = again.snapshot()["messages"]
        assert [(m["role"], m["text"]) for m in messages] == [
            ("user", "remember this"), ("assistant", "remembered")]
        assert again.events_after(None) == ([], False)  # a new log: nothing to replay
        with pytest.raises(ChatcliError):
            second.open("s_no_such_session", workspace)
    finally:
        second.close()
        sessions_plugin.close_stores()


def test_closing_the_hub_denies_waiting_questions_and_ends_the_turn(
        openai_server: OpenAIServer, workspace: Path) -> None:
    closing = make_hub(openai_server)
    openai_server.script(note_call(), Reply(text="never"))
    live = closing.open(None, workspace)
    started = live.start_turn("write")
    approval = wait_for(live, "approval", before(started))

    async def watch() -> list[Event]:
        async def consume() -> list[Event]:
            return [event async for event in live.subscribe(approval.id)]

        async with asyncio.timeout(PATIENCE):
            watching = asyncio.create_task(consume())
            while live.subscribers < 1:
                await asyncio.sleep(0)
            await asyncio.to_thread(closing.close)
            return await watching  # the stream ends with the session

    got = asyncio.run(watch())
    assert got[0].data["by"] == "cancel" and got[-1].kind == "done"
    assert live.closed and closing.get(live.id) is None
    assert not (workspace / "n.txt").exists()
    with pytest.raises(ChatcliError):
        live.start_turn("more")


# ---------------------------------------------------------------------- the catalog helper


@dataclass(frozen=True)
class Summary:
    """Shaped as chatcli_plugin_records.SessionSummary."""

    id: str
    title: str
    project: str | None
    updated: float
    messages: int
    model: str | None
    provider: str | None


class FakeCatalog:
    """Two sessions, one under ``/work/a``; records deletions."""

    def __init__(self) -> None:
        self.sessions = {
            "s_a": Summary("s_a", "in a", "/work/a", 2.0, 4, "m", "openai"),
            "s_b": Summary("s_b", "in b", "/work/b", 1.0, 2, None, None),
        }

    def list(self, project: str | None, limit: int = 100) -> list[Summary]:
        return list(self.sessions.values())[:limit]

    def info(self, session_id: str) -> Summary | None:
        return self.sessions.get(session_id)

    def delete(self, session_id: str) -> bool:
        return self.sessions.pop(session_id, None) is not None

    def export(self, session_id: str, fmt: str) -> str:
        return f"{session_id} as {fmt}"


class CatalogPlugin:
    def __init__(self) -> None:
        self.catalog = FakeCatalog()

    @hookimpl(optionalhook=True)
    def session_catalog(self) -> FakeCatalog:
        return self.catalog


def test_the_catalog_helpers_go_through_the_hook_and_keep_to_the_root() -> None:
    host = PluginHost()
    assert not catalog.available(host)
    with pytest.raises(UsageError) as missing:
        catalog.list_sessions(host)
    assert "chatcli-sessions" in str(missing.value)
    assert host.register(CatalogPlugin(), "catalog")
    assert catalog.available(host)
    assert [s["id"] for s in catalog.list_sessions(host)] == ["s_a", "s_b"]
    assert [s["id"] for s in catalog.list_sessions(host, Path("/work/a"))] == ["s_a"]
    assert catalog.info(host, "s_b", Path("/work/a")) is None
    assert catalog.info(host, "s_b") == {
        "id": "s_b", "title": "in b", "project": "/work/b", "updated": 1.0, "messages": 2,
        "model": None, "provider": None}
    assert catalog.export(host, "s_a", "md") == "s_a as md"
    with pytest.raises(UsageError):
        catalog.export(host, "s_a", "pdf")
    assert catalog.delete(host, "s_a") and not catalog.delete(host, "s_a")


# ---------------------------------------------------------------------- the chat's own commands


def test_retry_answers_the_last_message_again_in_the_commands_stream(
        openai_server: OpenAIServer, workspace: Path) -> None:
    chat = make_hub(openai_server, repl_plugin)
    try:
        openai_server.script(Reply(text="first try"), Reply(text="second try"))
        live = chat.open(None, workspace)
        turn(live, "question")
        events = collect(live, before(live.run_command("/retry")))
        assert "".join(str(e.data["delta"]) for e in events if e.kind == "text") == \
            "second try"
        assert events[-1].data["stop_reason"] == "end_turn"
        messages: Any = live.snapshot()["messages"]
        assert [m["text"] for m in messages] == ["question", "second try"]
    finally:
        chat.close()


def test_a_fork_goes_on_under_the_new_id_after_a_reset(
        openai_server: OpenAIServer, workspace: Path) -> None:
    forking = make_hub(openai_server, sessions_plugin)
    try:
        openai_server.script(Reply(text="answer"))
        live = forking.open(None, workspace)
        old = live.id
        turn(live, "question")
        events = collect(live, before(live.run_command("/fork")))
        reset = next(e for e in events if e.kind == "reset")
        snapshot: Any = reset.data["snapshot"]
        assert snapshot["id"] == live.id != old
        assert [m["text"] for m in snapshot["messages"]] == ["question", "answer"]
        assert forking.get(live.id) is live and forking.get(old) is None
    finally:
        forking.close()
        sessions_plugin.close_stores()


def test_rewind_asks_through_a_question_and_logs_the_head_move(
        openai_server: OpenAIServer, workspace: Path) -> None:
    rewinding = make_hub(openai_server, sessions_plugin)
    try:
        openai_server.script(Reply(text="one"), Reply(text="two"))
        live = rewinding.open(None, workspace)
        turn(live, "first")
        turn(live, "second")
        started = live.run_command("/rewind")
        question = wait_for(live, "question", before(started))
        assert question.data["title"] == "Rewind to before which message?"
        options: Any = question.data["options"]
        assert [str(o).split("  ", 1)[1] for o in options] == ["second", "first"]
        live.choose(str(question.data["qid"]), 0, by="dave")
        rest = collect(live, question.id)
        log = next(e for e in rest if e.kind == "log")
        assert log.data["reason"] == "rewind"
        assert next(e for e in rest if e.kind == "prefill").data == {"text": "second"}
        assert "Rewound to before" in "".join(
            str(e.data["text"]) for e in rest if e.kind == "output")
        messages: Any = live.snapshot()["messages"]
        assert [m["text"] for m in messages] == ["first", "one"]
        undone = collect(live, before(live.run_command("/rewind undo")))
        assert next(e for e in undone if e.kind == "log").data["reason"] == "undo"
    finally:
        rewinding.close()
        sessions_plugin.close_stores()


def test_permissions_switches_the_mode_and_the_status_says_so(
        openai_server: OpenAIServer, workspace: Path) -> None:
    guarded = make_hub(openai_server, permissions_plugin)
    try:
        live = guarded.open(None, workspace)
        events = collect(live, before(live.run_command("/permissions plan")))
        assert "plan" in "".join(str(e.data["text"]) for e in events if e.kind == "output")
        status = next(e for e in events if e.kind == "status")
        items: Any = status.data["items"]
        assert any("plan" in str(item) for item in items)
    finally:
        guarded.close()


def state(event: Event) -> str:
    """The first item's state of a ``progress`` event ("" for other events)."""
    items: Any = event.data.get("items") or [{"state": ""}]
    return str(items[0]["state"])


class Board:
    """A worker board: ``wait_workers`` runs until the hub has looked at the board while the
    call runs, then the worker is done."""

    def __init__(self) -> None:
        self.state = "running"
        self.looked = threading.Event()

    @hookimpl(optionalhook=True)
    def progress_items(self, conversation: Any) -> list[Any]:
        if self.state == "running":
            self.looked.set()
        return [Item(id="w1", title="explore: the tests", state=self.state)]

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        def wait(args: Any, context: Any) -> str:
            assert self.looked.wait(PATIENCE)
            self.state = "done"
            return "the workers are done"

        register(Tool(name="wait_workers", description="wait", run=wait,
                      parameters={"type": "object", "properties": {}}))


def test_progress_changes_are_sent_while_a_tool_call_runs(
        openai_server: OpenAIServer, workspace: Path) -> None:
    watched = make_hub(openai_server, Board(), progress_every=0.02)
    try:
        openai_server.script(Reply(tool_calls=[ToolCall("wait_workers", {})]),
                             Reply(text="all done"))
        live = watched.open(None, workspace)
        events = turn(live, "delegate")
        shown = [(e.kind, state(e)) for e in events
                 if e.kind in ("tool_started", "tool_finished", "progress")]
        # "running" was sent while the call ran; "done" (seen by the watcher or after the
        # call) ends the list
        assert shown[:2] == [("tool_started", ""), ("progress", "running")]
        assert ("tool_finished", "") in shown and shown[-1] == ("progress", "done")
        assert [s for k, s in shown if k == "progress"] in (["running", "done"],
                                                             ["running", "done", "done"])
    finally:
        watched.close()


def test_a_coloured_console_sends_ansi_and_says_so(hub: Hub, workspace: Path) -> None:
    live = hub.open(None, workspace)
    events = collect(live, before(live.run_command("/cots", width=60, color=True)))
    output = next(e for e in events if e.kind == "output")
    assert output.data["ansi"] is True and "\x1b[" in str(output.data["text"])


def test_an_sse_frame_is_one_data_line_whatever_the_text_holds() -> None:
    event = make_event("b-7", "text", {"delta": "two\nlines\r\nand\u2028more\x85"})
    frame = event.sse().decode()
    assert frame.count("\n") == 4 and frame.endswith("\n\n")
    assert len(frame.splitlines()) == 4  # no character a line splitter breaks on
    lines = frame.split("\n")
    assert lines[:2] == ["id: b-7", "event: text"]
    assert json.loads(lines[2].removeprefix("data: ")) == {
        "delta": "two\nlines\r\nand\u2028more\x85"}


def test_subscribers_on_event_loops_of_their_own_threads_see_the_same_events(
        hub: Hub, openai_server: OpenAIServer, workspace: Path) -> None:
    openai_server.script(Reply(text="a fairly long answer, streamed two by two", chunk_size=2))
    live = hub.open(None, workspace)
    results: list[list[str]] = [[], [], []]

    def watch(index: int) -> None:
        results[index] = [e.id for e in asyncio.run(_collect(live, None))]

    threads = [threading.Thread(target=watch, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    while live.subscribers < 3:
        threading.Event().wait(0.01)
    live.start_turn("go")
    for thread in threads:
        thread.join(PATIENCE)
    assert results[0] and results[0] == results[1] == results[2]
    assert live.events_after(None)[0][-1].id == results[0][-1]
