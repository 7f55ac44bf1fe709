"""The Q daemon: one interactive ``q chat`` kept running behind pipes for the life of chatcli.

Starting ``q chat`` costs its greeting, its MCP servers and its login check each time; the daemon
pays once. It works as the Kamaji reference's ``QDaemonProvider`` does, with sturdier edges:

- **start**: ``q chat [--trust-all-tools] [--model M]`` with stdin, stdout and stderr as pipes
  and ``TERM=dumb`` (q's line editor, rustyline, prints its prompt into a pipe only for a
  terminal it does not support); ready when the input prompt (``> ``, or ``[agent] 6% !> ``)
  shows and the output rests for ``settle`` seconds (or, for a CLI that prints no prompt, when
  its greeting has been followed by two quiet seconds);
- **ask**: the message is written as one input (its lines joined with Q's ``\\`` line
  continuation); the answer is read, cleaned and streamed as it comes; it ends when the prompt
  shows again and the output rests for ``settle`` seconds — or, failing a prompt, after
  ``idle_end`` seconds of silence once text came;
- **timeout**: an answer that has not started ``timeout`` seconds (30 by default) after the
  message was sent is abandoned: the process is killed and started afresh next time;
- **restart once**: a broken pipe when writing, or a process that died before answering, is
  restarted and the message sent again, once; a crash in the middle of an answer keeps what
  arrived (an interrupted answer) and restarts next time;
- **close**: ``/quit``, then SIGTERM/SIGKILL to its process group if it lingers (at exit, and
  when the provider is closed). A turn that is stopped mid-answer (Ctrl+C) kills it at once.

Q keeps the conversation in the process; :class:`chatcli_provider_q._context.Tracker` knows
which messages it has seen, so a restarted daemon (or a rewound conversation) is seeded with a
transcript.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import threading
import time
from collections.abc import Iterator

from chatcli import (
    ChatRequest,
    ProviderConfig,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    translation,
)
from chatcli_provider_kit import CancellableStream

from chatcli_provider_q._clean import Cleaner, is_prompt
from chatcli_provider_q._context import Tracker, is_chat
from chatcli_provider_q._errors import (
    QCrashError,
    QEmptyAnswerError,
    QExitError,
    QTimeoutError,
    QToolApprovalError,
    exit_error,
)
from chatcli_provider_q._options import QOptions
from chatcli_provider_q._plain import QProvider
from chatcli_provider_q._process import QProcess, resolve_command

__all__ = ["QDaemon", "QDaemonProvider", "daemon_for", "encode_input", "shutdown_all"]

_, ngettext = translation(__name__)

#: Quiet seconds after the greeting that count as ready when no prompt shows.
_READY_QUIET = 2.0

#: Seconds a prompt with no answer before it is taken as an empty answer.
_EMPTY_GRACE = 2.0

#: Seconds ``q`` has to leave after ``/quit``.
_QUIT_SECONDS = 1.0

#: Longest wait between two looks at the clock while reading.
_TICK = 0.25

_APPROVAL = "Allow this action?"

#: A question for the person at start-up (a profile migration…): ``[y/n]``, ``(y/N)``.
_YES_NO = re.compile(r"[\[(]\s*y(es)?\s*/\s*n(o)?\s*[\])]", re.IGNORECASE)


class QStartQuestionError(QExitError):
    """``q chat`` waits for an answer to a question of its own before it takes messages."""


def _soonest(*waits: float) -> float:
    """How long to wait for output before looking at the clock again: until the first of
    ``waits`` is due, at most :data:`_TICK`."""
    return max(min(_TICK, *waits), 0.005)


def encode_input(text: str) -> str:
    """``text`` as one ``q chat`` input: q's line editor (rustyline, reading a pipe) takes a line
    that ends with ``\\`` as continued on the next, so every line but the last gets one (q then
    sees the lines with that backslash at their end)."""
    text = text.replace("\b", "")  # q's line editor would take it as a backspace
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1].endswith("\\"):
        lines[-1] += " "  # not a continuation: the message ends here
    return "\\\n".join(lines) + "\n"


class _Died(Exception):
    """The process ended (or closed its output) while chatcli waited for it; ``error`` is what
    to tell the user if it keeps happening."""

    def __init__(self, error: Exception) -> None:
        super().__init__(f" ({getattr(error, 'message', error)})")
        self.error = error


class QDaemon:
    """One persistent ``q chat`` process (started on first use, restarted when needed)."""

    def __init__(self, argv: list[str], options: QOptions) -> None:
        self.argv = argv
        self.options = options
        self.process: QProcess | None = None
        self.tracker = Tracker()
        self.starts = 0  # how many processes were started
        self._lock = threading.Lock()
        self._stale = False  # the process is in an unknown state: start a new one
        self._prompts = False  # this q shows its prompt in a pipe: silence never ends answers

    # ------------------------------------------------------------------ life

    @property
    def pid(self) -> int | None:
        """The running process's id, or None."""
        process = self.process
        return process.pid if process is not None and process.alive else None

    def _start(self) -> QProcess:
        self._stop()
        self.tracker.forget()
        self.starts += 1
        # rustyline (q's line editor) prints no prompt when stdin is a pipe, unless the
        # terminal is one it does not support: with TERM=dumb the prompt marks each answer's end
        process = self.process = QProcess(self.argv, stdin=True,
                                          env={**os.environ, "TERM": "dumb"})
        self._stale = self._prompts = False
        try:
            self._wait_ready(process)
        except BaseException:
            self._stop()
            raise
        return process

    def _wait_ready(self, process: QProcess) -> None:
        options = self.options
        out, err = Cleaner(), Cleaner()
        said: list[str] = []
        started = last = time.monotonic()
        heard = False
        while True:
            now = time.monotonic()
            quiet = now - last
            marker = is_prompt(out.pending()) or is_prompt(err.pending())
            if marker and quiet >= options.settle:
                self._prompts = True
                return
            if heard and not marker and quiet >= _READY_QUIET:
                return
            if now - started >= options.timeout:
                raise QTimeoutError(_("q chat did not get ready within {timeout:g}s").format(
                                        timeout=options.timeout),
                                    _("run `q chat` in a terminal to see what it waits for, or "
                                      "raise `chatcli config set providers.q.timeout 60`"),
                                    provider="q")
            chunk = process.next_chunk(_soonest(
                options.settle - quiet if marker else _TICK,
                _READY_QUIET - quiet if heard and not marker else _TICK))
            if chunk is None:
                continue
            if not chunk.text:
                if chunk.stream == "out":
                    raise _Died(self._ended(process, said, err))
                continue
            heard, last = True, time.monotonic()
            if chunk.stream == "out":
                shown = out.feed(chunk.text)
            else:
                shown = err.feed(chunk.text)
                said.append(shown)
            question = next((line for line in (shown + out.pending() + err.pending()
                                               ).splitlines() if _YES_NO.search(line)), None)
            if question is not None:
                raise QStartQuestionError(
                    _("q chat asks a question before it starts: {question}").format(
                        question=question.strip()[:120]),
                    _("run `q chat` once in a terminal and answer it"), provider="q")

    def _ended(self, process: QProcess, said: list[str], err: Cleaner) -> Exception:
        """The error for a process that ended on its own (after reading what it still had to
        say on stderr)."""
        deadline = time.monotonic() + 2.0
        while process.output_open and time.monotonic() < deadline:
            chunk = process.next_chunk(deadline - time.monotonic())
            if chunk is not None and chunk.stream == "err":
                said.append(err.feed(chunk.text))
        said.append(err.finish())
        code = process.wait(2.0)
        if code is None:
            code = -9
            process.kill()
        return exit_error(code, "".join(said), (self.options.command or "q").split()[0])

    def _stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.kill()

    def interrupt(self) -> None:
        """Stop the answer in flight from another thread: the answering q is killed and the
        next answer starts a new one (with the conversation as a transcript)."""
        self._stale = True
        process = self.process
        if process is not None:
            process.kill()

    def close(self) -> None:
        """``/quit``, then kill it if it does not leave at once."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.alive:
            with contextlib.suppress(OSError):
                process.write("/quit\n")
            process.close_input()
            process.wait(_QUIT_SECONDS)
        process.kill()

    # ------------------------------------------------------------------ answers

    def ask(self, request: ChatRequest) -> Iterator[str]:
        """The cleaned answer to ``request``, piece by piece as q prints it."""
        options = self.options
        if not self._lock.acquire(timeout=options.timeout):
            raise QTimeoutError(_("the q daemon was busy for {timeout:g}s").format(
                                    timeout=options.timeout),
                                _("try again when the other answer is done"), provider="q")
        try:
            for attempt in (1, 2):
                process = self.process
                plan = self.tracker.plan(request, system_prompt=options.system_prompt)
                fresh = not plan.resume and bool(self.tracker.seen)  # another conversation
                if process is not None and not self._drain(process):
                    process = None
                if process is None or not process.alive or self._stale or fresh:
                    try:
                        process = self._start()
                    except _Died as died:
                        if attempt == 1:
                            continue
                        raise died.error from None
                    # a new q knows nothing yet: it gets the conversation as a transcript
                    plan = self.tracker.plan(request, system_prompt=options.system_prompt)
                try:
                    process.write(encode_input(plan.text))
                except OSError:
                    self._stop()
                    if attempt == 1:
                        continue
                    raise QCrashError(_("q chat stopped reading its input twice in a row"),
                                      _("try again; if it keeps happening run `q doctor`"),
                                      provider="q") from None
                produced = False
                try:
                    for piece in self._answer(process):
                        produced = True
                        yield piece
                except _Died as died:
                    self._stale = True
                    if produced:
                        raise QCrashError(_("q chat ended in the middle of the answer{detail}"
                                            ).format(detail=died),
                                          _("the part that arrived is kept; the next message "
                                            "starts a new q chat"), provider="q") from None
                    if attempt == 1:
                        continue
                    raise died.error from None
                except GeneratorExit:  # the turn was stopped: do not leave q talking
                    self._stale = True
                    self._stop()
                    raise
                except BaseException:
                    self._stale = True
                    raise
                self.tracker.sent(request)
                return
        finally:
            self._lock.release()

    @staticmethod
    def _drain(process: QProcess) -> bool:
        """Drop output that came after the last answer ended (a late line: not the next
        answer's); False when the process closed its output meanwhile."""
        while (left := process.next_chunk(0)) is not None:
            if not left.text:
                return False
        return True

    def _answer(self, process: QProcess) -> Iterator[str]:
        options = self.options
        out, err = Cleaner(strip_reply_marker=True), Cleaner()
        said: list[str] = []
        # a q that shows its prompt ends answers with it; silence (a tool at work) does not
        idle_end = 0.0 if self._prompts else options.idle_end
        started = last = time.monotonic()
        while True:
            now = time.monotonic()
            quiet, waited = now - last, now - started
            content = out.started
            marker = is_prompt(out.pending()) or is_prompt(err.pending())
            if marker and quiet >= options.settle and (content or waited >= _EMPTY_GRACE):
                break
            if content and idle_end > 0 and quiet >= idle_end:
                break
            if not content and waited >= options.timeout:
                raise QTimeoutError(
                    _("q chat sent no answer in {timeout:g}s").format(timeout=options.timeout),
                    _("try again (a new q chat starts), or raise "
                      "`chatcli config set providers.q.timeout 120`"), provider="q")
            chunk = process.next_chunk(_soonest(
                options.settle - quiet if marker else _TICK,
                _EMPTY_GRACE - waited if marker and not content else _TICK,
                idle_end - quiet if content and idle_end > 0 else _TICK,
                options.timeout - waited if not content else _TICK))
            if chunk is None:
                continue
            if not chunk.text:
                if chunk.stream == "out":
                    raise _Died(self._ended(process, said, err))
                continue
            last = time.monotonic()
            if chunk.stream == "out":
                piece = out.feed(chunk.text)
                if piece:
                    yield piece
            else:
                said.append(err.feed(chunk.text))
                out.expect_reply()  # a tool ran: q marks the answer's next part with "> "
                if _APPROVAL in chunk.text or _APPROVAL in said[-1]:
                    raise QToolApprovalError(
                        _("Amazon Q wants to run a tool and waits for an approval chatcli "
                          "cannot give"),
                        _("set `chatcli config set providers.q.trust_all_tools true` to let it "
                          "run tools"), provider="q")
        tail = out.finish()
        if tail:
            yield tail
        if not out.started:
            raise QEmptyAnswerError(_("q chat answered nothing (its output was empty once "
                                      "cleaned)"), _("try again, or ask in other words"),
                                    provider="q")


_daemons: dict[tuple[tuple[str, ...], str], QDaemon] = {}
_registry_lock = threading.Lock()


def daemon_for(argv: list[str], options: QOptions) -> QDaemon:
    """The daemon for this command line in the current directory (one per chatcli process)."""
    key = (tuple(argv), os.getcwd())
    with _registry_lock:
        daemon = _daemons.get(key)
        if daemon is None:
            daemon = _daemons[key] = QDaemon(argv, options)
        else:
            daemon.options = options
        return daemon


def shutdown_all() -> None:
    """Close every daemon (``/quit``, then kill): at exit."""
    with _registry_lock:
        daemons = list(_daemons.values())
        _daemons.clear()
    for daemon in daemons:
        with contextlib.suppress(Exception):
            daemon.close()


atexit.register(shutdown_all)


class QDaemonProvider:
    """Answers through the persistent ``q chat`` of this chatcli process."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self.options = QOptions.from_config(config, daemon=True)
        command = resolve_command(self.options.command)
        self.argv = [*command, "chat", *self.options.flags()]
        self.daemon = daemon_for(self.argv, self.options)
        self._one_off: QProvider | None = None

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Ask the daemon; yield its answer as it is read. A plugin's task (memory extraction, a
        compaction summary) is answered by a ``q chat --no-interactive`` of its own, so that
        the daemon's conversation stays the chat's. ``cancel()`` on the stream ends the q that
        is answering (the daemon's next answer starts a new one)."""
        if not is_chat(request):
            if self._one_off is None:
                self._one_off = QProvider(self.config)
            return self._one_off.stream(request)
        return CancellableStream(self._answer(request), self.daemon.interrupt)

    def _answer(self, request: ChatRequest) -> Iterator[StreamEvent]:
        for piece in self.daemon.ask(request):
            yield TextDelta(text=piece)
        yield StopEvent(reason=StopReason.END_TURN, model=self.options.model)

    def close(self) -> None:
        """End the daemon's process now (a later request starts a new one)."""
        self.daemon.close()
