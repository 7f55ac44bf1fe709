"""/system, /config set, /switch, /model and /provider change what the *next* turn uses: a turn
already running keeps its settings and provider, even in its later model calls, and the settings
object is replaced, never changed in place."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chatcli import PluginHost, SessionOptions, Settings
from chatcli_testing import Reply, ToolCall

from .note_plugin import note_tool_env
from .terminal import Terminal

PIRATE = "Always answer like a pirate."


def openai_env(server: Any) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}


def openai_system(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.json["messages"]
                     if m["role"] == "system")


def long_step_with_a_tool_call() -> Reply:
    """A first model call that streams for seconds, then calls the ``note`` tool, so the turn
    makes a second call after the commands were typed."""
    return Reply(text="step one " * 80, delay=0.05, chunk_size=9,
                 tool_calls=[ToolCall("note", {"text": "x"})])


def type_during_the_turn(term: Terminal, server: Any, *lines: str) -> None:
    term.type("first question")
    term.wait_for("step one step one")
    for line in lines:
        term.type(line)
    term.wait_for(f"queued: {lines[-1]}")
    assert len(server.requests) == 1  # all typed while the turn's first call still streamed


@pytest.mark.terminal
def test_system_config_and_model_wait_for_the_running_turn(
        start_chat: Callable[..., Terminal], openai_server: Any, tmp_path: Path) -> None:
    openai_server.script(long_step_with_a_tool_call(), Reply(text="turn one done"),
                         Reply(text="turn two done"), Reply(text="turn three done"))
    term = start_chat("--provider", "openai", "--allow", "write", **openai_env(openai_server),
                      **note_tool_env(tmp_path))
    type_during_the_turn(term, openai_server, f"/system {PIRATE}",
                         "/config set temperature 0.25", "/model gpt-other", "second question")
    term.wait_for("turn two done")
    first, after_tool, second = (r.json for r in openai_server.requests)
    # the running turn: its call after the tool kept the settings and model it started with
    assert after_tool["model"] == first["model"] != "gpt-other"
    assert PIRATE not in openai_system(openai_server.requests[1])
    assert after_tool.get("temperature") == first.get("temperature") is None
    # the next turn: all three changes
    assert second["model"] == "gpt-other"
    assert PIRATE in openai_system(openai_server.requests[2])
    assert second["temperature"] == 0.25
    term.type("/system -")
    term.wait_for("system prompt updated")
    term.type("third question")
    term.wait_for("turn three done")
    assert PIRATE not in openai_system(openai_server.requests[3])
    assert openai_server.requests[3].json["messages"][-1]["content"] == "third question"


@pytest.mark.terminal
def test_switch_and_provider_wait_for_the_running_turn(
        start_chat: Callable[..., Terminal], openai_server: Any, anthropic_server: Any,
        tmp_path: Path) -> None:
    openai_server.script(long_step_with_a_tool_call(), Reply(text="turn one done"),
                         Reply(text="back on openai"))
    anthropic_server.script(Reply(text="hello from anthropic"))
    term = start_chat("--provider", "openai", "--allow", "write", **openai_env(openai_server),
                      **note_tool_env(tmp_path), ANTHROPIC_API_KEY="test",
                      ANTHROPIC_BASE_URL=anthropic_server.url)
    type_during_the_turn(term, openai_server, "/switch anthropic", "second question")
    term.wait_for("hello from anthropic")
    assert len(openai_server.requests) == 2  # both calls of the running turn
    assert len(anthropic_server.requests) == 1
    assert "turn one done" in str(anthropic_server.requests[0].json["messages"])
    term.type("/provider openai")
    term.wait_for("now using openai/")
    term.type("third question")
    term.wait_for("back on openai")
    assert len(anthropic_server.requests) == 1
    assert openai_server.requests[2].json["messages"][-1]["content"] == "third question"


def test_commands_replace_the_settings_instead_of_changing_them(
        chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The settings object the chat started with is also what plugins were configured with:
    # a command gives the session new settings and leaves that one alone.
    from chatcli_provider_openai import plugin as openai_plugin
    from chatcli_repl import plugin as repl_plugin
    from chatcli_repl.app import ReplApp
    from chatcli_repl.commands import dispatch
    from rich.console import Console

    monkeypatch.setenv("OPENAI_API_KEY", "test")
    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(repl_plugin, "repl")
    started = Settings(provider="openai")
    out = io.StringIO()
    app = ReplApp(host, started, Console(file=out, width=200), SessionOptions())
    with app.session.open():
        opened = app.settings
        dispatch(app, f"/system {PIRATE}")
        dispatch(app, "/config set temperature 0.25")
        dispatch(app, "/switch openai/gpt-other")
        assert "✗" not in out.getvalue()
        assert (app.settings.system, app.settings.temperature) == (PIRATE, 0.25)
        assert app.session.engine.settings is app.settings
        assert app.session.model == "gpt-other"
        assert (opened.system, opened.temperature) == (None, None)
        assert (started.system, started.temperature) == (None, None)
