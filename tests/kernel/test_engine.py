"""One turn of the engine with a scripted provider: text, tools, authorization, failures — also
tools and providers that leave by the wrong door (``sys.exit`` in a tool, an exception the
provider does not map)."""

from __future__ import annotations

import copy
import sys
import threading

from chatcli import (
    AuthError,
    Conversation,
    Decision,
    Engine,
    Message,
    PluginHost,
    PromptSection,
    ProviderError,
    RateLimitError,
    Retrying,
    Risk,
    Role,
    Settings,
    StopEvent,
    StopReason,
    TextDelta,
    Tool,
    ToolCallEvent,
    ToolCallPart,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
    UsageEvent,
    hookimpl,
)
from pydantic import BaseModel


class AddArgs(BaseModel):
    a: int
    b: int


class WriteArgs(BaseModel):
    path: str


class Scripted:
    """A provider that plays scripted event lists (or raises scripted errors)."""

    def __init__(self, *scripts):
        self.scripts = list(scripts)
        self.requests = []

    def stream(self, request):
        self.requests.append(copy.deepcopy(request))
        script = self.scripts.pop(0)
        if isinstance(script, Exception):
            raise script
        yield from script


class Tools:
    def __init__(self):
        self.written: list[str] = []

    def write(self, args, ctx):
        self.written.append(args.path)
        return "ok"

    @hookimpl
    def register_tools(self, register):
        register(Tool(name="add", description="Add two numbers.", args_model=AddArgs,
                      run=lambda args, ctx: str(args.a + args.b)))
        register(Tool(name="write", description="Write a file.", args_model=WriteArgs,
                      risk=Risk.WRITE, run=self.write))

        def explode(args, ctx):
            raise OSError("disk on fire\nmore detail")

        register(Tool(name="explode", description="Fails.", args_model=WriteArgs, run=explode))


def call(name: str, **arguments) -> ToolCallEvent:
    return ToolCallEvent(call=ToolCallPart(name=name, arguments=arguments))


def make(*scripts, approver=None, plugins=()):
    host = PluginHost(warn=lambda line: None)
    tools = Tools()
    host.register(tools, "tools")
    for i, plugin in enumerate(plugins):
        host.register(plugin, f"p{i}")
    provider = Scripted(*scripts)
    engine = Engine(host, Settings(), provider, "scripted", "m", approver=approver,
                    sleep=lambda d: None)
    return engine, provider, tools


def run(engine, conversation, text="hi"):
    return list(engine.run(conversation, Message.user(text)))


def test_text_turn_streams_and_records_usage() -> None:
    engine, provider, _ = make([TextDelta(text="Hel"), TextDelta(text="lo"),
                                UsageEvent(usage=Usage(input_tokens=3, output_tokens=2,
                                                       cache_read_tokens=1)),
                                StopEvent(model="m-2025")])
    conv = Conversation()
    events = run(engine, conv)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    done = events[-1]
    assert isinstance(done, TurnFinished) and done.text == "Hello"
    assert done.usage.cache_read_tokens == 1 and done.model == "m-2025"
    answer = conv.messages()[-1]
    assert answer.role == Role.ASSISTANT and answer.usage.input_tokens == 3
    assert provider.requests[0].ordered_system()[0].name == "chatcli"
    assert provider.requests[0].ordered_system()[-1].name == "date"  # volatile goes last
    assert {t.name for t in provider.requests[0].tools} == {"add", "write", "explode"}


def test_tool_loop_feeds_results_back() -> None:
    engine, provider, _ = make(
        [call("add", a=2, b=3), StopEvent(reason=StopReason.TOOL_USE)],
        [TextDelta(text="5"), StopEvent()],
    )
    conv = Conversation()
    events = run(engine, conv)
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished[0].result.content == "5" and not finished[0].result.is_error
    roles = [m.role for m in conv.messages()]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    second = provider.requests[1].messages
    assert second[-1].tool_results[0].call_id == second[-2].tool_calls[0].id


def test_bad_arguments_unknown_tools_and_crashes_become_error_results() -> None:
    garbage = ToolCallEvent(call=ToolCallPart(name="add", raw_arguments="{a: 2,"))
    engine, _, _ = make(
        [garbage, call("add", a="x", b=1), call("nope"), call("explode", path="p"), StopEvent()],
        [TextDelta(text="sorry"), StopEvent()],
    )
    conv = Conversation()
    results = [e.result for e in run(engine, conv) if isinstance(e, ToolFinished)]
    assert all(r.is_error for r in results)
    assert "not a JSON object" in results[0].content
    assert "invalid arguments" in results[1].content and "a:" in results[1].content
    assert "unknown tool 'nope'" in results[2].content and "add" in results[2].content
    assert results[3].content == "explode failed: OSError: disk on fire"


