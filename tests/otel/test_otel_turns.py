"""How turns become spans, in a real session (the OpenAI provider against the wire server, the
plugin registered on a fresh host) exporting to a real OTLP/HTTP receiver: several turns, tool
calls run side by side on worker threads, refused and unknown tools, a turn stopped by the turn
limit, a retry, a failed model call, a worker's conversation run on a thread of its own, and
content capture with its redaction (off by default: see test_otel_export).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli import ChatRequest, Conversation, Message, Risk, Tool, ToolContext, hookimpl
from chatcli_otel.plugin import OtelPlugin
from chatcli_testing import Fault, OpenAIServer, Reply, ToolCall
from otel_support import Receiver, Span, receiver
from pydantic import BaseModel
from session_harness import HarnessChat


class Path_(BaseModel):
    path: str = ""


class Task(BaseModel):
    task: str = ""


class Tools:
    """``look`` (read-only: calls of it run side by side), ``change`` (a write: refused when
    nobody can be asked) and ``delegate`` (runs a worker's conversation on a thread of its own,
    as chatcli-subagents does)."""

    def __init__(self) -> None:
        self.threads: set[str] = set()
        self.barrier = threading.Barrier(2, timeout=10)

    def look(self, args: Path_, context: ToolContext) -> str:
        self.threads.add(threading.current_thread().name)
        if args.path.startswith("together"):
            self.barrier.wait()  # the two calls run at the same time, or this fails
        return f"contents of {args.path}"

    def delegate(self, args: Task, context: ToolContext) -> str:
        assert context.engine is not None and context.conversation is not None
        child = Conversation(parent=context.conversation, title="w1: work")
        engine = context.engine.branch()
        answers: list[str] = []

        def work() -> None:
            for event in engine.run(child, Message.user(args.task)):
                answers.append(type(event).__name__)

        worker = threading.Thread(target=work, name="worker")
        worker.start()
        worker.join()
        return "worker done"

    def summarize(self, args: Task, context: ToolContext) -> str:
        """A model call of the tool's own (as memory's extraction makes): a side call."""
        assert context.engine is not None and context.conversation is not None
        request = ChatRequest(model="m", messages=[Message.user(args.task)], purpose="memory")
        list(context.engine.side_call(request, context.conversation))
        return "summarized"

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(Tool(name="summarize", description="summarize with a side call",
                      args_model=Task, run=self.summarize, risk=Risk.READ))
        register(Tool(name="look", description="look at a file", args_model=Path_,
                      run=self.look, risk=Risk.READ, subject="path"))
        register(Tool(name="change", description="change a file", args_model=Path_,
                      run=lambda args, context: "changed", risk=Risk.WRITE, subject="path"))
        register(Tool(name="delegate", description="hand a task to a worker", args_model=Task,
                      run=self.delegate, risk=Risk.READ, concurrent=False))


class Chat(HarnessChat):
    """A session with the plugin: closing it also waits for its telemetry to leave (what the
    plugin does when the process exits)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.otel = OtelPlugin()
        super().__init__(*args, plugins=[("otel", self.otel)], **kwargs)

    def close(self) -> None:
        super().close()
        self.otel.finish()


@pytest.fixture
def collector() -> Iterator[Receiver]:
    with receiver() as received:
        yield received


@pytest.fixture
def chat(user_home: Path, workspace: Path, collector: Receiver, monkeypatch: pytest.MonkeyPatch
         ) -> Iterator[Callable[..., HarnessChat]]:
    """A factory of sessions with the plugin exporting to ``collector``; closed at the end."""
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_HEADERS", "TRACEPARENT", "TRACESTATE", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)
    made: list[HarnessChat] = []
    servers: list[OpenAIServer] = []

    def make(*replies: Any, **settings: Any) -> HarnessChat:
        server = OpenAIServer().__enter__()
        servers.append(server)
        server.script(*replies)
        otel = {"endpoint": collector.url, **settings.pop("otel", {})}
        made.append(Chat(server, workspace, extra_plugins=[Tools()], otel=otel, **settings))
        return made[-1]

    yield make
    for session in made:
        session.close()
    for server in servers:
        server.__exit__(None, None, None)


def _named(spans: list[Span], name: str) -> list[Span]:
    return sorted((s for s in spans if s.name == name), key=lambda s: s.start)


def _children(spans: list[Span], parent: Span) -> list[Span]:
    return sorted((s for s in spans if s.parent_id == parent.span_id), key=lambda s: s.start)


