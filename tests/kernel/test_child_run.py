"""The contract of a child run (issue 19): ``Engine.branch`` gives a child engine that never
offers a tool its parent does not, ``Conversation.parent`` links the child's log, tools see the
engine running them, ``Tool.concurrent`` calls run side by side, and an interrupted turn sets its
cancel event so work still running in the background stops."""

from __future__ import annotations

import threading
import time

from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Risk,
    Settings,
    StopEvent,
    TextDelta,
    Tool,
    ToolCallEvent,
    ToolCallPart,
    hookimpl,
)
from pydantic import BaseModel


class Scripted:
    """A provider that plays scripted event lists, keeping each request."""

    def __init__(self, *scripts):
        self.scripts = list(scripts)
        self.requests = []

    def stream(self, request):
        self.requests.append(request)
        yield from self.scripts.pop(0)


def call(name: str, **arguments) -> ToolCallEvent:
    return ToolCallEvent(call=ToolCallPart(name=name, arguments=arguments))


class NoArgs(BaseModel):
    pass


def _host(*tools: Tool) -> PluginHost:
    class Tools:
        @hookimpl
        def register_tools(self, register):
            for tool in tools:
                register(tool)

    host = PluginHost(warn=lambda line: None)
    host.register(Tools(), "tools")
    return host


def _tool(name: str, risk: Risk = Risk.READ, run=None, concurrent=None) -> Tool:
    return Tool(name=name, description=name, args_model=NoArgs, risk=risk,
                run=run or (lambda args, ctx: name), concurrent=concurrent)


def test_a_branch_never_offers_a_tool_its_parent_does_not() -> None:
    host = _host(_tool("read"), _tool("write", Risk.WRITE), _tool("shell", Risk.EXECUTE))
    parent = Engine(host, Settings(), Scripted(), "scripted", "m", tool_names={"read", "write"})
    assert set(parent.tools) == {"read", "write"}
    assert set(parent.branch().tools) == {"read", "write"}
    assert set(parent.branch(tool_names={"read", "shell"}).tools) == {"read"}
    unrestricted = Engine(host, Settings(), Scripted(), "scripted", "m")
    assert set(unrestricted.tools) == {"read", "write", "shell"}
    child = unrestricted.branch(tool_names={"shell"})
    assert set(child.tools) == {"shell"}
    # the child answers with the parent's provider and model, and asks the parent's approver
    assert child.current == unrestricted.current and child.host is host


def test_a_child_run_keeps_its_own_log_and_its_request_only_the_task() -> None:
    provider = Scripted([TextDelta(text="parent answer"), StopEvent()],
                        [TextDelta(text="child result"), StopEvent()])
    engine = Engine(_host(_tool("read")), Settings(), provider, "scripted", "m")
    root = Conversation()
    list(engine.run(root, Message.user("a long history the child must not see")))
    child_conversation = Conversation(parent=root, title="w1 explore")
    events = list(engine.branch().run(child_conversation, Message.user("the task")))
    assert events[-1].text == "child result"
    sent = provider.requests[-1].messages
    assert [m.text for m in sent] == ["the task"]
    assert child_conversation.parent is root
    assert [m.text for m in root.messages()] == ["a long history the child must not see",
                                                  "parent answer"]


def test_tools_see_the_engine_running_them() -> None:
    seen = []
    tool = _tool("look", run=lambda args, ctx: seen.append(ctx.engine) or "ok")
    provider = Scripted([call("look"), StopEvent()], [TextDelta(text="done"), StopEvent()])
    engine = Engine(_host(tool), Settings(), provider, "scripted", "m")
    list(engine.run(Conversation(), Message.user("go")))
    assert seen == [engine]


def test_concurrent_calls_run_side_by_side_even_when_they_change_things() -> None:
    started: list[float] = []

    def slow(args, ctx):
        started.append(time.monotonic())
        time.sleep(0.3)
        return "done"

    together = _tool("delegate", Risk.WRITE, run=slow, concurrent=True)
    alone = _tool("write", Risk.WRITE, run=slow)
    provider = Scripted([call("delegate"), call("delegate"), call("delegate"), StopEvent()],
                        [call("write"), call("write"), StopEvent()],
                        [TextDelta(text="ok"), StopEvent()])
    engine = Engine(_host(together, alone), Settings(), provider, "scripted", "m",
                    approver=lambda c, t, v: True)
    list(engine.run(Conversation(), Message.user("go")))
    assert max(started[:3]) - min(started[:3]) < 0.25  # all three delegations at once
    assert started[4] - started[3] >= 0.25  # a write without concurrent=True runs alone


def test_an_interrupted_turn_sets_its_cancel_so_background_work_stops() -> None:
    import os
    import signal

    stopped = threading.Event()
    running = threading.Event()

    def worker(args, ctx):
        running.set()
        while not ctx.cancelled:  # a child run polls its cancel
            time.sleep(0.01)
        stopped.set()
        return "stopped"

    def press_ctrl_c() -> None:  # the person presses Ctrl+C while the workers run
        if running.wait(5):
            time.sleep(0.1)
            os.kill(os.getpid(), signal.SIGINT)

    tool = _tool("delegate", run=worker, concurrent=True)
    provider = Scripted([call("delegate"), call("delegate"), StopEvent()])
    engine = Engine(_host(tool), Settings(), provider, "scripted", "m")
    cancel = threading.Event()
    threading.Thread(target=press_ctrl_c, daemon=True).start()
    events = list(engine.run(Conversation(), Message.user("go"), cancel))
    assert events[-1].stop_reason.value == "interrupted"
    assert cancel.is_set()
    assert stopped.wait(2)


def test_a_cancelled_turn_stops_waiting_for_tools_that_ignore_cancel() -> None:
    release = threading.Event()
    running = threading.Event()

    def stubborn(args, ctx):  # never looks at ctx.cancelled
        running.set()
        release.wait(10)
        return "late"

    tool = _tool("delegate", run=stubborn, concurrent=True)
    provider = Scripted([call("delegate"), call("delegate"), StopEvent()])
    engine = Engine(_host(tool), Settings(), provider, "scripted", "m")
    cancel = threading.Event()

    def stop_key() -> None:  # the chat's Ctrl+C only sets the turn's cancel event
        if running.wait(5):
            cancel.set()

    threading.Thread(target=stop_key, daemon=True).start()
    began = time.monotonic()
    events = list(engine.run(Conversation(), Message.user("go"), cancel))
    took = time.monotonic() - began
    release.set()
    assert events[-1].stop_reason.value == "interrupted"
    assert took < 5  # not the 10 s the tools would take