def test_write_tools_are_denied_without_someone_to_ask() -> None:
    engine, _, tools = make([call("write", path="a.txt"), StopEvent()],
                            [TextDelta(text="ok"), StopEvent()])
    results = [e.result for e in run(engine, Conversation()) if isinstance(e, ToolFinished)]
    assert results[0].is_error and "--allow" in results[0].content
    assert tools.written == []


def test_approver_and_policy_plugins_decide() -> None:
    asked = []
    engine, _, tools = make([call("write", path="a"), StopEvent()],
                            [TextDelta(text="ok"), StopEvent()],
                            approver=lambda c, t, v: asked.append(c.name) or True)
    run(engine, Conversation())
    assert asked == ["write"] and tools.written == ["a"]

    class DenyAll:
        @hookimpl
        def authorize_tool_call(self, call, tool):
            return Decision.DENY

    engine, _, tools = make([call("add", a=1, b=1), StopEvent()],
                            [TextDelta(text="ok"), StopEvent()], plugins=[DenyAll()])
    results = [e.result for e in run(engine, Conversation()) if isinstance(e, ToolFinished)]
    assert results[0].content == "denied by policy"


def test_interrupted_stream_keeps_partial_answer_marked() -> None:
    def slow():
        yield TextDelta(text="part")
        yield TextDelta(text="ial")
        yield StopEvent()

    engine, _, _ = make(slow())
    conv = Conversation()
    events = engine.run(conv, Message.user("hi"))
    assert next(events).text == "part"
    events.close()  # what a Ctrl+C in the renderer does
    last = conv.messages()[-1]
    assert last.role == Role.ASSISTANT and last.interrupted and last.text == "part"

    cancel = threading.Event()
    engine, _, _ = make(slow())
    conv = Conversation()
    seen = []
    for event in engine.run(conv, Message.user("hi"), cancel=cancel):
        seen.append(event)
        cancel.set()
    assert isinstance(seen[-1], TurnFinished) and seen[-1].stop_reason == StopReason.INTERRUPTED
    assert conv.messages()[-1].interrupted and conv.messages()[0].text == "hi"


def test_provider_errors_end_the_turn_keeping_the_prompt() -> None:
    engine, provider, _ = make(RateLimitError("busy", retry_after=0.1),
                               AuthError("bad key"))
    conv = Conversation()
    events = run(engine, conv, "keep me")
    assert isinstance(events[0], Retrying) and events[0].delay == 0.1
    done = events[-1]
    assert done.stop_reason == StopReason.ERROR and isinstance(done.error, AuthError)
    assert [m.text for m in conv.messages()] == ["keep me"]
    assert len(provider.requests) == 2


def test_turn_limit_stops_endless_tool_loops() -> None:
    scripts = [[call("add", a=i, b=1), StopEvent()] for i in range(3)]
    engine, _, _ = make(*scripts)
    engine.settings = Settings(max_turns=3)
    events = run(engine, Conversation())
    assert events[-1].stop_reason == StopReason.TURN_LIMIT


def test_the_same_calls_three_times_in_a_row_stop_the_turn() -> None:
    scripts = [[call("add", a=1, b=1), StopEvent()] for _ in range(5)]
    engine, provider, _ = make(*scripts)
    conv = Conversation()
    events = run(engine, conv)
    assert events[-1].stop_reason == StopReason.REPEATED_CALLS
    assert len(provider.requests) == 3
    ran = [e.result.content for e in events if isinstance(e, ToolFinished)]
    assert ran == ["2", "2"]  # the third identical batch was not run
    last = conv.messages()[-1].tool_results[0]
    assert last.is_error and "3 times in a row" in last.content


