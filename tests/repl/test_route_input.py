"""chatcli-repl's ``route_input`` hook: a sent line that is not a ``/command`` may be rerouted
by a plugin — to a command (chatcli-personas: ``@name task`` → ``/delegate name task``) or to
other text; a plugin that fails leaves the line as typed."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from chatcli import PluginHost, SessionOptions, Settings, SlashCommand, hookimpl


class Router:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.ran: list[str] = []

    @hookimpl(optionalhook=True)
    def route_input(self, app: Any, text: str) -> str | None:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer(text)

    @hookimpl
    def register_slash_commands(self, register: Any) -> None:
        register(SlashCommand(name="delegate", run=lambda app, arg: self.ran.append(arg),
                              help="x"))


def _app(answer: Any, chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    from chatcli_provider_openai import plugin as openai_plugin
    from chatcli_repl import plugin as repl_plugin
    from chatcli_repl.app import ReplApp
    from rich.console import Console

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(repl_plugin, "repl")
    router = Router(answer)
    host.register(router, "router")
    app = ReplApp(host, Settings(provider="openai"), Console(file=io.StringIO(), width=200),
                  SessionOptions())
    return app, router


def test_a_line_routed_to_a_command_runs_that_command(
        chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatcli_repl.loop import _handle

    sent: list[Any] = []
    app, router = _app(lambda text: "/delegate reviewer " + text[10:] if text.startswith(
        "@reviewer ") else None, chatcli_home, monkeypatch)
    monkeypatch.setattr("chatcli_repl.loop.run_turn", lambda app, message: sent.append(message))
    with app.session.open():
        _handle(app, ("text", "@reviewer check the diff"))
        _handle(app, ("text", "plain question"))
    assert router.ran == ["reviewer check the diff"]
    assert [m.text for m in sent] == ["plain question"]  # not routed: sent as typed


def test_a_failing_router_leaves_the_line_as_typed(
        chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatcli_repl.loop import _handle

    sent: list[Any] = []
    app, router = _app(RuntimeError("router broke"), chatcli_home, monkeypatch)
    monkeypatch.setattr("chatcli_repl.loop.run_turn", lambda app, message: sent.append(message))
    with app.session.open():
        _handle(app, ("text", "@reviewer check the diff"))
    assert [m.text for m in sent] == ["@reviewer check the diff"] and router.ran == []
