"""The extraction worker: reads the recent conversation in the background and remembers what
the model picks out of it.

When: after an answer (:meth:`Worker.nudge` from ``after_response``) once at least
``min_messages`` new messages exist and ``cooldown`` seconds passed since the last run; on a
slow timer (``interval``) for long sessions where the user types rarely; and once at the end of
a one-shot run when ``extract_oneshot`` is on. One run at a time, on a daemon thread, so the
prompt and the stream never wait for it. A run is bounded by ``timeout``; its writes are
transactions, taken under a lock that :meth:`Worker.close` also takes, so a run still in flight
at exit either finishes within ``exit_wait`` or is dropped before it writes anything more.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chatcli import ChatcliError, translation
from chatcli_memory_api import MemoryKind

if TYPE_CHECKING:
    from chatcli import Conversation, Message

    from chatcli_memory.model import Memory
    from chatcli_memory.settings import MemoryOptions
    from chatcli_memory.state import State

__all__ = ["Job", "Worker"]

_, ngettext = translation(__name__)

#: messages before the new ones sent along for context
CONTEXT_MESSAGES = 2

#: ``call(system, user_text, timeout)`` → the model's answer text
Caller = Callable[[str, str, float], str]


@dataclass(frozen=True)
class Job:
    """One extraction: the conversation's messages as they were when it was asked for."""

    conversation_id: str
    messages: tuple[Message, ...]
    new: int
    reason: str


class Worker:
    """Extraction runs for one process (one session at a time)."""

    def __init__(self, *, memory: Callable[[], Memory | None], options: MemoryOptions,
                 state: State, call: Caller, clock: Callable[[], float] = time.time,
                 on_event: Callable[[str, str], None] | None = None) -> None:
        self._memory = memory
        self.options = options
        self.state = state
        self.call = call
        self.clock = clock
        self.on_event = on_event or (lambda _name, _detail: None)
        self.apply_lock = threading.Lock()
        self.closed = False
        self.last_started: float | None = None
        self.last_outcome: str | None = None
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._timer: threading.Thread | None = None
        self._stop_timer = threading.Event()

    # ------------------------------------------------------------------ deciding

    @property
    def busy(self) -> bool:
        """A run is in flight."""
        return not self._idle.is_set()

    def pending(self, conversation: Conversation) -> tuple[tuple[Message, ...], int]:
        """The messages to send (the new ones and a little context) and how many are new."""
        messages = tuple(conversation.view())
        mark = self.state.marked(conversation.id)
        start = 0
        if mark is not None:
            ids = [m.id for m in messages]
            if mark in ids:
                start = ids.index(mark) + 1
        return messages[max(0, start - CONTEXT_MESSAGES):], len(messages) - start

    def due(self, new: int, *, minimum: int | None = None) -> bool:
        """Enough new messages and the cooldown passed (and nothing in flight)."""
        if self.closed or self.busy or new < (self.options.min_messages
                                              if minimum is None else minimum):
            return False
        last = self.last_started
        return last is None or self.clock() - last >= self.options.cooldown

    def nudge(self, conversation: Conversation, reason: str = "", *,
              minimum: int | None = None) -> bool:
        """Start a run for ``conversation`` when one is due (``reason``: why, for
        ``/memory status``; "after an answer" when not given); True when one started."""
        messages, new = self.pending(conversation)
        if not self.due(new, minimum=minimum):
            return False
        self.start(Job(conversation.id, messages, new, reason or _("after an answer")))
        return True

    # ------------------------------------------------------------------ running

    def start(self, job: Job) -> None:
        """Run ``job`` on a daemon thread."""
        self.last_started = self.clock()
        self._idle.clear()
        self.on_event("started", job.reason)
        self._thread = threading.Thread(target=self._run, args=(job,), daemon=True,
                                        name="chatcli-memory-extraction")
        self._thread.start()

    def _run(self, job: Job) -> None:
        outcome = _("failed: unknown")
        try:
            outcome = self._extract(job)
        except Exception as err:  # a worker never takes the session down
            outcome = _("failed: {reason} (nothing changed)").format(reason=_one_line(err))
        finally:
            self.last_outcome = outcome
            self.state.update(last_extraction={"at": self.clock(), "outcome": outcome,
                                               "reason": job.reason, "messages": job.new})
            self._idle.set()
            self.on_event("finished", outcome)

    def _extract(self, job: Job) -> str:
        from chatcli_memory.extraction import (  # what an extraction needs, only when one runs
            ExtractionError,
            apply_extraction,
            parse_extraction,
            system_prompt,
            transcript,
        )

        memory = self._memory()
        if memory is None:
            return _("skipped: memory is off")
        known = [*memory.profile(), *memory.strongest(MemoryKind.FACT, 40)]
        system = system_prompt(known)
        text = transcript(job.messages, self.options.extract_chars)
        if not text.strip():
            self._mark(job)
            return _("nothing new")
        try:
            answer = self.call(system, text, self.options.timeout)
        except TimeoutError:
            return _("timed out after {seconds:g} s (nothing changed)").format(
                seconds=self.options.timeout)
        except ChatcliError as err:
            return _("failed: {reason} (nothing changed)").format(reason=_one_line(err))
        try:
            extraction = parse_extraction(answer)
        except ExtractionError as err:
            return _("malformed: {reason} (nothing changed)").format(reason=err)
        with self.apply_lock:
            if self.closed:
                return _("dropped at exit (nothing changed)")
            applied = apply_extraction(memory, extraction, should_stop=lambda: self.closed)
        self._mark(job)
        skipped = extraction.skipped
        if extraction.empty:
            return ngettext("nothing new ({count} malformed entries skipped)",
                            "nothing new ({count} malformed entries skipped)", skipped).format(
                                count=skipped) if skipped else _("nothing new")
        if skipped:
            return ngettext("ok: {summary}; {count} malformed entries skipped",
                            "ok: {summary}; {count} malformed entries skipped", skipped).format(
                                summary=applied.summary(), count=skipped)
        return _("ok: {summary}").format(summary=applied.summary())

    def _mark(self, job: Job) -> None:
        if job.messages:
            self.state.mark(job.conversation_id, job.messages[-1].id)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the run in flight; True when none is left."""
        return self._idle.wait(timeout)

    # ------------------------------------------------------------------ the slow timer

    def start_timer(self, conversation: Callable[[], Conversation | None]) -> None:
        """Check every ``interval`` seconds for messages no run has read yet."""
        if self._timer is not None or self.options.interval <= 0:
            return
        self._stop_timer.clear()

        def loop() -> None:
            while not self._stop_timer.wait(self.options.interval):
                current = conversation()
                if current is not None:
                    try:
                        self.nudge(current, _("the timer"))
                    except Exception:  # the conversation changed under it: next tick
                        continue

        self._timer = threading.Thread(target=loop, daemon=True, name="chatcli-memory-timer")
        self._timer.start()

    def stop_timer(self) -> None:
        self._stop_timer.set()
        self._timer = None

    # ------------------------------------------------------------------ the end

    def close(self, wait: float) -> bool:
        """Stop: let a run in flight finish for up to ``wait`` seconds, then drop it (it
        writes nothing more). True when nothing was dropped."""
        self.stop_timer()
        finished = self._idle.wait(max(0.0, wait))
        with self.apply_lock:
            self.closed = True
        return finished


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:200]