def test_independent_reads_of_one_step_run_side_by_side_and_keep_their_order() -> None:
    import time as _time

    started: list[float] = []

    def slow(args, ctx):
        started.append(_time.monotonic())
        _time.sleep(0.3)
        return f"read {args.path}"

    class Reads:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="look", description="x", args_model=WriteArgs, run=slow))

    engine, _, tools = make([call("look", path="a"), call("look", path="b"),
                             call("look", path="c"), call("write", path="w"),
                             call("look", path="d"), StopEvent()], [TextDelta(text="done")],
                            approver=lambda c, t, v: True, plugins=[Reads()])
    conv = Conversation()
    events = run(engine, conv)
    results = conv.messages()[2].tool_results
    assert [r.content for r in results] == ["read a", "read b", "read c", "ok", "read d"]
    assert max(started[:3]) - min(started[:3]) < 0.25  # the first three started together
    assert started[3] - started[2] >= 0.25  # the write ran alone, before "d"
    assert tools.written == ["w"]
    assert [type(e).__name__ for e in events[:6]].count("ToolStarted") == 3


def test_tool_results_share_a_budget_per_turn_and_keep_head_and_tail() -> None:
    def big(args, ctx):
        return "HEAD" + "x" * 50_000 + "TAIL"

    class Big:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="big", description="x", args_model=WriteArgs, run=big))

    engine, _, _ = make([call("big", path="1"), call("big", path="2"), StopEvent()],
                        [TextDelta(text="ok")], plugins=[Big()])
    engine.settings = Settings(tool_output_max=20_000, turn_tool_output_max=25_000)
    conv = Conversation()
    run(engine, conv)
    first, second = (r.content for r in conv.messages()[2].tool_results)
    assert len(first) <= 20_000 and first.startswith("HEAD") and first.endswith("TAIL")
    assert "characters cut" in first
    assert len(second) <= 5_000 and second.endswith("TAIL")  # what was left of the budget


def test_more_calls_than_allowed_in_one_answer_are_refused() -> None:
    calls = [call("add", a=i, b=0) for i in range(5)]
    engine, _, _ = make([*calls, StopEvent()], [TextDelta(text="ok")])
    engine.settings = Settings(max_calls_per_step=3)
    conv = Conversation()
    run(engine, conv)
    results = [r.content for r in conv.messages()[2].tool_results]
    assert results[:3] == ["0", "1", "2"]
    assert all("more than 3 tool calls" in r for r in results[3:])


def test_plugin_sections_are_ordered_stable_first() -> None:
    class Sections:
        @hookimpl
        def prompt_sections(self, model):
            return [PromptSection(name="memory", text="recalled", stable=False, order=1),
                    PromptSection(name="bootstrap", text="AGENTS.md", order=10)]

    engine, provider, _ = make([TextDelta(text="x"), StopEvent()], plugins=[Sections()])
    engine.settings = Settings(system="be terse")
    run(engine, Conversation())
    names = [s.name for s in provider.requests[0].ordered_system()]
    assert names == ["chatcli", "bootstrap", "user-system", "memory", "date"]


def test_a_checkpoint_is_taken_before_every_model_call() -> None:
    engine, _, _ = make([call("add", a=1, b=2), StopEvent()], [TextDelta(text="3"), StopEvent()])
    conv = Conversation()
    run(engine, conv, "sum please\nsecond line")
    first, second = conv.checkpoints
    assert first.label == "sum please" and first.head is None
    assert second.label == "sum please (step 2)"
    assert conv.log[second.head].role == Role.TOOL
    conv.rewind(first.id)
    assert conv.messages() == []


def test_tool_started_comes_only_for_a_call_that_will_run() -> None:
    engine, _, tools = make([call("write", path="a.txt"), StopEvent()], [TextDelta(text="ok")],
                            approver=lambda c, t, v: False)
    events = run(engine, Conversation())
    assert not any(isinstance(e, ToolStarted) for e in events)
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [f.result.content for f in finished] == ["denied by the user"]
    assert tools.written == []


def test_a_switch_during_a_turn_takes_effect_at_the_next_turn() -> None:
    second = Scripted([TextDelta(text="from the second provider"), StopEvent()])
    engine, first, _ = make([call("add", a=1, b=2), StopEvent()], [TextDelta(text="3")])

    def switch_now(args, ctx):  # another thread (a slash command) switching mid-turn
        engine.use(second, "second", "m2")
        engine.settings = Settings(max_tokens=7)
        return "switched"

    engine.host.register(type("Switcher", (), {"register_tools": hookimpl(
        lambda self, register: register(Tool(name="add", description="x", args_model=AddArgs,
                                             run=switch_now)))})(), "switcher")
    engine.host.unregister("tools")
    conv = Conversation()
    run(engine, conv)
    assert len(first.requests) == 2 and first.requests[1].max_tokens is None
    assert conv.messages()[-1].provider == "scripted"
    run(engine, conv, "again")
    assert second.requests[0].max_tokens == 7 and second.requests[0].model == "m2"
    assert conv.messages()[-1].provider == "second"


