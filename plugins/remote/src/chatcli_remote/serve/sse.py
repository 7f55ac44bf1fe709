"""The server-sent events response: sse-starlette's (pings, shutdown, disconnects, HEAD), with
a cheaper limit on a client that stops reading.

sse-starlette bounds each write with its own ``anyio.move_on_after`` cancel scope; under a crowd
(70 streams, 7,000 writes a second) those scopes were about a tenth of the server's CPU. Here a
write only notes when it started, and one watchdog task per response checks every few seconds:
a write still waiting after ``stall_seconds`` ends the response with sse-starlette's
``SendTimeoutError``, as its own limit did (the turn goes on regardless).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping

from sse_starlette import EventSourceResponse
from sse_starlette.sse import SendTimeoutError
from starlette.types import Message, Send

__all__ = ["StreamResponse"]


class StreamResponse(EventSourceResponse):
    """An SSE response whose client is let go when one write waits ``stall_seconds``.

    :param events: the body: encoded SSE frames (``bytes``), one write each.
    :param ping: seconds between keep-alive comments.
    :param stall_seconds: how long one write may wait for a client that stopped reading.
    :param headers: extra response headers.
    :param status: the HTTP status (201 when the request created what streams).
    """

    def __init__(self, events: AsyncIterator[bytes], *, ping: float, stall_seconds: float,
                 headers: Mapping[str, str], status: int = 200) -> None:
        super().__init__(events, status_code=status, ping=ping, headers=dict(headers),
                         data_sender_callable=self._watch_writes)
        self.stall_seconds = stall_seconds
        self._writing_since: float | None = None

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        self._writing_since = time.monotonic()
        try:
            await send(message)
        finally:
            self._writing_since = None

    async def _watch_writes(self) -> None:
        """End the response (``SendTimeoutError`` through its task group) when a write has
        waited ``stall_seconds``; cancelled with the response otherwise."""
        import anyio

        every = min(5.0, max(self.stall_seconds / 4, 0.05))
        while True:
            await anyio.sleep(every)
            since = self._writing_since
            if since is not None and time.monotonic() - since >= self.stall_seconds:
                raise SendTimeoutError()

    def __repr__(self) -> str:
        return f"StreamResponse(stall_seconds={self.stall_seconds!r})"
