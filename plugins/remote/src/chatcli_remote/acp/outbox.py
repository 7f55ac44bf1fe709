"""The bridge from a worker thread (the engine's) to the asyncio loop that owns the connection.

The engine runs on its own thread; the ACP connection lives on the loop. :class:`Outbox` keeps
the order of what the thread says: :meth:`Outbox.send` queues a notification, :meth:`Outbox.ask`
queues a request and waits for its answer (the thread blocks, the loop does not). One consumer,
:meth:`Outbox.drain`, runs on the loop and sends them in order; a request is started in order
and answered in its own task, so notifications from other threads (workers) are not held up.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from chatcli import translation

__all__ = ["Outbox", "WaitCancelled"]

_, ngettext = translation(__name__)

T = TypeVar("T")

#: seconds between two looks at the cancel event while the thread waits for an answer
_POLL = 0.05


class WaitCancelled(Exception):
    """The turn was cancelled (or the connection went away) while waiting for an answer."""


class _Done:
    """The end of a turn's stream (the drain returns)."""


class Outbox:
    """Ordered messages from worker threads to the loop (see the module's docstring).

    :param loop: the loop that runs the connection.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = threading.Event()

    def send(self, make: Callable[[], Awaitable[object]]) -> None:
        """Queue a notification (``make()`` is called on the loop, in order)."""
        if not self.closed.is_set():
            self.loop.call_soon_threadsafe(self._queue.put_nowait, (make, None))

    def ask(self, make: Callable[[], Awaitable[T]], cancel: threading.Event | None = None) -> T:
        """Queue a request and wait for its answer on this (worker) thread.

        Raises :class:`WaitCancelled` when ``cancel`` is set first or the outbox closes, and
        what the request raised."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self.closed.is_set():
            raise WaitCancelled
        self.loop.call_soon_threadsafe(self._queue.put_nowait, (make, future))
        while True:
            try:
                return future.result(timeout=_POLL)
            except concurrent.futures.TimeoutError:
                if (cancel is not None and cancel.is_set()) or self.closed.is_set():
                    future.cancel()
                    raise WaitCancelled from None

    def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run ``make()`` on the loop now (out of order: file reads) and wait for its result."""
        return asyncio.run_coroutine_threadsafe(_awaited(make), self.loop).result()

    def finish(self) -> None:
        """Queue the end of the stream (from any thread)."""
        self.loop.call_soon_threadsafe(self._queue.put_nowait, _Done())

    async def drain(self) -> None:
        """Send what is queued, in order, until :meth:`finish` (run on the loop)."""
        while True:
            item = await self._queue.get()
            if isinstance(item, _Done):
                return
            make, future = item
            if future is None:
                try:
                    await make()
                except Exception as err:  # the editor went away: say it, go on
                    print(_("chatcli acp: could not send an update: {reason}").format(
                        reason=err), file=sys.stderr)
                continue
            task = asyncio.ensure_future(_answer(make, future))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            await asyncio.sleep(0)  # the request goes out before what is queued after it

    def cancel_requests(self) -> None:
        """Stop the requests waiting for an answer (a cancelled turn: its questions are void)."""
        for task in list(self._tasks):
            task.cancel()

    def close(self) -> None:
        """No more messages: waiting requests stop, :meth:`drain` ends (from the loop)."""
        self.closed.set()
        self.cancel_requests()
        self._queue.put_nowait(_Done())


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


async def _answer(make: Callable[[], Awaitable[T]], future: concurrent.futures.Future[T]) -> None:
    if future.cancelled():
        return
    try:
        result = await make()
    except asyncio.CancelledError:
        future.cancel()
        raise
    except Exception as err:
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            future.set_exception(err)
        return
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        future.set_result(result)
