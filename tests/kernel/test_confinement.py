"""What an authorized call may reach: the policy's :class:`chatcli.Confinement` reaches the tool
through ``ToolContext.confinement`` — for a call run alone, for read-only calls run side by side
(each keeps its own), and after a person's yes; defaults when no policy says."""

from __future__ import annotations

from chatcli import (
    Confinement,
    Conversation,
    Decision,
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
    Verdict,
    hookimpl,
)
from pydantic import BaseModel


class PathArgs(BaseModel):
    path: str


class Recorder:
    """Tools that write down the confinement they ran with, by path."""

    def __init__(self) -> None:
        self.seen: dict[str, Confinement] = {}

    def record(self, args: PathArgs, context) -> str:
        self.seen[args.path] = context.confinement
        return "ok"

    @hookimpl
    def register_tools(self, register):
        register(Tool(name="look", description="Read.", args_model=PathArgs, run=self.record))
        register(Tool(name="change", description="Write.", args_model=PathArgs,
                      risk=Risk.WRITE, run=self.record, confined=True))


class Policy:
    """Hides a path named after the call; asks for writes."""

    @hookimpl
    def authorize_tool_call(self, call, tool):
        path = call.arguments["path"]
        confinement = Confinement(writable=tool.name == "change",
                                  hidden=(f"/hidden/{path}",))
        decision = Decision.ASK if tool.risk == Risk.WRITE else Decision.ALLOW
        return Verdict(decision, "why", None, confinement)


class Scripted:
    def __init__(self, *scripts):
        self.scripts = list(scripts)

    def stream(self, request):
        yield from self.scripts.pop(0)


def calls(*pairs: tuple[str, str]) -> list:
    return [ToolCallEvent(call=ToolCallPart(name=name, arguments={"path": path}))
            for name, path in pairs] + [StopEvent()]


def run(*plugins, approver=None) -> Recorder:
    host = PluginHost(warn=lambda line: None)
    recorder = Recorder()
    host.register(recorder, "recorder")
    for index, plugin in enumerate(plugins):
        host.register(plugin, f"p{index}")
    provider = Scripted(calls(("look", "a"), ("look", "b"), ("change", "c"), ("look", "d")),
                        [TextDelta(text="done"), StopEvent()])
    engine = Engine(host, Settings(), provider, "scripted", "m", approver=approver,
                    sleep=lambda d: None)
    list(engine.run(Conversation(), Message.user("go")))
    return recorder


def test_each_call_runs_with_the_confinement_its_verdict_granted() -> None:
    seen = run(Policy(), approver=lambda call, tool, verdict: True).seen
    assert seen["a"] == Confinement(writable=False, hidden=("/hidden/a",))
    assert seen["b"] == Confinement(writable=False, hidden=("/hidden/b",))  # same batch as a
    assert seen["c"] == Confinement(writable=True, hidden=("/hidden/c",))  # asked, then yes
    assert seen["d"] == Confinement(writable=False, hidden=("/hidden/d",))


def test_without_a_policy_a_call_gets_the_defaults() -> None:
    seen = run(approver=lambda call, tool, verdict: True).seen
    assert set(seen) == {"a", "b", "c", "d"}
    assert all(value == Confinement() for value in seen.values())
    assert Confinement() == Confinement(writable=True, protected_writable=False, hidden=())


def test_confined_reaches_the_spec_the_policy_sees() -> None:
    recorder = Recorder()
    specs = {}
    recorder.register_tools(lambda tool: specs.setdefault(tool.name, tool.spec()))
    assert specs["change"].confined and not specs["look"].confined