class NoArgs(BaseModel):
    pass


class ExitingTool:
    """A tool wrapping a script that calls ``sys.exit()`` (argparse does on bad input)."""

    @hookimpl
    def register_tools(self, register):
        register(Tool(name="cli", description="Runs a script.", args_model=NoArgs,
                      run=lambda args, ctx: sys.exit(2)))


class Provider:
    """Plays scripted event lists; an exception in a list is raised at that point."""

    def __init__(self, *scripts):
        self.scripts = list(scripts)

    def stream(self, request):
        script = self.scripts.pop(0)
        for item in script:
            if isinstance(item, BaseException):
                raise item
            yield item


def engine_with(provider, *plugins) -> Engine:
    host = PluginHost(warn=lambda line: None)
    for index, plugin in enumerate(plugins):
        host.register(plugin, f"p{index}")
    return Engine(host, Settings(), provider, "scripted", "m", sleep=lambda d: None)


def test_a_tool_calling_sys_exit_becomes_an_error_result() -> None:
    engine = engine_with(Provider(
        [ToolCallEvent(call=ToolCallPart(name="cli", arguments={})),
         StopEvent(reason=StopReason.TOOL_USE)],
        [TextDelta(text="it failed"), StopEvent()],
    ), ExitingTool())
    events = list(engine.run(Conversation(), Message.user("run it")))
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.is_error and "SystemExit" in result.content
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "it failed"


def test_an_unmapped_provider_exception_keeps_the_partial_answer() -> None:
    engine = engine_with(Provider([TextDelta(text="half"), KeyError("choices")]))
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("q")))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.stop_reason == StopReason.ERROR
    assert isinstance(finished.error, ProviderError)
    assert str(finished.error).startswith("the scripted provider failed: KeyError: 'choices'")
    kept = conversation.messages()
    assert [m.role for m in kept] == [Role.USER, Role.ASSISTANT]
    assert kept[-1].text == "half" and kept[-1].interrupted


class _Blocked:
    """A stream stuck inside the provider (a silent subprocess) until ``cancel()``."""

    def __init__(self, cancellable: bool) -> None:
        self.released = threading.Event()
        self.cancelled_from: list[str] = []
        self.sent = threading.Event()
        if cancellable:
            self.cancel = self._cancel

    def _cancel(self) -> None:
        self.cancelled_from.append(threading.current_thread().name)
        self.released.set()

    def __iter__(self):
        return self

    def __next__(self):
        if not self.sent.is_set():
            self.sent.set()
            return TextDelta(text="part")
        self.released.wait(30)
        raise StopIteration


class _BlockingProvider:
    def __init__(self, stream: _Blocked) -> None:
        self.stream_object = stream

    def stream(self, request):
        return self.stream_object


def test_an_interrupted_answer_calls_the_streams_cancel_from_the_engines_thread() -> None:
    blocked = _Blocked(cancellable=True)
    engine = Engine(PluginHost(warn=lambda line: None), Settings(), _BlockingProvider(blocked),
                    "blocking", "m", sleep=lambda d: None)
    cancel = threading.Event()
    conversation = Conversation()
    events = []
    for event in engine.run(conversation, Message.user("hi"), cancel=cancel):
        events.append(event)
        cancel.set()  # the user presses Ctrl+C after the first text; the stream is silent now
    assert events[-1].stop_reason == StopReason.INTERRUPTED
    assert blocked.cancelled_from == [threading.current_thread().name]
    assert conversation.messages()[-1].text == "part"


def test_a_stream_without_cancel_is_left_to_close_when_it_wakes() -> None:
    blocked = _Blocked(cancellable=False)
    engine = Engine(PluginHost(warn=lambda line: None), Settings(), _BlockingProvider(blocked),
                    "blocking", "m", sleep=lambda d: None)
    cancel = threading.Event()
    events = []
    for event in engine.run(Conversation(), Message.user("hi"), cancel=cancel):
        events.append(event)
        cancel.set()
    assert events[-1].stop_reason == StopReason.INTERRUPTED
    assert not blocked.released.is_set()
    blocked.released.set()
