"""Running a CLI assistant: its own process group, the prompt on stdin, stdout read line by
line with a silence limit, stderr kept for error messages, and the whole group killed on close.

The process is started in a new session (``start_new_session``), so the tools it runs (a shell,
a test suite) are in its process group and :meth:`CliRun.kill` stops them all. Every live run is
also remembered so that an exiting chatcli (``-p`` after Ctrl+C) kills what is still running.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import queue
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Sequence

__all__ = ["SILENT", "CliRun", "kill_all"]

#: What :meth:`CliRun.lines` yields when nothing arrived for one ``poll`` interval.
SILENT = object()

_EOF = object()
_STDERR_KEEP = 16_384
_live: weakref.WeakSet[CliRun] = weakref.WeakSet()
_live_lock = threading.Lock()


class CliRun:
    """One run of a CLI assistant (``argv``) that reads ``prompt`` on stdin.

    Raises ``FileNotFoundError``/``PermissionError`` when the program cannot be started.
    """

    def __init__(self, argv: Sequence[str], prompt: str, *, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=cwd, env=env, start_new_session=True)
        self.pgid = self.process.pid  # the leader of its new session and process group
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        with _live_lock:
            _live.add(self)
        self._threads = [
            threading.Thread(target=self._feed, args=(prompt,), daemon=True,
                             name="chatcli-cli-stdin"),
            threading.Thread(target=self._read_stdout, daemon=True, name="chatcli-cli-stdout"),
            threading.Thread(target=self._read_stderr, daemon=True, name="chatcli-cli-stderr"),
        ]
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------------ pipes

    def _feed(self, prompt: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, ValueError):  # it exited without reading: fine
            stdin.write(prompt.encode("utf-8", errors="replace"))
            stdin.flush()
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for raw in iter(stdout.readline, b""):
                self._lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        # a pipe with the default buffering: a BufferedReader, whose read1 returns what is there
        assert isinstance(stderr, io.BufferedReader)
        try:
            for chunk in iter(lambda: stderr.read1(4096), b""):
                with self._stderr_lock:
                    self._stderr += chunk
                    if len(self._stderr) > 2 * _STDERR_KEEP:
                        del self._stderr[:-_STDERR_KEEP]
        except (OSError, ValueError):
            pass

    # ------------------------------------------------------------------ reading

    def lines(self, poll: float) -> Iterator[object]:
        """stdout's lines as they arrive (text, newline included), with :data:`SILENT` after
        each ``poll`` seconds without one; ends when stdout closes."""
        while True:
            try:
                item = self._lines.get(timeout=poll)
            except queue.Empty:
                yield SILENT
                continue
            if item is _EOF:
                return
            yield item

    def stderr(self) -> str:
        """What the program wrote on stderr (the last 16 KB)."""
        with self._stderr_lock:
            return bytes(self._stderr[-_STDERR_KEEP:]).decode("utf-8", errors="replace")

    def wait(self, timeout: float) -> int | None:
        """The exit status once the program ended within ``timeout`` seconds, else None
        (negative: killed by that signal)."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        # stderr may still be draining; give its reader a moment so error messages are whole
        self._threads[2].join(timeout=1.0)
        return code

    # ------------------------------------------------------------------ ending

    def kill(self, grace: float = 1.0) -> None:
        """Stop the program and everything in its process group: SIGTERM, then SIGKILL after
        ``grace`` seconds. Safe to call more than once, from any thread."""
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
        # the leader is gone; what it started may still run in its group
        self._signal(signal.SIGKILL)
        for pipe in (self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                if pipe is not None:
                    pipe.close()
        with _live_lock:
            _live.discard(self)

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    @property
    def running(self) -> bool:
        """Whether the program has not exited yet."""
        return self.process.poll() is None


def kill_all() -> None:
    """Kill every run still alive (at exit: nothing chatcli started outlives it)."""
    with _live_lock:
        runs = list(_live)
    deadline = time.monotonic() + 2.0
    for run in runs:
        run.kill(grace=max(0.1, deadline - time.monotonic()))


atexit.register(kill_all)
