"""A ``q`` child process whose output is read as it comes, and never outlives chatcli.

:class:`QProcess` starts the command in a session of its own (the terminal's Ctrl+C goes to
chatcli, which decides what happens to the child), reads stdout and stderr on two threads and
hands over decoded text through one queue, so the caller can wait for "the next piece of output
or N seconds", whichever comes first. Every process still running is killed when chatcli exits
(``atexit``), and :meth:`QProcess.kill` kills its whole process group (a ``q`` that started tools
takes them along).
"""

from __future__ import annotations

import atexit
import codecs
import contextlib
import os
import queue
import shlex
import shutil
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import IO, NamedTuple

from chatcli import translation

from chatcli_provider_q._errors import INSTALL_URL, QNotInstalledError

__all__ = ["Chunk", "QProcess", "resolve_command"]

_, ngettext = translation(__name__)

#: Seconds a process asked to end (SIGTERM) may take before it is killed.
_TERM_SECONDS = 1.0

_live: weakref.WeakSet[QProcess] = weakref.WeakSet()


def _kill_all() -> None:
    """At exit: no ``q`` started by chatcli keeps running."""
    for process in list(_live):
        process.kill()


atexit.register(_kill_all)


def resolve_command(command: str | None) -> list[str]:
    """The argv prefix for ``[providers.q] command`` (default ``q``; may carry arguments, split
    like a shell would), its program resolved on PATH.

    Raises :class:`QNotInstalledError` when the program cannot be found.
    """
    words = shlex.split(command) if command else ["q"]
    if not words:
        words = ["q"]
    program = words[0]
    found = shutil.which(program)
    if found is None:
        configured = command is not None and command.strip() not in ("", "q")
        raise QNotInstalledError(
            _("the configured command '{program}' is not installed or not on PATH").format(
                program=program) if configured
            else _("the Amazon Q CLI (q) is not installed or not on PATH"),
            _("install it ({url}) and run `q login`, or set "
              "`chatcli config set providers.q.command /path/to/q`").format(url=INSTALL_URL),
            provider="q")
    return [found, *words[1:]]


class Chunk(NamedTuple):
    """A piece of output: ``stream`` is ``"out"`` or ``"err"``; ``text`` is ``""`` at its end."""

    stream: str
    text: str


class QProcess:
    """One running ``q`` command with its output read on helper threads."""

    def __init__(self, argv: Sequence[str], *, stdin: bool = False, input_text: str | None = None,
                 cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self._chunks: queue.Queue[Chunk] = queue.Queue()
        self._open = 2
        try:
            self._process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE if stdin or input_text is not None
                else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                env=dict(env) if env is not None else None, start_new_session=True, bufsize=0)
        except OSError as err:  # not executable, vanished since resolve_command…
            raise QNotInstalledError(
                _("cannot run {program}: {reason}").format(
                    program=self.argv[0], reason=err.strerror or err),
                _("check the file, or install the Amazon Q CLI ({url})").format(url=INSTALL_URL),
                provider="q") from None
        _live.add(self)
        assert self._process.stdout is not None and self._process.stderr is not None
        for name, pipe in (("out", self._process.stdout), ("err", self._process.stderr)):
            threading.Thread(target=self._read, args=(name, pipe), daemon=True,
                             name=f"chatcli-q-{name}").start()
        if input_text is not None:
            threading.Thread(target=self._feed, args=(input_text,), daemon=True,
                             name="chatcli-q-in").start()

    # ------------------------------------------------------------------ output

    def _read(self, name: str, pipe: IO[bytes]) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = pipe.fileno()
        try:
            while True:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    break
                text = decoder.decode(data)
                if text:
                    self._chunks.put(Chunk(name, text))
            tail = decoder.decode(b"", final=True)
            if tail:
                self._chunks.put(Chunk(name, tail))
        finally:
            self._chunks.put(Chunk(name, ""))
            with contextlib.suppress(OSError):
                pipe.close()

    def _feed(self, text: str) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        with contextlib.suppress(OSError):
            stdin.write(text.encode("utf-8"))
        with contextlib.suppress(OSError):
            stdin.close()

    def next_chunk(self, timeout: float | None) -> Chunk | None:
        """The next piece of output, or None when ``timeout`` seconds pass without one."""
        try:
            chunk = self._chunks.get(timeout=None if timeout is None else max(timeout, 0.0))
        except queue.Empty:
            return None
        if not chunk.text:
            self._open -= 1
        return chunk

    @property
    def output_open(self) -> bool:
        """Whether stdout or stderr may still say something."""
        return self._open > 0

    # ------------------------------------------------------------------ input

    def write(self, text: str) -> None:
        """Send ``text`` to its stdin; raises ``BrokenPipeError`` (or ``OSError``) when the
        process no longer reads it."""
        stdin = self._process.stdin
        if stdin is None or stdin.closed:
            raise BrokenPipeError("stdin is closed")
        stdin.write(text.encode("utf-8"))
        stdin.flush()

    def close_input(self) -> None:
        """Close its stdin (a ``q chat`` reading it then sees the end and exits)."""
        stdin = self._process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError):
                stdin.close()

    # ------------------------------------------------------------------ life

    @property
    def pid(self) -> int:
        """Its process id."""
        return self._process.pid

    @property
    def alive(self) -> bool:
        """Whether it still runs."""
        return self._process.poll() is None

    def poll(self) -> int | None:
        """Its exit code, or None while it runs."""
        return self._process.poll()

    def wait(self, timeout: float | None = None) -> int | None:
        """Wait up to ``timeout`` seconds for it to end; its exit code (None if still running)."""
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """End it and everything it started: SIGTERM to its group, SIGKILL if it lingers."""
        process = self._process
        if process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGTERM)
            deadline = time.monotonic() + _TERM_SECONDS
            while process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if process.poll() is None:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)
        # (once it is reaped its pid may belong to someone else: no signal after that)
        self.close_input()
        _live.discard(self)