def test_each_turn_is_a_trace_of_its_own_in_one_session(chat, collector):
    session = chat(Reply(text="one", usage={"input_tokens": 10, "output_tokens": 2}),
                   Reply(text="two", usage={"input_tokens": 20, "output_tokens": 3}))
    session.turn("first")
    session.turn("second")
    session_id = session.conversation.id
    session.close()
    spans = collector.spans()
    turns = _named(spans, "invoke_agent chatcli")
    assert len(turns) == 2
    assert turns[0].trace_id != turns[1].trace_id  # no TRACEPARENT: each turn a new trace
    assert {t.parent_id for t in turns} == {""}
    assert {t.attributes["session.id"] for t in turns} == {session_id}
    assert [(t.attributes["gen_ai.usage.input_tokens"], t.attributes["gen_ai.usage.output_tokens"])
            for t in turns] == [(10, 2), (20, 3)]
    for turn in turns:
        assert [c.name for c in _children(spans, turn)] == ["chat m"]


def test_tool_calls_on_worker_threads_land_under_their_turn(chat, collector):
    tools_step = Reply(tool_calls=[ToolCall("look", {"path": "together-a"}, id="call_a"),
                                   ToolCall("look", {"path": "together-b"}, id="call_b")])
    session = chat(tools_step, Reply(text="done"))
    session.turn("look at both")
    session.close()
    spans = collector.spans()
    (turn,) = _named(spans, "invoke_agent chatcli")
    assert [c.name for c in _children(spans, turn)] == [
        "chat m", "execute_tool look", "execute_tool look", "chat m"]
    looks = _named(spans, "execute_tool look")
    assert {s.attributes["gen_ai.tool.call.id"] for s in looks} == {"call_a", "call_b"}
    assert all(s.attributes["chatcli.tool.outcome"] == "ok" for s in looks)


def test_refused_and_unknown_tools_are_spans_with_errors(chat, collector):
    session = chat(Reply(tool_calls=[ToolCall("change", {"path": "x"}, id="call_w"),
                                     ToolCall("nosuch", {}, id="call_u")]),
                   Reply(text="could not"))
    session.turn("change x")
    session.close()
    spans = collector.spans()
    (change,) = _named(spans, "execute_tool change")
    assert change.attributes["chatcli.tool.decision"] == "denied"
    assert change.attributes["chatcli.tool.verdict"] == "ask"  # nobody could be asked
    assert change.attributes["chatcli.tool.risk"] == "write"
    assert change.attributes["chatcli.tool.outcome"] == "error"
    assert change.status == 2  # ERROR
    (unknown,) = _named(spans, "execute_tool nosuch")
    assert unknown.attributes["chatcli.tool.decision"] == "not_decided"
    assert unknown.attributes["error.type"] == "tool_error"
    (turn,) = _named(spans, "invoke_agent chatcli")
    assert {change.parent_id, unknown.parent_id} == {turn.span_id}


def test_a_turn_stopped_by_the_turn_limit_ends_at_its_last_event(chat, collector):
    session = chat(Reply(tool_calls=[ToolCall("look", {"path": "a"})]), max_turns=1)
    finished = session.turn("look", check=False)
    assert finished.stop_reason == "turn_limit"
    before_close = time.time_ns()
    session.close()
    spans = collector.spans()
    (turn,) = _named(spans, "invoke_agent chatcli")
    children = _children(spans, turn)
    assert [c.name for c in children] == ["chat m", "execute_tool look"]
    assert max(c.end for c in children) <= turn.end
    assert turn.end <= before_close  # its last event, not the session's end


def test_a_retry_is_a_turn_without_a_prompt(chat, collector):
    session = chat(Reply(text="first"), Reply(text="again"))
    session.turn("hello")
    session.app.retry()
    session.close()
    turns = _named(collector.spans(), "invoke_agent chatcli")
    assert [t.attributes.get("chatcli.turn.retry", False) for t in turns] == [False, True]


def test_a_failed_model_call_marks_its_span_and_its_turn(chat, collector):
    session = chat(Fault(status=400, message="bad request"))
    finished = session.turn("hello", check=False)
    assert finished.error is not None
    session.close()
    spans = collector.spans()
    (call,) = _named(spans, "chat m")
    (turn,) = _named(spans, "invoke_agent chatcli")
    assert call.status == turn.status == 2
    assert call.attributes["error.type"] == turn.attributes["error.type"] == type(
        finished.error).__name__


