"""The protocol's byte streams: stdin, and the private copy of stdout (:mod:`.cli`).

An editor gives pipes: asyncio's pipe transports carry them, and the end of stdin ends the run
(the editor is gone; what runs is cancelled). A regular file on stdin (`chatcli acp <
requests.jsonl > answers.jsonl`, a script) is read by a thread instead, and its end is passed on
only once every request read from it has been answered, so a script gets every answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import threading
from typing import IO, Any

__all__ = ["protocol_streams"]

#: the longest line (one JSON-RPC message) read from stdin
LINE_LIMIT = 50 * 1024 * 1024


class _Pending:
    """The ids of the requests read and not answered yet."""

    def __init__(self) -> None:
        self._ids: set[object] = set()
        self._changed = threading.Condition()

    def read(self, line: bytes) -> None:
        message = _message(line)
        if message is not None and "method" in message and "id" in message:
            with self._changed:
                self._ids.add(_key(message["id"]))

    def answered(self, line: bytes) -> None:
        message = _message(line)
        if message is not None and "method" not in message and "id" in message:
            with self._changed:
                self._ids.discard(_key(message["id"]))
                self._changed.notify_all()

    def wait(self) -> None:
        with self._changed:
            self._changed.wait_for(lambda: not self._ids)


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _key(value: object) -> object:
    return json.dumps(value)


class _FileWriteTransport(asyncio.WriteTransport):
    """Writes each message at once (a regular file, or stdout when stdin is one), telling
    ``pending`` of each answer."""

    def __init__(self, out: IO[bytes], pending: _Pending) -> None:
        super().__init__()
        self._out = out
        self._pending = pending
        self._closing = False
        self._partial = b""

    def write(self, data: Any) -> None:
        if self._closing:
            return
        self._out.write(bytes(data))
        self._out.flush()
        *lines, self._partial = (self._partial + bytes(data)).split(b"\n")
        for line in lines:
            self._pending.answered(line)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def can_write_eof(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader,
          pending: _Pending) -> None:
    """Read stdin on a thread, line by line, into ``reader``; its end once all is answered."""

    def run() -> None:
        try:
            while line := sys.stdin.buffer.readline():
                pending.read(line)
                loop.call_soon_threadsafe(reader.feed_data, line)
            pending.wait()
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=run, daemon=True, name="chatcli-acp-stdin").start()


def _regular_file(stream: IO[Any]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):
        return False


async def protocol_streams(out: IO[bytes]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """(the reader of stdin, the writer to ``out``) for ``acp.run_agent``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    protocol = asyncio.streams.FlowControlMixin()
    transport: asyncio.WriteTransport
    pending = _Pending()
    if _regular_file(sys.stdin):
        _feed(loop, reader, pending)
    else:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    if _regular_file(sys.stdin) or _regular_file(out):
        transport = _FileWriteTransport(out, pending)
    else:
        transport, _ = await loop.connect_write_pipe(lambda: protocol, out)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
