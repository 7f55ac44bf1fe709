"""Several replicas over one sessions store, in process: two hubs (two plugin hosts, as two
``chatcli serve`` processes would have) on chatcli-sessions' SQLite store. A hub reads a live
session again when the store's head moved; a message sent again under its id is answered once.
(tests/team runs the same with real processes behind nginx.)"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chatcli_provider_openai.plugin as openai_plugin
import chatcli_remote.plugin as remote_plugin
import chatcli_sessions.plugin as sessions_plugin
import pytest
from chatcli import PluginHost, ProviderSettings, Settings, UsageError
from chatcli_remote import catalog
from chatcli_remote.hub import Event, Hub, LiveSession, MessageSent, check_message_id
from chatcli_testing import Fault, OpenAIServer

PATIENCE = 30.0


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """No real key, setting or session leaks in; the store is the test home's."""


class HeadsTold:
    """The sessions catalog telling each session's stored head (``SessionSummary.head``), as
    chatcli-sessions' is to; ``asked`` counts the looks."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.asked = 0

    def info(self, session_id: str) -> Any:
        from chatcli_sessions.stores import get_store

        self.asked += 1
        summary = self.inner.info(session_id)
        if summary is None:
            return None
        stored = get_store().info(session_id)
        return dataclasses.replace(summary, head=stored.head if stored is not None else None)


def replica(server: OpenAIServer, heads: bool = True) -> Hub:
    """A hub with its own plugin host (sessions stored), reading heads through the catalog
    (``heads`` False: a catalog that does not tell them)."""
    host = PluginHost()
    assert host.register(openai_plugin, "openai")
    assert host.register(remote_plugin, "remote")
    assert host.register(sessions_plugin, "sessions")
    settings = Settings(provider="openai", model="m",
                        providers={"openai": ProviderSettings(base_url=server.url)})
    stored = catalog.catalog(host)
    return Hub(host, settings, catalog=HeadsTold(stored) if heads else _Untold(stored))


class _Untold:
    """A catalog whose summaries leave ``head`` unset (None), as one written before
    ``SessionSummary.head`` existed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def info(self, session_id: str) -> Any:
        summary = self.inner.info(session_id)
        return None if summary is None else dataclasses.replace(summary, head=None)


@pytest.fixture
def hubs(openai_server: OpenAIServer) -> Iterator[tuple[Hub, Hub]]:
    a, b = replica(openai_server), replica(openai_server)
    yield a, b
    a.close()
    b.close()


async def _until_done(live: LiveSession, last_id: str) -> list[Event]:
    events: list[Event] = []
    async with asyncio.timeout(PATIENCE):
        async for event in live.subscribe(last_id):
            events.append(event)
            if event.kind == "done":
                return events
    return events


def turn(live: LiveSession, text: str, message_id: str | None = None) -> list[Event]:
    """Send ``text`` and return the turn's events, ``turn_started`` to ``done``."""
    first = live.start_turn(text, message_id=message_id)
    boot, _, seq = first.rpartition("-")
    return asyncio.run(_until_done(live, f"{boot}-{int(seq) - 1}"))


def path(live: LiveSession) -> list[tuple[str, str]]:
    return [(str(m["role"]), str(m["text"])) for m in live.snapshot()["messages"]]  # type: ignore[union-attr]


def test_a_live_copy_another_replica_moved_on_is_read_again_before_a_turn(
        hubs: tuple[Hub, Hub], openai_server: OpenAIServer, workspace: Path) -> None:
    a, b = hubs
    openai_server.script("first answer", "second answer", "third answer")
    on_a = a.open(None, workspace)
    turn(on_a, "one")
    on_b = b.open(on_a.id, workspace)  # another replica continues the session
    turn(on_b, "two")
    assert on_a.reloads == 0
    events = turn(on_a, "three")  # a's copy is stale: it reads the session again first
    assert on_a.reloads == 1
    assert events[-1].data["stop_reason"] == "end_turn"
    assert path(on_a) == [("user", "one"), ("assistant", "first answer"),
                          ("user", "two"), ("assistant", "second answer"),
                          ("user", "three"), ("assistant", "third answer")]
    sent = openai_server.requests[-1].json["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][-3:] == ["one", "two", "three"]
    assert b.open(on_a.id, workspace).sync()  # and b reads a's turn before showing it
    assert path(on_b) == path(on_a)


def test_a_replica_that_is_up_to_date_does_not_read_again(
        hubs: tuple[Hub, Hub], openai_server: OpenAIServer, workspace: Path) -> None:
    a, _ = hubs
    live = a.open(None, workspace)
    turn(live, "one")
    turn(live, "two")
    assert not live.sync()
    assert live.reloads == 0


def test_without_heads_the_number_of_stored_messages_tells_a_moved_session(
        openai_server: OpenAIServer, workspace: Path) -> None:
    a, b = replica(openai_server, heads=False), replica(openai_server, heads=False)
    try:
        on_a = a.open(None, workspace)
        turn(on_a, "one")
        turn(on_a, "two")
        assert on_a.reloads == 0  # its own turns: the counts agree
        turn(b.open(on_a.id, workspace), "three")
        turn(on_a, "four")
        assert on_a.reloads == 1
        assert [text for role, text in path(on_a) if role == "user"] == \
            ["one", "two", "three", "four"]
    finally:
        a.close()
        b.close()


def test_watchers_get_a_reset_when_the_session_is_read_again(
        hubs: tuple[Hub, Hub], openai_server: OpenAIServer, workspace: Path) -> None:
    a, b = hubs
    on_a = a.open(None, workspace)
    turn(on_a, "one")
    turn(b.open(on_a.id, workspace), "two")
    last = on_a.events_after(None)[0][-1].id

    async def watch() -> Event:
        async with asyncio.timeout(PATIENCE):
            async for event in on_a.subscribe(last):
                return event
        raise AssertionError("no event")

    async def both() -> Event:
        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0)
        await asyncio.to_thread(on_a.sync)
        return await watcher

    reset = asyncio.run(both())
    assert reset.kind == "reset"
    assert [m["text"] for m in reset.data["snapshot"]["messages"]][-2:] == ["two", "ok"]


def test_a_message_sent_again_under_its_id_is_answered_once(
        hubs: tuple[Hub, Hub], openai_server: OpenAIServer, workspace: Path) -> None:
    a, b = hubs
    openai_server.script("first answer", Fault(status=400), "late answer")
    live = a.open(None, workspace)
    turn(live, "one", "m-0000000001")
    failed = turn(live, "two", "m-0000000002")  # the model failed: the message has no answer
    assert failed[-1].data["stop_reason"] == "error"
    again = turn(b.open(live.id, workspace), "two", "m-0000000002")  # another replica
    assert [e.data for e in again if e.kind == "user"] == [{"text": "two", "again": True}]
    assert again[-1].data["stop_reason"] == "end_turn"
    with pytest.raises(MessageSent, match="answered already"):
        live.start_turn("two", message_id="m-0000000002")
    assert live.reloads == 1  # it read b's answer before saying so
    assert path(live) == [("user", "one"), ("assistant", "first answer"),
                          ("user", "two"), ("assistant", "late answer")]
    assert not live.running


@pytest.mark.parametrize("value", ["short", "a" * 65, "with space!", 12345678, ""])
def test_a_message_id_must_be_8_to_64_safe_characters(value: object) -> None:
    with pytest.raises(UsageError, match="'id' must be"):
        check_message_id(value)
    assert check_message_id(None) is None
    assert check_message_id("0123456789abcdef") == "0123456789abcdef"
