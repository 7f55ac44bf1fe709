"""chatcli serve's SSE response (chatcli_remote.serve.sse.StreamResponse), driven as the ASGI
server drives it: every frame written in order, a client that stops reading let go after the
stall limit, a client that leaves ending the stream — the body's clean-up running each time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from chatcli_remote.serve.sse import StreamResponse
from sse_starlette.sse import SendTimeoutError

SCOPE = {"type": "http", "method": "GET", "path": "/api/sessions/s/events", "headers": []}


def _body(frames: list[bytes], closed: list[bool], then_wait: bool = False
          ) -> AsyncIterator[bytes]:
    async def events() -> AsyncIterator[bytes]:
        try:
            for frame in frames:
                yield frame
            if then_wait:
                await anyio.sleep_forever()
        finally:
            closed.append(True)

    return events()


async def _never_disconnects() -> dict[str, Any]:
    await anyio.sleep_forever()
    raise AssertionError  # pragma: no cover


def test_every_frame_is_written_in_order_then_the_end() -> None:
    frames = [f"id: 1-{i}\ndata: {i}\n\n".encode() for i in range(200)]
    sent: list[dict[str, Any]] = []
    closed: list[bool] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def main() -> None:
        response = StreamResponse(_body(frames, closed), ping=15, stall_seconds=60,
                                  headers={"X-Accel-Buffering": "no"}, status=201)
        with anyio.fail_after(20):
            await response(SCOPE, _never_disconnects, send)

    anyio.run(main)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 201
    headers = dict(sent[0]["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream")
    assert headers[b"x-accel-buffering"] == b"no"
    bodies = [m["body"] for m in sent[1:] if m["body"]]
    assert bodies == frames
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    assert closed == [True]


def test_a_client_that_stops_reading_is_let_go_after_the_stall_limit() -> None:
    closed: list[bool] = []
    written: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and len(written) >= 3:
            await anyio.sleep_forever()  # the client's window is full: the write waits
        written.append(message.get("body", b""))

    async def main() -> None:
        response = StreamResponse(_body([b"data: x\n\n"] * 10, closed, then_wait=True),
                                  ping=15, stall_seconds=0.3, headers={})
        with anyio.fail_after(20):  # far beyond the limit: the test fails rather than hangs
            await response(SCOPE, _never_disconnects, send)

    with pytest.raises(SendTimeoutError):
        anyio.run(main)
    assert len(written) == 3
    assert closed == [True]  # the subscription behind the body was closed


def test_a_slow_but_moving_client_is_not_cut() -> None:
    frames = [b"data: y\n\n"] * 12
    got: list[bytes] = []
    closed: list[bool] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message["body"]:
            await anyio.sleep(0.05)  # each write takes a while, none takes the limit
            got.append(message["body"])

    async def main() -> None:
        response = StreamResponse(_body(frames, closed), ping=15, stall_seconds=0.3,
                                  headers={})
        with anyio.fail_after(20):
            await response(SCOPE, _never_disconnects, send)

    anyio.run(main)
    assert got == frames and closed == [True]


def test_a_client_that_leaves_ends_the_stream() -> None:
    closed: list[bool] = []
    left = anyio.Event()

    async def receive() -> dict[str, Any]:
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message.get("body"):
            left.set()  # the client goes away after the first frame

    async def main() -> None:
        response = StreamResponse(_body([b"data: z\n\n"], closed, then_wait=True), ping=15,
                                  stall_seconds=60, headers={})
        with anyio.fail_after(20):
            await response(SCOPE, receive, send)

    anyio.run(main)
    assert closed == [True]
