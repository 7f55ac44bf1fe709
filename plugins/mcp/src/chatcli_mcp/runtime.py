"""The background event loop that owns every MCP session.

The SDK is async and chatcli's engine is not: one daemon thread runs an asyncio loop for the
whole process; coroutines are submitted to it (:meth:`Loop.submit`) and the engine's thread
waits for them with :meth:`Loop.wait`, which gives up at a deadline, when the turn's ``cancel``
event is set, or on Ctrl+C — cancelling the coroutine (the SDK then tells the server the request
was cancelled), so an MCP tool stops like any other tool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["Cancelled", "Loop", "TimedOut"]

T = TypeVar("T")

#: How often a waiting thread looks at the cancel event.
POLL = 0.05


class Cancelled(Exception):
    """The user stopped the turn while an MCP request was running."""


class TimedOut(Exception):
    """An MCP request took longer than its deadline."""


class Loop:
    """A lazily started asyncio loop on a daemon thread."""

    def __init__(self, name: str = "chatcli-mcp") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._loop is not None and self._thread is not None and self._thread.is_alive()

    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop, started on first use."""
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                ready = threading.Event()
                loop = asyncio.new_event_loop()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    try:
                        loop.run_forever()
                    finally:
                        loop.close()

                self._thread = threading.Thread(target=run, name=self.name, daemon=True)
                self._loop = loop
                self._thread.start()
                ready.wait()
            return self._loop

    def on_loop(self) -> bool:
        """Whether the caller runs on the loop's own thread."""
        return self._thread is not None and threading.current_thread() is self._thread

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coroutine`` on the loop; its future."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop())

    def call(self, callback: Any, *args: Any) -> None:
        """Run ``callback(*args)`` on the loop's thread, soon."""
        self.loop().call_soon_threadsafe(callback, *args)

    def wait(self, future: concurrent.futures.Future[T], *, timeout: float | None = None,
             cancel: threading.Event | None = None) -> T:
        """The future's result, waited for on this thread.

        Raises :class:`TimedOut` past ``timeout`` seconds and :class:`Cancelled` when ``cancel``
        is set (cancelling the coroutine either way); Ctrl+C cancels it too and propagates.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    future.cancel()
                    raise Cancelled()
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    future.cancel()
                    raise TimedOut()
                step = POLL if left is None else min(POLL, left)
                try:
                    return future.result(timeout=step if cancel is not None or left is not None
                                         else 0.5)
                except concurrent.futures.TimeoutError:
                    continue
        except concurrent.futures.CancelledError:
            raise Cancelled() from None
        except BaseException:
            future.cancel()
            raise

    def run(self, coroutine: Coroutine[Any, Any, T], *, timeout: float | None = None,
            cancel: threading.Event | None = None) -> T:
        """:meth:`submit` then :meth:`wait`."""
        return self.wait(self.submit(coroutine), timeout=timeout, cancel=cancel)

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the loop (what still runs on it is abandoned after ``timeout``)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None or not thread.is_alive():
            return

        async def finish() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=timeout)
            loop.stop()

        try:
            asyncio.run_coroutine_threadsafe(finish(), loop)
        except RuntimeError:  # already closed
            return
        thread.join(timeout + 1.0)
