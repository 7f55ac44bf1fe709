"""Shared live sessions: what ``chatcli serve`` (and the ACP agent) run turns in.

A :class:`Hub` maps session ids to :class:`LiveSession` objects: a ``chatcli.Session`` opened for
a workspace, an event log, and its subscribers. One turn (a message or a slash command) runs at
a time, on a thread of its own; each event is appended to the log under a lock and handed to
every subscriber's bounded backlog with ``loop.call_soon_threadsafe`` — a subscriber too
slow to keep up is dropped (it reconnects with Last-Event-ID and replays from the log), the
engine never waits for one. Tool approvals become ``approval`` events answered by any client
(the first answer wins); a slash command's menus become ``question`` events.

Event ids are ``"{boot}-{seq}"``: ``boot`` is when the hub started (milliseconds, base 36),
``seq`` counts the session's events from 1. A Last-Event-ID of another boot, or older than the
log keeps, gets a ``reset`` event carrying the session's snapshot first. The log keeps the last
``replay_events`` events (a turn longer than that loses its beginning to a late reader, who
then resets).

One plugin host serves every session: the kernel configures plugins once per process (the first
session's workspace and settings), so plugins that keep a workspace of their own (checkpoints)
see that one whichever session calls them. A server is meant for one project tree: open sessions
inside the workspace the host was configured with.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import Approval, ChatcliError, hookimpl, translation
from chatcli_workspace import QuestionSlot

from chatcli_remote.wire import (
    Event,
    approval_data,
    cut,
    engine_event,
    make_event,
    redacted,
)

if TYPE_CHECKING:
    from chatcli import (
        Conversation,
        FileAccess,
        Message,
        PluginHost,
        Session,
        Settings,
        Tool,
        ToolCallPart,
        Verdict,
    )

__all__ = ["Event", "Hub", "LiveSession", "MessageSent", "QuestionClosed", "TurnBusy",
           "base36", "check_message_id"]

_, ngettext = translation(__name__)

#: How many events may wait for a subscriber before it is dropped.
QUEUE_SIZE = 1_000
#: The answers an approval offers (``always`` only with a rule to save).
APPROVAL_SCOPES = ("once", "session", "always")

#: A worker's question: chatcli-subagents prefixes the verdict's reason with the worker's id and
#: type (``w2 explore: the command writes outside the workspace``), as the REPL reads it.
_WORKER = re.compile(r"(w\d+) ([^\s:]+)(?::[ ]?(.*))?", re.DOTALL)


class TurnBusy(ChatcliError):
    """A turn (a message or a command) is already running in this session."""

    def __init__(self) -> None:
        super().__init__(
            _("a turn is already running in this session"),
            _("watch it (GET …/events) or cancel it (POST …/cancel)"))


class QuestionClosed(ChatcliError):
    """The question was answered already, or there is no such question."""


class MessageSent(ChatcliError):
    """A message sent again under its id (a client retrying after a cut stream) that needs no
    turn: it was answered already, or it is no longer on the session's current path."""


#: What a client's own message id may look like (``POST …/messages`` ``{"id": …}``).
_MESSAGE_ID = re.compile(r"[A-Za-z0-9_\-]{8,64}")


def check_message_id(value: object) -> str | None:
    """``value`` when it is a valid client message id (8-64 letters, digits, ``_`` or ``-``),
    None for None; raises :class:`chatcli.UsageError` otherwise."""
    if value is None:
        return None
    if not isinstance(value, str) or not _MESSAGE_ID.fullmatch(value):
        from chatcli import UsageError

        raise UsageError(_("'id' must be 8 to 64 letters, digits, '_' or '-'"),
                         _("give each message a random id (a UUID's hex) and reuse it only to "
                           "send that same message again"))
    return value


