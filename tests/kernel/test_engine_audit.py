"""Engine regressions from the one-shot audit: tools and providers that leave by the wrong door."""

from __future__ import annotations

import sys

from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    ProviderError,
    Role,
    Settings,
    StopEvent,
    StopReason,
    TextDelta,
    Tool,
    ToolCallEvent,
    ToolCallPart,
    ToolFinished,
    TurnFinished,
    hookimpl,
)
from pydantic import BaseModel


class NoArgs(BaseModel):
    pass


class ExitingTool:
    """A tool wrapping a script that calls ``sys.exit()`` (argparse does on bad input)."""

    @hookimpl
    def register_tools(self, register):
        register(Tool(name="cli", description="Runs a script.", args_model=NoArgs,
                      run=lambda args, ctx: sys.exit(2)))


class Provider:
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