def test_a_workers_turn_runs_under_the_tool_call_that_started_it(chat, collector):
    session = chat(Reply(tool_calls=[ToolCall("delegate", {"task": "sum it up"})]),
                   Reply(text="worker's answer"),
                   Reply(text="all done"))
    session.turn("delegate it")
    session.close()
    spans = collector.spans()
    turns = _named(spans, "invoke_agent chatcli")
    assert len(turns) == 2
    main, worker = turns
    (delegate,) = _named(spans, "execute_tool delegate")
    assert delegate.parent_id == main.span_id
    assert worker.parent_id == delegate.span_id
    assert worker.trace_id == main.trace_id
    assert [c.name for c in _children(spans, worker)] == ["chat m"]
    assert worker.attributes["session.id"] == main.attributes["session.id"]


def test_captured_content_is_redacted(chat, collector, monkeypatch):
    secret = "sk-proj-capturecanary0123456789abcdef"
    monkeypatch.setenv("SOME_API_KEY", secret)
    session = chat(Reply(tool_calls=[ToolCall("look", {"path": "notes"})]),
                   Reply(text=f"the key is {secret}"), otel={"capture_content": True})
    session.turn(f"look at notes, my key is {secret}")
    session.close()
    spans = collector.spans()
    (turn,) = _named(spans, "invoke_agent chatcli")
    assert "look at notes, my key is ***" in turn.attributes["gen_ai.input.messages"]
    answer = _named(spans, "chat m")[-1]
    assert "the key is ***" in answer.attributes["gen_ai.output.messages"]
    (look,) = _named(spans, "execute_tool look")
    assert look.attributes["gen_ai.tool.call.arguments"] == '{"path": "notes"}'
    assert look.attributes["gen_ai.tool.call.result"] == "contents of notes"
    received = b"".join(r.SerializeToString() for r in collector.traces)
    assert secret.encode() not in received


@pytest.mark.parametrize(("traceparent", "parent"), [
    ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "b7ad6b7169203331"),
    ("00-not-a-trace-context", ""),  # malformed: ignored, each turn a trace of its own
])
def test_traceparent_from_the_environment(chat, collector, monkeypatch, traceparent, parent):
    monkeypatch.setenv("TRACEPARENT", traceparent)
    session = chat(Reply(text="hi"))
    session.turn("hello")
    session.close()
    (turn,) = _named(collector.spans(), "invoke_agent chatcli")
    assert turn.parent_id == parent
    if parent:
        assert turn.trace_id == "0af7651916cd43dd8448eb211c80319c"


def test_a_side_call_counts_in_the_metrics_without_a_span(chat, collector):
    session = chat(Reply(tool_calls=[ToolCall("summarize", {"task": "the notes"})]),
                   Reply(text="summary", usage={"input_tokens": 300, "output_tokens": 40}),
                   Reply(text="done"))
    session.turn("summarize")
    session.close()
    spans = collector.spans()
    assert len(_named(spans, "chat m")) == 2  # the turn's two calls only
    tokens = collector.data_points("gen_ai.client.token.usage")
    memory = {a["gen_ai.token.type"]: p.sum for a, p in tokens
              if a["chatcli.purpose"] == "memory"}
    assert memory == {"input": 300, "output": 40}


def test_an_sdk_that_cannot_start_costs_one_warning_and_nothing_else(chat, collector,
                                                                     monkeypatch):
    import chatcli_otel.setup

    def broken(self: object, *args: object) -> None:
        raise RuntimeError("no exporter today")

    monkeypatch.setattr(chatcli_otel.setup.Telemetry, "__init__", broken)
    session = chat(Reply(text="still here"), Reply(text="and here"))
    assert session.turn("hello").text == "still here"
    session.set_conversation(Conversation())  # another session_start: not tried again
    assert session.turn("again").text == "and here"
    session.close()
    assert session.warned == [
        "otel: telemetry is off for this run: could not start OpenTelemetry (RuntimeError)"]
    assert collector.paths == []


def test_a_new_conversation_in_the_chat_goes_on_exporting(chat, collector):
    session = chat(Reply(text="one"), Reply(text="two"))
    session.turn("first")
    first = session.conversation.id
    session.set_conversation(Conversation())  # /session new: session_end, then session_start
    session.turn("second")
    second = session.conversation.id
    session.close()
    turns = _named(collector.spans(), "invoke_agent chatcli")
    assert [t.attributes["session.id"] for t in turns] == [first, second]