def base36(number: int) -> str:
    """``number`` (>= 0) in base 36, lower case."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
        if not number:
            return text


def asker(reason: str) -> tuple[str, str]:
    """(the label of the worker that asks — ``w2 (explore)`` — or "" for the main
    conversation; the reason without the worker's label)."""
    found = _WORKER.fullmatch(reason or "")
    if found is None:
        return "", reason or ""
    worker, kind, rest = found.groups()
    return f"{worker} ({kind})", (rest or "").strip()


class _Question:
    """An open approval or menu: what was asked (the event's data) and, once settled, the
    answer."""

    def __init__(self, qid: str, kind: str, data: dict[str, object], options: list[str]
                 ) -> None:
        self.qid = qid
        self.kind = kind  # "approval" | "question"
        self.data = data
        self.options = options
        self.done = threading.Event()
        self.allow = False
        self.scope = "once"
        self.reason = ""
        self.choice: int | None = None


class _Subscriber:
    """A client's backlog of events on its event loop, taken a batch at a time: every event
    waiting when the client's task runs goes out in one write. ``size`` events waiting drop the
    client (it reconnects with Last-Event-ID and replays from the log)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self.loop = loop
        self.size = size
        self.pending: list[Event] = []
        #: no more events: the session closed, or the client fell ``size`` events behind
        self.ended = False
        self._waiter: asyncio.Future[None] | None = None

    def deliver(self, event: Event) -> None:
        """(On the subscriber's loop.) Add ``event`` to the backlog; a full one drops the
        subscriber (what waited is discarded: the log has it)."""
        if self.ended:
            return
        if len(self.pending) >= self.size:
            self.pending.clear()
            self.end()
            return
        self.pending.append(event)
        self._wake()

    def end(self) -> None:
        """(On the subscriber's loop.) No event after those waiting."""
        self.ended = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def batch(self) -> list[Event] | None:
        """The events waiting (at least one; waits for one), or None once ended and drained."""
        while not self.pending:
            if self.ended:
                return None
            self._waiter = self.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        batch, self.pending = self.pending, []
        return batch


def _deliver_all(subscribers: list[_Subscriber], event: Event) -> None:
    """(On the subscribers' loop.) Queue ``event`` for each of them."""
    for subscriber in subscribers:
        subscriber.deliver(event)


class LiveSession:
    """One open session shared by every client: its turns, event log and open questions.

    ``id`` is the session's id (the conversation's, as chatcli-sessions stores it),
    ``workspace`` where its tools work, ``session`` the ``chatcli.Session``; ``running`` is
    True while a turn or a command runs.
    """

    def __init__(self, hub: Hub, session_id: str | None, workspace: Path,
                 files: FileAccess | None = None) -> None:
        from chatcli import Session, SessionOptions

        self.hub = hub
        self.workspace = workspace.resolve()
        self.running = False
        self._lock = threading.RLock()
        self._log: deque[Event] = deque(maxlen=max(1, hub.replay_events))
        self._seq = 0
        self._subscribers: list[_Subscriber] = []
        self._questions: dict[str, _Question] = {}
        self._qids = itertools.count(1)
        self._slot = QuestionSlot()
        self._turn = 0
        self._cancel: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        #: held while a turn is decided and begun, and while the session is read again from the
        #: store (another replica moved it): never both at once, never during a turn
        self._gate = threading.Lock()
        #: how many times the session was read again from the store (another replica moved it)
        self.reloads = 0
        #: the id it is filed under: its conversation's, set once the session is open (until
        #: then a session_start is not a switch of conversation)
        self.id: str = ""
        #: risk classes allowed for the rest of the session ("yes, and allow all … tools")
        self._allow: set[str] = set()
        #: the diffs of the current turn's calls, by call id (a question's, or Tool.preview's)
        self._previews: dict[str, str | None] = {}
        #: the calls running now (a tool's live output names the call when one runs alone)
        self._running_calls: list[str] = []
        #: the items of the last ``progress`` event
        self._last_progress: list[dict[str, object]] | None = None
        self.last_active = time.monotonic()
        options = SessionOptions(resume=session_id) if session_id else SessionOptions()
        self.session: Session = Session(
            hub.host, hub.settings, options, interactive=True, approver=self.approve,
            workspace=self.workspace, on_tool_output=self._tool_output, files=files)
        self.session.open()
        # chatcli-sessions files a session under the project of the folder it was made in
        self.session.conversation.metadata.setdefault("cwd", str(self.workspace))
        self.id = self.session.conversation.id

    # ------------------------------------------------------------------ the event log

    def emit(self, kind: str, data: dict[str, Any]) -> Event:
        """Append an event to the log (any thread) and hand it to every subscriber."""
        with self._lock:
            self._seq += 1
            event = make_event(f"{self.hub.boot}-{self._seq}", kind, data)
            self._log.append(event)
            by_loop: dict[asyncio.AbstractEventLoop, list[_Subscriber]] = {}
            for subscriber in self._subscribers:
                by_loop.setdefault(subscriber.loop, []).append(subscriber)
            for loop, subscribers in by_loop.items():
                try:  # one wake-up of a loop for all its subscribers (the server has one loop)
                    loop.call_soon_threadsafe(_deliver_all, subscribers, event)
                except RuntimeError:  # its loop is closed: those clients went away
                    for subscriber in subscribers:
                        self._subscribers.remove(subscriber)
            self.last_active = time.monotonic()
        return event

    def _after(self, last_id: str | None) -> tuple[list[Event], bool]:
        """(Under the lock.) The logged events after ``last_id``; whether a reset is due."""
        if last_id is None or last_id == "":
            return list(self._log), False
        boot, _sep, seq_text = last_id.partition("-")
        if boot != self.hub.boot or not seq_text.isdigit():
            return list(self._log), True
        seq = int(seq_text)
        first = self._seq - len(self._log) + 1  # the oldest seq the log still holds
        if seq > self._seq or seq < first - 1:
            return list(self._log), True
        return list(self._log)[seq - first + 1:], False

    def events_after(self, last_id: str | None) -> tuple[list[Event], bool]:
        """The logged events after ``last_id`` (all of them for None) and whether the client
        must reset first: True when the id is of another boot, malformed, or older than what
        the log keeps (the events are then the whole log)."""
        with self._lock:
            return self._after(last_id)

    def reset_event(self) -> Event:
        """A ``reset`` event carrying the snapshot; its id is the newest logged event's (so a
        reconnect after it replays from there)."""
        snapshot = self.snapshot()
        last = str(snapshot.get("last_event") or f"{self.hub.boot}-0")
        return make_event(last, "reset", {"snapshot": snapshot})

    async def subscribe(self, last_id: str | None) -> AsyncGenerator[Event, None]:
        """The events after ``last_id`` (a ``reset`` first when it is of another boot or too
        old; then the kept log), then live ones as they come. Ends when the consumer stops
        iterating (the turn goes on) or when it fell behind by :data:`QUEUE_SIZE` events."""
        batches = self.subscribe_batches(last_id)
        try:
            async for batch in batches:
                for event in batch:
                    yield event
        finally:
            await batches.aclose()

    async def subscribe_batches(self, last_id: str | None
                                ) -> AsyncGenerator[list[Event], None]:
        """:meth:`subscribe`'s events, those already waiting together in one list: a server
        writes a batch to its client at once (one send, not one per event, when a stream runs
        faster than the client is served)."""
        subscriber = _Subscriber(asyncio.get_running_loop(), QUEUE_SIZE)
        with self._lock:
            events, reset = self._after(last_id)
            if reset:
                events = []
            self._subscribers.append(subscriber)
        try:
            replay = [self.reset_event()] if reset else []
            replay.extend(events)
            if replay:
                yield replay
            while (batch := await subscriber.batch()) is not None:
                yield batch
        finally:
            with self._lock, contextlib.suppress(ValueError):
                self._subscribers.remove(subscriber)

    @property
    def subscribers(self) -> int:
        """How many clients are subscribed now (those whose event loop closed are dropped)."""
        with self._lock:
            self._subscribers = [s for s in self._subscribers if not s.loop.is_closed()]
            return len(self._subscribers)

    # ------------------------------------------------------------------ turns

    def _begin(self, kind: str, client: str) -> tuple[Event, threading.Event]:
        with self._lock:
            if self.running:
                raise TurnBusy
            if self._closed:
                raise ChatcliError(_("this session was closed"), _("open it again"))
            self.running = True
            self._turn += 1
            cancel = threading.Event()
            self._cancel = cancel
            self._previews.clear()
            started = self.emit("turn_started", {"turn": self._turn, "client": client,
                                                 "kind": kind, "session": self.id})
        return started, cancel

    # ------------------------------------------------------------------ several replicas

    def _stale(self) -> bool:
        """Whether the store holds another state of this session than the live copy (another
        replica appended or moved it): its head differs, or — from a catalog that does not tell
        heads — its number of messages differs from the live log's (a head moved without a new
        message then goes unseen). A session the store does not hold yet (no answer so far) is
        never stale."""
        stored = self.hub.stored_state(self.id)
        if stored is None:
            return False
        head, count = stored
        conversation = self.session.conversation
        if head is not None:
            return head != conversation.head
        return count != len(conversation.log)

    def _reload(self) -> None:
        """(Under the gate, no turn running.) Read the session again from the store, keep it
        under the same live session (its subscribers and event log stay) and tell watchers
        with a ``reset`` carrying the new snapshot."""
        conversation = self.hub.host.hooks.open_conversation(
            settings=self.session.settings, resume=self.id, continue_last=False)
        if conversation is None:
            raise ChatcliError(_("session {id} cannot be read again from the store").format(
                id=self.id), _("check that chatcli-sessions is installed and its store is "
                               "reachable"))
        conversation.metadata.setdefault("cwd", str(self.workspace))
        self.session.set_conversation(conversation)
        self.reloads += 1
        self.emit("reset", {"snapshot": self.snapshot()})

    def sync(self) -> bool:
        """Read the session again from the store when another replica moved it (nothing while
        a turn runs here: this replica's copy is the one moving). Whether it was read."""
        with self._gate:
            if self.running or self._closed or not self._stale():
                return False
            self._reload()
            return True

    def _prompt(self, text: str, message_id: str | None) -> Message | None:
        """(Under the gate, synced.) The user message to send, or None when the message with
        ``message_id`` is in the session already and still waits for its answer (its turn was
        cut: the replica running it died): the turn then answers it. Raises
        :class:`MessageSent` when that message was answered already or is no longer on the
        current path."""
        from chatcli import Message, Role, TextPart

        if message_id is None:
            return Message.user(text)
        conversation = self.session.conversation
        if message_id not in conversation.log:
            return Message(id=message_id, role=Role.USER, parts=[TextPart(text=text)])
        path = _path(conversation)
        index = next((i for i, m in enumerate(path) if m.id == message_id), None)
        if index is None:
            raise MessageSent(_("message {id} was sent already and is no longer on the "
                                "session's current path").format(id=message_id),
                              _("GET the session to see where it stands"))
        if any(m.role == Role.ASSISTANT and not m.tool_calls for m in path[index + 1:]):
            raise MessageSent(_("message {id} was sent and answered already").format(
                id=message_id), _("GET the session to read the answer"))
        return None

    def _start(self, target: Callable[[], None], name: str) -> None:
        def run() -> None:
            try:
                target()
            finally:
                with self._lock:
                    self.running = False
                    self.last_active = time.monotonic()

        thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread = thread
        thread.start()

    def start_turn(self, text: str, client: str = "", message_id: str | None = None) -> str:
        """Send ``text`` as the user's message; the turn runs on its own thread. Returns the id
        of its ``turn_started`` event; raises :class:`TurnBusy` while a turn runs.

        The live copy is first read again from the store when another replica moved the
        session. ``message_id`` (the client's id for this message) makes sending again safe:
        a message already in the session is not appended twice — its turn answers it when the
        answer is missing, and :class:`MessageSent` is raised when it is there."""
        with self._gate:
            if self.running:
                raise TurnBusy
            if not self._closed and self._stale():
                self._reload()
            prompt = self._prompt(text, message_id)
            started, cancel = self._begin("message", client)

        def turn() -> None:
            finished: Any = None
            error: str | None = _("the turn ended without an answer")
            try:
                finished, error = self.run_engine(prompt, cancel, again=text)
            finally:
                self._finish(finished, error)

        self._start(turn, f"chatcli-turn-{self.id}")
        return started.id

    def run_command(self, line: str, *, width: int = 100, color: bool = False,
                    client: str = "") -> str:
        """Run the slash command ``line`` (``/cost``) server-side: its console becomes
        ``output`` events, its menus ``question`` events. Returns the ``turn_started`` id;
        raises :class:`TurnBusy` while a turn runs."""
        from chatcli_remote.served_app import ServedApp

        with self._gate:
            if self.running:
                raise TurnBusy
            if not self._closed and self._stale():
                self._reload()
            started, cancel = self._begin("command", client)

        def command() -> None:
            error: str | None = _("the command ended unexpectedly")
            app = ServedApp(self, cancel, width=width, color=color)
            try:
                error = app.run_line(line)
            finally:
                app.flush()
                self._finish(None, error)

        self._start(command, f"chatcli-command-{self.id}")
        return started.id

    def _finish(self, finished: Any, error: str | None) -> None:
        """End the turn: a ``status`` event, then ``done`` — sent as the session stops running,
        so a client may send its next message as soon as it reads ``done``."""
        from chatcli import StopReason

        self._deny_open()  # nothing is left to answer once the turn ended
        self._emit_status()
        data: dict[str, object] = {"model": self._model(), "provider": self._provider()}
        if finished is not None:
            data["stop_reason"] = finished.stop_reason.value
            data["model"] = finished.model or data["model"]
            if getattr(finished, "answered_by", None):
                data["answered_by"] = finished.answered_by
            if finished.error is not None:
                data["error_line"] = str(finished.error)
                # the kind, so a remote client exits as a local run would (2 for usage errors)
                data["error_type"] = type(finished.error).__name__
        else:
            data["stop_reason"] = StopReason.ERROR.value if error else StopReason.END_TURN.value
            if error:
                data["error_line"] = error
        with self._lock:
            self.running = False
            self.last_active = time.monotonic()
            self.emit("done", data)

    def _model(self) -> str:
        try:
            return self.session.model
        except Exception:  # not open
            return ""

    def _provider(self) -> str:
        try:
            return self.session.provider_name
        except Exception:
            return ""

    def run_engine(self, prompt: Message | None, cancel: threading.Event,
                   again: str | None = None) -> tuple[Any, str | None]:
        """Run one engine turn on this thread, its events into the log (``done`` excepted).
        ``again`` is the ``user`` event's text when ``prompt`` is None (a message sent again
        whose answer is missing). Returns (its ``TurnFinished``, None), or (None, the error's
        one line) when it failed before it finished."""
        from chatcli import ToolFinished, ToolStarted, TurnFinished

        if prompt is not None:
            self.emit("user", {"text": prompt.text})
        elif again is not None:
            self.emit("user", {"text": again, "again": True})
        finished: Any = None
        stop = threading.Event()
        if has_progress(self.hub.host):
            threading.Thread(target=self._watch_progress, args=(stop,), daemon=True,
                             name=f"chatcli-progress-{self.id}").start()
        try:
            for event in self.session.run(prompt, cancel):
                if isinstance(event, TurnFinished):
                    finished = event
                    continue
                if isinstance(event, ToolStarted):
                    self._preview_of(event.call)  # worked out before the call runs
                    with self._lock:
                        self._running_calls.append(event.call.id)
                elif isinstance(event, ToolFinished):
                    with self._lock, contextlib.suppress(ValueError):
                        self._running_calls.remove(event.call.id)
                shown = engine_event(event, lambda call: self._previews.get(call.id))
                if shown is not None:
                    self.emit(*shown)
                if isinstance(event, ToolFinished):
                    self._emit_progress()
        except ChatcliError as err:
            return None, str(err)
        except Exception as err:  # a plugin's failure must not end the server
            return None, f"{type(err).__name__}: {(str(err).splitlines() or [''])[0]}"
        finally:
            stop.set()
            with self._lock:
                self._running_calls.clear()
        if finished is None:
            return None, _("the turn ended without an answer")
        usage = finished.usage
        self.emit("usage", {**usage.model_dump(), "context_tokens": self._context_tokens()})
        return finished, None

    def _context_tokens(self) -> int | None:
        try:
            return int(self.session.context_tokens())
        except Exception:
            return None

    def _preview_of(self, call: ToolCallPart) -> str | None:
        """The diff a call is about to apply: the one its question showed, else the tool's
        ``preview`` worked out now (before it runs); None for tools without one."""
        if call.id in self._previews:
            return self._previews[call.id]
        preview: str | None = None
        try:
            tool = self.session.engine.tools.get(call.name)
            if tool is not None and tool.preview is not None and tool.risk.value != "read" \
                    and call.raw_arguments is None:
                args = tool.parse_arguments(call.arguments)
                preview = tool.preview(args, self.session.engine.tool_context())
        except Exception:  # the call will fail as it runs and say why
            preview = None
        self._previews[call.id] = preview
        return preview

    def _emit_progress(self, only_changed: bool = False) -> None:
        """A ``progress`` event from the plugins implementing ``progress_items``, if any
        (``only_changed``: unless the items are those of the last one)."""
        items = progress_items(self.hub.host, self.session)
        if items is None:
            return
        with self._lock:
            if only_changed and items == self._last_progress:
                return
            self._last_progress = items
            self.emit("progress", {"items": items})

    def _watch_progress(self, stop: threading.Event) -> None:
        """(Its own thread, while a turn runs.) While a tool call runs — a delegation waits
        for its workers — a ``progress`` event whenever the items change, checked every
        :attr:`Hub.progress_every` seconds."""
        while not stop.wait(self.hub.progress_every):
            with self._lock:
                busy = bool(self._running_calls)
            if busy:
                self._emit_progress(only_changed=True)

    def _emit_status(self) -> None:
        """A ``status`` event: the model, then what plugins say (``status_items``)."""
        items = [f"{self._provider()}/{self._model()}"]
        hook = getattr(self.hub.host.hook, "status_items", None)
        if hook is not None:
            try:
                results = list(hook(session=self.session) or [])
            except Exception:  # a display never fails the turn
                results = []
            for result in results:
                if isinstance(result, dict):
                    items += [" ".join(str(value).split()) for value in result.values()
                              if str(value).strip()]
        self.emit("status", {"items": items})

    def _tool_output(self, line: str) -> None:
        """A running tool's live output line (the call named when only one runs)."""
        with self._lock:
            running = list(self._running_calls)
        data: dict[str, object] = {"line": cut(line.rstrip("\n"), 2_000)}
        if len(running) == 1:
            data["call_id"] = running[0]
        self.emit("tool_output", data)

    # ------------------------------------------------------------------ questions

    def approve(self, call: ToolCallPart, tool: Tool, verdict: Verdict) -> Approval:
        """The session's approver (engine or worker thread): an ``approval`` event, then wait
        for :meth:`answer`, the turn's cancel, or ``approval_timeout`` (denied)."""
        label, reason = asker(getattr(verdict, "reason", "") or "")
        risk = tool.risk.value
        rule = getattr(verdict, "rule", None)
        # the kernel's own question (no policy plugin spoke): a risk class allowed for the
        # session answers it; a policy's question with a reason or rule is always asked
        plain = not reason and not rule
        if plain and risk in self._allow:
            return Approval(True, "session")
        cancel = self._cancel
        if not self._slot.take(lambda: (cancel is not None and cancel.is_set())
                               or self._closed):
            return Approval(False)
        try:
            if (cancel is not None and cancel.is_set()) or self._closed:
                return Approval(False)
            if plain and risk in self._allow:  # allowed while it waited its turn
                return Approval(True, "session")
            options = ["once", "session", *(["always"] if rule else []), "no"]
            qid = f"q{next(self._qids)}"
            data = approval_data(qid, call, tool, verdict, reason, label, options)
            question = _Question(qid, "approval", data, options)
            self._previews[call.id] = getattr(verdict, "preview", None)
            with self._lock:
                self._questions[qid] = question
                self.emit("approval", data)
            timed_out = not self._wait(question, cancel)
            if timed_out:
                return Approval(False, "once", _("nobody answered within {seconds:g} s").format(
                    seconds=self.hub.approval_timeout))
            if not question.allow:
                return Approval(False, "once", question.reason)
            if question.scope == "session" and plain:
                self._allow.add(risk)
            return Approval(True, question.scope)
        finally:
            self._slot.give_back()

    def _wait(self, question: _Question, cancel: threading.Event | None) -> bool:
        """Wait for ``question``'s answer; False when ``approval_timeout`` passed first (it is
        then closed as denied). A cancelled turn or a closed session settle it as denied."""
        deadline = time.monotonic() + self.hub.approval_timeout
        while not question.done.wait(0.05):
            if (cancel is not None and cancel.is_set()) or self._closed:
                self._settle(question, by="cancel")
            elif time.monotonic() >= deadline and self._settle(question, by="timeout"):
                return False
        return True

    def _settle(self, question: _Question, *, by: str, allow: bool = False, scope: str = "once",
                reason: str | None = None, choice: int | None = None) -> bool:
        """Close ``question`` with this answer and say so (``answered``); False when it was
        closed already."""
        with self._lock:
            if question.done.is_set():
                return False
            self._questions.pop(question.qid, None)
            question.allow, question.scope = allow, scope
            question.reason, question.choice = reason or "", choice
            question.done.set()
            data: dict[str, object] = {"qid": question.qid, "by": by}
            if question.kind == "approval":
                data["allow"] = allow
                if allow:
                    data["scope"] = scope
            else:
                data["choice"] = choice
            self.emit("answered", data)
        return True

    def answer(self, qid: str, *, allow: bool, scope: str = "once", reason: str | None = None,
               by: str = "") -> None:
        """Answer approval ``qid`` (the first answer wins): allow ``once``, for the
        ``session``, or ``always`` (the rule a policy saves), or deny with ``reason`` (the model
        reads it). Raises :class:`QuestionClosed` when it is answered already or unknown."""
        if scope not in APPROVAL_SCOPES:
            from chatcli import UsageError

            raise UsageError(_("unknown scope {scope!r}").format(scope=scope),
                             _("use once, session or always"))
        with self._lock:
            question = self._questions.get(qid)
            if question is None or question.kind != "approval":
                raise QuestionClosed(
                    _("question {id} is answered already or does not exist").format(id=qid))
            if scope == "always" and "always" not in question.options:
                scope = "session"  # no rule to save: the nearest answer
            if not self._settle(question, by=by, allow=allow, scope=scope, reason=reason):
                raise QuestionClosed(_("question {id} is answered already").format(id=qid))

    def choose(self, qid: str, index: int | None, by: str = "") -> None:
        """Answer menu ``qid`` of a slash command: the option's index, or None (cancelled).
        Raises :class:`QuestionClosed` when it is answered already or unknown."""
        with self._lock:
            question = self._questions.get(qid)
            if question is None or question.kind != "question":
                raise QuestionClosed(
                    _("question {id} is answered already or does not exist").format(id=qid))
            if index is not None and not 0 <= index < len(question.options):
                from chatcli import UsageError

                count = len(question.options)
                raise UsageError(
                    ngettext("choice {index} is not one of the {count} options",
                             "choice {index} is not one of the {count} options", count
                             ).format(index=index, count=count),
                    _("give 0 to {last}, or null to cancel").format(last=count - 1))
            if not self._settle(question, by=by, choice=index):
                raise QuestionClosed(_("question {id} is answered already").format(id=qid))

    def pick(self, title: str, options: list[str], cancel: threading.Event | None) -> int | None:
        """(The command's thread.) A ``question`` event; the chosen index, or None when
        cancelled, the turn stopped or nobody answered within ``approval_timeout``."""
        if not options:
            return None
        if not self._slot.take(lambda: (cancel is not None and cancel.is_set())
                               or self._closed):
            return None
        try:
            qid = f"q{next(self._qids)}"
            data: dict[str, object] = {"qid": qid, "title": title, "options": list(options)}
            question = _Question(qid, "question", data, list(options))
            with self._lock:
                self._questions[qid] = question
                self.emit("question", data)
            self._wait(question, cancel)
            return question.choice
        finally:
            self._slot.give_back()

    def _deny_open(self) -> None:
        """Close every open question as denied/cancelled (the turn was stopped or ended)."""
        with self._lock:
            questions = list(self._questions.values())
        for question in questions:
            self._settle(question, by="cancel")

    def cancel(self) -> None:
        """Stop the running turn (its cancel event) and deny the questions it waits on."""
        with self._lock:
            cancel = self._cancel if self.running else None
        if cancel is not None:
            cancel.set()
        self._deny_open()

    # ------------------------------------------------------------------ state

    def snapshot(self) -> dict[str, object]:
        """The session as a client needs it to start: id, title, workspace, model, provider,
        the messages of the current path (tool calls and results summarised), whether a turn
        runs, the open questions, what plugins say it is busy with (``progress``), the head
        and the newest event's id. Redacted."""
        with self._lock:
            questions = [dict(q.data, kind=q.kind) for q in self._questions.values()]
            last = self._log[-1].id if self._log else None
            running = self.running
        conversation = self.session.conversation
        shown: dict[str, object] = redacted({
            "id": self.id, "title": conversation.title or _title(conversation),
            "workspace": str(self.workspace), "model": self._model(),
            "provider": self._provider(), "messages": _messages(conversation),
            "head": conversation.head, "running": running, "questions": questions,
            "progress": progress_items(self.hub.host, self.session) or [],
            "last_event": last,
        })
        return shown

    def close(self) -> None:
        """Stop any turn, end every subscription and close the session (``session_end``)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.cancel()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(10)
        with self._lock:
            subscribers, self._subscribers = self._subscribers, []
        for subscriber in subscribers:
            with contextlib.suppress(RuntimeError):
                subscriber.loop.call_soon_threadsafe(subscriber.end)
        self.session.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ran."""
        return self._closed


def has_progress(host: PluginHost) -> bool:
    """Whether a plugin implements ``progress_items``."""
    hook = getattr(host.hook, "progress_items", None)
    return hook is not None and bool(hook.get_hookimpls())


def progress_items(host: PluginHost, session: Session) -> list[dict[str, object]] | None:
    """What the plugins implementing ``progress_items`` say the session is busy with (their
    lists joined), as ``{id, title, state}`` dicts; None when no plugin implements it."""
    if not has_progress(host):
        return None
    hook = host.hook.progress_items
    try:
        results = hook(conversation=session.conversation) or []
    except Exception:  # a display never fails the turn
        return None
    items: list[dict[str, object]] = []
    for result in results:
        for item in result or []:
            items.append({"id": str(getattr(item, "id", "")),
                          "title": str(getattr(item, "title", "")),
                          "state": str(getattr(item, "state", ""))})
    return items


def _path(conversation: Conversation) -> list[Message]:
    """The messages from the root to the head, walked from the log without the conversation's
    path cache (which only the turn's thread may update: a snapshot runs on another)."""
    log, cursor = conversation.log, conversation.head
    path: list[Message] = []
    while cursor is not None and len(path) <= len(log):
        message = log.get(cursor)
        if message is None:
            break
        path.append(message)
        cursor = message.parent_id
    path.reverse()
    return path


def _title(conversation: Conversation) -> str:
    """The first line of the first user message (80 characters), as a title."""
    from chatcli import Role

    for message in _path(conversation):
        if message.role == Role.USER and message.text.strip():
            line = message.text.strip().splitlines()[0]
            return line if len(line) <= 80 else line[:79] + "…"
    return ""


def _messages(conversation: Conversation) -> list[dict[str, object]]:
    """The current path's messages, summarised for a client."""
    shown: list[dict[str, object]] = []
    for message in _path(conversation):
        entry: dict[str, object] = {"id": message.id, "role": message.role.value,
                                    "text": message.text}
        calls = message.tool_calls
        if calls:
            entry["tool_calls"] = [{"call_id": c.id, "name": c.name,
                                    "args": dict(c.arguments)} for c in calls]
        results = message.tool_results
        if results:
            entry["tool_results"] = [{"call_id": r.call_id, "name": r.name,
                                      "is_error": r.is_error, "content": cut(r.content)}
                                     for r in results]
        if message.interrupted:
            entry["interrupted"] = True
        if message.model:
            entry["model"] = message.model
        shown.append(entry)
    return shown


class _HubHooks:
    """The hub's hook implementations: head moves (``/rewind``, undo, clear, retry — by any
    client, or a plugin) become ``log`` events of the session the conversation belongs to."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    @hookimpl
    def head_moved(self, conversation: Conversation, head: str | None, reason: str) -> None:
        """``log{head, reason}`` in the session showing ``conversation``."""
        live = self.hub.find(conversation)
        if live is not None:
            live.emit("log", {"head": head, "reason": reason})

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation) -> None:
        """A live session's conversation was replaced (``/fork``, ``/session load|new``): the
        live session goes on under the new id, and a ``reset`` event carries its snapshot."""
        self.hub.switched(session, conversation)


class Hub:
    """The live sessions of one server (or ACP agent), by id.

    :param host: the plugin host (plugins loaded).
    :param settings: the settings sessions open with.
    :param idle_seconds: a session with no turn and no subscriber for this long is closed (its
        log is on disk already: chatcli-sessions appends as it goes).
    :param replay_events: how many events each session's log keeps for replays.
    :param approval_timeout: seconds an approval or menu waits for an answer (then denied).
    :param progress_every: seconds between two looks at ``progress_items`` while a tool call
        runs (a ``progress`` event when the items changed).
    :param catalog: the stored sessions (chatcli-sessions' ``SessionCatalog``): with one, a
        live session is read again from the store before a turn when the store's head moved
        (another server process — a replica — appended to it). None: this process is the
        only writer (ACP, tests).
    """

    def __init__(self, host: PluginHost, settings: Settings, *, idle_seconds: float = 900,
                 replay_events: int = 20_000, approval_timeout: float = 600,
                 progress_every: float = 1.0, catalog: Any = None) -> None:
        self.host = host
        self.catalog = catalog
        self.settings = settings
        self.idle_seconds = idle_seconds
        self.replay_events = replay_events
        self.approval_timeout = approval_timeout
        #: seconds between two looks at ``progress_items`` while a tool call runs
        self.progress_every = progress_every
        #: when this hub started, in base 36 (the first part of every event id)
        self.boot = base36(time.time_ns() // 1_000_000)
        self._sessions: dict[str, LiveSession] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._hooks = _HubHooks(self)
        self._hooks_name = f"chatcli-remote-hub-{id(self)}"
        host.register(self._hooks, self._hooks_name)
        self._reaper = threading.Thread(target=self._reap_loop, name="chatcli-hub-idle",
                                        daemon=True)
        self._reaper.start()

    def stored_state(self, session_id: str) -> tuple[str | None, int] | None:
        """(the store's head of ``session_id`` — None: empty, or a catalog that does not tell
        heads —, how many messages its log holds); None when there is no catalog or the store
        does not hold the session (not answered yet)."""
        if self.catalog is None:
            return None
        info = self.catalog.info(session_id)
        if info is None:
            return None
        return getattr(info, "head", None), int(getattr(info, "messages", 0) or 0)

    def open(self, session_id: str | None, workspace: Path, *, files: FileAccess | None = None
             ) -> LiveSession:
        """The live session ``session_id`` (resumed from chatcli-sessions' store when it is not
        live), or a new session in ``workspace`` for None. ``files`` is where its file tools
        read and write text (an editor's buffers, for ACP; default: the disk) — for a session
        opened now. Raises ChatcliError when the id is unknown or no session store is
        installed."""
        with self._lock:
            if session_id:
                live = self._sessions.get(session_id)
                if live is not None and not live.closed:
                    live.last_active = time.monotonic()
                    return live
            live = LiveSession(self, session_id or None, workspace, files)
            self._sessions[live.id] = live
            if session_id and session_id != live.id:  # opened by a prefix or a name
                self._sessions[session_id] = live
            return live

    def get(self, session_id: str) -> LiveSession | None:
        """The live session ``session_id``, or None when it is not live."""
        with self._lock:
            live = self._sessions.get(session_id)
            if live is None or live.closed:
                return None
            live.last_active = time.monotonic()  # a client still uses it
            return live

    def live(self) -> list[LiveSession]:
        """Every live session (each once)."""
        with self._lock:
            seen: dict[int, LiveSession] = {id(s): s for s in self._sessions.values()
                                            if not s.closed}
            return list(seen.values())

    def find(self, conversation: Conversation) -> LiveSession | None:
        """The live session whose current conversation is ``conversation``."""
        for live in self.live():
            session = live.session
            if session.is_open and session.conversation is conversation:
                return live
        return None

    def switched(self, session: Session, conversation: Conversation) -> None:
        """(``session_start``.) When ``session`` is a live session's and ``conversation`` is
        another than the one it was known by: file it under the new id (the old id, no longer
        live, resumes from the store if opened again) and log a ``reset`` with the snapshot."""
        with self._lock:
            live = next((s for s in self._sessions.values() if s.session is session), None)
            if live is None or live.id == conversation.id:
                return
            for key in [k for k, s in self._sessions.items() if s is live]:
                del self._sessions[key]
            live.id = conversation.id
            self._sessions[live.id] = live
        live.emit("reset", {"snapshot": live.snapshot()})

    def discard(self, session_id: str) -> None:
        """Close the live session ``session_id`` if there is one (before deleting it)."""
        with self._lock:
            live = self._sessions.get(session_id)
            if live is None:
                return
            for key in [k for k, s in self._sessions.items() if s is live]:
                del self._sessions[key]
        live.close()

    def close(self) -> None:
        """Close every live session and stop the idle reaper."""
        self._stop.set()
        with self._lock:
            sessions = self.live()
            self._sessions.clear()
        for live in sessions:
            live.close()
        with contextlib.suppress(Exception):
            self.host.unregister(self._hooks_name)

    def reap(self, now: float | None = None) -> list[str]:
        """Close the sessions idle for ``idle_seconds`` (no turn, no subscriber); their ids."""
        now = time.monotonic() if now is None else now
        idle = [live for live in self.live()
                if not live.running and not live.subscribers
                and now - live.last_active >= self.idle_seconds]
        for live in idle:
            self.discard(live.id)
        return [live.id for live in idle]

    def _reap_loop(self) -> None:
        period = max(0.05, min(30.0, self.idle_seconds / 4))
        while not self._stop.wait(period):
            with contextlib.suppress(Exception):
                self.reap()
