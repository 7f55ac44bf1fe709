"""Servers' lives through real sessions: started on first need and side by side; a crash in the
middle of a call, a server that never answers ``initialize``, a tool list that changes, a call
stopped by the user or by its timeout, pagination, and everything shut down at the end."""

from __future__ import annotations

import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from chatcli import StopReason
from chatcli_testing import OpenAIServer, Reply, ToolCall
from mcp_support import HANG, Chat, demo, processes, system_text, tool_names, until


@pytest.fixture
def model() -> Any:
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def chats(model: Any, workspace: Path) -> Any:
    made: list[Chat] = []

    def make(mcp: dict[str, Any], **kwargs: Any) -> Chat:
        made.append(Chat(model, workspace, mcp, **kwargs))
        return made[-1]

    yield make
    for chat in made:
        chat.close()


def test_a_server_that_crashes_mid_call_is_an_error_then_comes_back(model: Any,
                                                                    chats: Any) -> None:
    chat = chats({"servers": {"demo": demo(allow=["*"])}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__crash")]),
                 Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "again"})]),
                 Reply(text="done"))
    finished = chat.turn("crash it")
    assert finished.error is None
    crashed, echoed = chat.results()
    assert crashed.is_error
    assert "stopped during the call to 'crash'" in crashed.content
    assert "restarts it" in crashed.content
    # one line for the person, naming the server and its log
    assert any("MCP server 'demo'" in line and "demo.log" in line for line in chat.warned)
    # the restart came quickly, so the next call waited for it and ran
    assert not echoed.is_error and echoed.content == "echo: again"
    connection = chat.manager.connections["demo"]
    assert connection.restarts == 1 and connection.state == "ready"


def test_a_server_that_never_answers_initialize_does_not_hold_up_the_others(
        model: Any, chats: Any) -> None:
    chat = chats({"max_restarts": 0, "servers": {
        "hang": {"command": sys.executable, "args": [str(HANG)], "init_timeout": 1},
        "demo": demo()}})
    model.script(Reply(tool_calls=[ToolCall("context_pull", {"kind": "mcp_tools",
                                                             "server": "hang"})]),
                 Reply(text="fine"))
    finished = chat.turn("hello")
    assert finished.error is None
    first = model.requests[0]
    prompt = system_text(first)
    assert "- demo (7):" in prompt and "hang (" not in prompt
    assert "MCP server 'hang' is not running" in prompt  # the volatile note
    line = next(w for w in chat.warned if "'hang'" in w)
    assert "did not finish the MCP handshake within 1 s (init_timeout)" in line
    assert "no MCP server 'hang'" in chat.results()[0].content
    assert chat.manager.connections["hang"].state == "failed"


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_changed_tool_list_reaches_the_next_model_call(model: Any, chats: Any,
                                                         protocol: str) -> None:
    chat = chats({"tool_mode": "full", "servers": {"demo": demo(allow=["*"],
                                                                protocol=protocol)}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__grow")]),
                 Reply(tool_calls=[ToolCall("mcp__demo__extra", {"word": "ab"})]),
                 Reply(text="done"))
    chat.turn("grow")
    assert "mcp__demo__extra" not in tool_names(model.requests[0])
    assert "mcp__demo__extra" in tool_names(model.requests[1])
    grown, extra = chat.results()
    assert grown.content == "grown" and extra.content == "abab"


def test_a_changed_tool_list_over_http(model: Any, chats: Any, http_server: str) -> None:
    chat = chats({"servers": {"demo": {"url": http_server, "allow": ["*"]}}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__grow")]), Reply(text="grown"),
                 Reply(text="listed"))
    chat.turn("grow")
    assert until(lambda: "mcp__demo__extra" in chat.manager.mcp_tools())
    chat.turn("and now?")
    assert "mcp__demo__extra" in system_text(model.requests[-1])


def test_the_user_stops_a_running_call(model: Any, chats: Any) -> None:
    chat = chats({"servers": {"demo": demo(allow=["*"])}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__slow", {"seconds": 60})]),
                 Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "still here"})]),
                 Reply(text="done"))
    cancel = threading.Event()
    chat.manager.start()
    threading.Timer(0.5, cancel.set).start()
    finished = chat.turn("wait", cancel=cancel)
    assert finished.stop_reason == StopReason.INTERRUPTED
    (stopped,) = chat.results()
    assert stopped.is_error and "interrupted" in stopped.content
    # the server is still there
    chat.turn("go on")
    assert chat.results()[0].content == "echo: still here"


def test_a_call_past_its_timeout(model: Any, chats: Any) -> None:
    chat = chats({"servers": {"demo": demo(allow=["*"], call_timeout=1)}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__slow", {"seconds": 60})]),
                 Reply(text="too slow"))
    chat.turn("wait")
    (result,) = chat.results()
    assert result.is_error and "did not answer 'slow' within 1 s" in result.content


def test_every_page_of_the_tool_list_is_read(model: Any, chats: Any) -> None:
    chat = chats({"tool_mode": "full", "servers": {"paged": demo("--pages", "2", allow=["*"])}})
    model.script(Reply(tool_calls=[ToolCall("mcp__paged__tool6")]), Reply(text="ok"))
    chat.turn("all of them")
    names = [n for n in tool_names(model.requests[0]) if n.startswith("mcp__")]
    assert names == [f"mcp__paged__tool{i}" for i in range(7)]
    assert chat.results()[0].content == "tool6 ran"


def test_servers_start_on_first_need_and_stop_at_the_end(model: Any, workspace: Path) -> None:
    tag = uuid.uuid4().hex
    chat = Chat(model, workspace, {"servers": {"one": demo("--tag", tag + "a"),
                                               "two": demo("--tag", tag + "b")}})
    try:
        assert not processes(tag)  # opening the session started nothing
        model.script(Reply(text="hi"))
        chat.turn("hello")
        assert len(processes(tag)) == 2
        assert {c.state for c in chat.manager.connections.values()} == {"ready"}
    finally:
        chat.close()
    assert until(lambda: not processes(tag))
    assert not chat.manager.loop.running
