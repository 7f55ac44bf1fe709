"""A session on a ``chatcli serve`` server, offered as chatcli-repl and chatcli-print use
``chatcli.Session``: ``open``/``close`` (and ``with``), ``run(prompt, cancel)`` yielding the
kernel's events, ``provider_name``, ``model``, ``settings``, ``switch``, ``update_settings``,
``context_tokens``, ``workspace``, ``stash``, ``host`` and ``conversation`` — a read-only local
mirror of the server's, rebuilt after each turn. ``remote_command`` runs a slash command on the
server (the chat sends every ``/line`` there).

A turn: ``POST /api/sessions/{id}/messages`` answers with the turn's events as SSE; approvals
are asked here (the front end's approver: the chat's menu, ``-p``'s ``--allow``) and answered
with ``POST …/questions/{qid}``; the turn's cancel event becomes ``POST …/cancel``. A stream
the connection cut is followed again from the last event seen (``GET …/events`` with
``Last-Event-ID``), a few times, before the turn ends with the error.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from chatcli import (
    Approval,
    ChatcliError,
    Stash,
    StopReason,
    TurnFinished,
    UsageError,
    translation,
)

from chatcli_remote.client_events import (
    Output,
    Translator,
    approval_parts,
    error_from,
    mirror,
    stop_reason,
)
from chatcli_remote.client_http import Connection, RemoteBusy, RemoteError, RemoteUnreachable

if TYPE_CHECKING:
    from chatcli import Conversation, Message, PluginHost, Retrying, SessionOptions, Settings

    from chatcli_remote.client_sse import SseEvent

__all__ = ["RemoteSession"]

_, ngettext = translation(__name__)

#: Times a turn's cut stream is followed again before the turn ends with the error, and the
#: first pause before that (doubled each time).
RECONNECTS = 3
RECONNECT_PAUSE = 0.5


class RemoteSession:
    """One session of a ``chatcli serve`` server (see the module's text)."""

    def __init__(self, url: str, token: str, host: PluginHost, settings: Settings,
                 options: SessionOptions | None = None, *, interactive: bool = False,
                 approver: Callable[..., Any] | None = None,
                 on_tool_output: Callable[[str], None] | None = None,
                 on_retry: Callable[[Retrying], None] | None = None) -> None:
        from chatcli import SessionOptions

        self.url = url
        self._token = token
        self.host = host
        self.settings = settings
        self.options = options or SessionOptions()
        self.interactive = interactive
        self._approver = approver
        self._on_tool_output = on_tool_output
        self._on_retry = on_retry
        #: the server's folder for this session (its path on the server's machine)
        self.workspace = Path.cwd()
        #: plugins' state for this session (not persisted)
        self.stash = Stash()
        #: the server's status line items (``status`` events)
        self.remote_status: list[str] = []
        #: the server's session id (after :meth:`open`)
        self.id = ""
        self.snapshot: dict[str, Any] = {}
        self._connection: Connection | None = None
        self._conversation: Conversation | None = None
        self._provider = ""
        self._model = ""
        self._context_tokens: int | None = None
        #: the session was made empty by this client and has had no turn yet
        self._made_empty = False
        self._created: Any = None

    # ------------------------------------------------------------------ state

    @property
    def conversation(self) -> Conversation:
        """The local mirror of the server's conversation (after :meth:`open`)."""
        if self._conversation is None:
            raise RuntimeError("the session is not open")
        return self._conversation

    @property
    def provider_name(self) -> str:
        """The provider answering on the server."""
        return self._provider or "?"

    @property
    def model(self) -> str:
        """The model answering on the server."""
        return self._model or "?"

    @property
    def is_open(self) -> bool:
        """Between :meth:`open` and :meth:`close`."""
        return self._connection is not None

    def _http(self) -> Connection:
        if self._connection is None:
            raise RuntimeError("the session is not open")
        return self._connection

    def _path(self, *parts: str) -> str:
        return "/".join(["/api/sessions", quote(self.id, safe=""), *parts])

    # ------------------------------------------------------------------ opening and closing

    def open(self) -> RemoteSession:
        """Pick the server's session (``--resume ID``, ``-c``: the most recent one, else a new
        one) and read it; ``--provider``/``--model`` switch it. Raises
        :class:`chatcli.ChatcliError` (unreachable, refused token, unknown session) with
        nothing left open."""
        if self._connection is not None:
            return self
        connection = Connection(self.url, self._token)
        self._connection = connection
        try:
            self.id = self._choose(connection)
            if self._made_empty:
                # the creation's answer is the snapshot (behind a load balancer, reading it
                # again could reach a replica that never saw the session)
                self._take(self._created)
            else:
                self.refresh()
            if self.options.provider or self.options.model:  # --provider/--model: there too
                self.switch(self.options.provider, self.options.model)
        except BaseException:
            self._connection = None
            connection.close()
            raise
        return self

    def _choose(self, connection: Connection) -> str:
        resume = self.options.resume
        if resume:
            return resume
        if resume is not None or self.options.continue_last:
            listed = connection.request("GET", "/api/sessions")
            sessions = [s for s in (listed or {}).get("sessions", []) if isinstance(s, dict)]
            sessions.sort(key=lambda s: float(s.get("updated") or 0), reverse=True)
            if not sessions:
                raise UsageError(_("the chatcli server at {url} has no session to go on with"
                                   ).format(url=self.url),
                                 _("start one: leave out -c and --resume"))
            if resume is None:  # -c: the most recent one
                return str(sessions[0]["id"])
            recent = ", ".join(str(s.get("id")) for s in sessions[:5])
            raise UsageError(_("--resume needs the session's ID with --remote"),
                             _("the most recent: {ids}").format(ids=recent))
        created = connection.request("POST", "/api/sessions", {})
        session = created.get("session", created) if isinstance(created, dict) else {}
        if not isinstance(session, dict) or not session.get("id"):
            raise RemoteError(_("the chatcli server at {url} created no session").format(
                url=self.url))
        self._made_empty, self._created = True, created
        return str(session["id"])

    def refresh(self) -> None:
        """Read the server's session again (``GET /api/sessions/{id}``): the mirror, the model
        and the workspace."""
        try:
            snapshot = self._http().request("GET", self._path())
        except RemoteError as err:
            if err.status == 404:
                raise UsageError(
                    _("the chatcli server at {url} has no session {id}").format(url=self.url,
                                                                               id=self.id),
                    _("list them with `curl -H 'Authorization: Bearer …' {url}/api/sessions`"
                      ).format(url=self.url)) from None
            raise
        self._take(snapshot)

    def _take(self, snapshot: Any) -> None:
        """Mirror the server's ``snapshot`` of the session (its messages, model, workspace)."""
        if not isinstance(snapshot, dict):
            snapshot = {}
        snapshot = snapshot.get("session", snapshot) if "messages" not in snapshot else snapshot
        self.snapshot = snapshot
        self._conversation = mirror({"id": self.id, **snapshot})
        self._provider = str(snapshot.get("provider") or self._provider)
        self._model = str(snapshot.get("model") or self._model)
        if snapshot.get("workspace"):
            self.workspace = Path(str(snapshot["workspace"]))

    def close(self) -> None:
        """Close the connection (the session goes on on the server; later calls do nothing)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def __enter__(self) -> RemoteSession:
        return self if self.is_open else self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ turns

    def run(self, prompt: Message | None, cancel: threading.Event | None = None
            ) -> Generator[object, None, None]:
        """One turn on the server: ``prompt``'s text sent as the message — the typed text and
        the local files its ``@path`` words attached (images cannot go yet: a usage error) —
        or, for None, the last user message answered again (the server's ``/retry``); its
        events as the kernel's."""
        if prompt is not None and any(getattr(p, "type", "") == "image" for p in prompt.parts):
            raise UsageError(_("images cannot be sent to a chatcli server yet"),
                             _("send the message without the image, or run chatcli on this "
                               "machine"))
        if prompt is None:
            stream = self._http().stream("POST", self._path("commands"),
                                         {"line": "/retry", "width": 100, "color": False})
        else:
            stream = self._message(prompt.text)
        return self._turn(stream, cancel, None)

    def _message(self, text: str) -> Iterator[SseEvent]:
        """The turn of ``text`` (``POST …/messages``). Behind a load balancer a session made
        empty lives only in the replica that made it (the store keeps a session once it has an
        answer): when another replica answers 404 to its first message, the session is started
        again with that message (``POST /api/sessions {"text"}``), on whichever replica gets
        it, and this client follows the new id (``turn_started``'s ``session``)."""
        answered = False
        try:
            for event in self._http().stream("POST", self._path("messages"), {"text": text}):
                answered = True
                yield event
            self._made_empty = False
            return
        except RemoteError as err:
            if answered or err.status != 404 or not self._made_empty:
                raise
        for event in self._http().stream("POST", "/api/sessions", {"text": text}):
            if event.kind == "turn_started" and event.data.get("session"):
                self.id = str(event.data["session"])
                self._made_empty = False
            yield event

    def _turn(self, stream: Iterator[SseEvent], cancel: threading.Event | None,
              pick: Callable[[str, list[str]], int | None] | None,
              outputs: bool = False) -> Generator[Any, None, None]:
        before = len(self._conversation or ())
        translator = Translator(
            on_tool_output=self._on_tool_output, on_retry=self._on_retry,
            on_approval=lambda data: self._approve(data, cancel),
            on_question=lambda data: self._choose_for(data, pick),
            on_status=self._status)
        ended = threading.Event()
        if cancel is not None:
            threading.Thread(target=self._watch, args=(cancel, ended), daemon=True,
                             name="chatcli-remote-cancel").start()
        failure: ChatcliError | None = None
        try:
            tries = 0
            while True:
                try:
                    for event in stream:
                        for item in translator.events(event):
                            if outputs or not isinstance(item, Output):
                                yield item
                        if translator.done is not None or translator.lost:
                            break
                except RemoteUnreachable as err:
                    failure = err
                except RemoteError as err:
                    if not tries:
                        raise  # the request itself was refused (409, 404…): the caller's
                    failure = err  # following the cut stream was refused: the turn is lost
                    break
                if translator.lost:
                    failure = RemoteUnreachable(
                        _("the chatcli server at {url} no longer runs this turn (it was "
                          "restarted?)").format(url=self.url),
                        _("what the turn had done so far is in its log"))
                    break
                if translator.done is not None or tries >= RECONNECTS or not translator.last_id:
                    break
                # the stream was cut before the turn ended: follow it again, after a pause
                time.sleep(RECONNECT_PAUSE * 2 ** tries)
                tries += 1
                stream = self._http().stream("GET", self._path("events"),
                                             headers={"Last-Event-ID": translator.last_id})
        except BaseException:  # the consumer went away (Ctrl+C in -p, the chat's end)
            if translator.done is None:
                self._post_quietly(self._path("cancel"), None)
            raise
        finally:
            ended.set()
        yield self._finished(translator, before, failure)

    def _finished(self, translator: Translator, before: int,
                  failure: ChatcliError | None) -> TurnFinished:
        done = translator.done
        try:
            self.refresh()
        except ChatcliError as err:
            failure = failure or err
        messages = self.conversation.messages()[before:]
        if done is None:
            return TurnFinished(StopReason.ERROR, translator.usage, messages,
                                error=failure or RemoteUnreachable(
                                    _("the chatcli server at {url} ended the turn's stream "
                                      "early").format(url=self.url)),
                                model=self._model or None)
        error = None
        if done.get("error_line"):
            error = error_from(str(done["error_line"]), str(done.get("error_type") or ""))
        self._provider = str(done.get("provider") or self._provider)
        model = str(done.get("model") or "") or None
        if translator.context_tokens is not None:
            self._context_tokens = translator.context_tokens
        usage = translator.usage
        answered_by = done.get("answered_by")
        return TurnFinished(stop_reason(done.get("stop_reason")), usage, messages, error=error,
                            model=model,
                            answered_by=str(answered_by) if answered_by else None)

    def _watch(self, cancel: threading.Event, ended: threading.Event) -> None:
        """Tell the server when the turn's cancel event is set (Ctrl+C)."""
        while not ended.wait(0.05):
            if cancel.is_set():
                self._post_quietly(self._path("cancel"), None)
                return

    def _post_quietly(self, path: str, body: dict[str, Any] | None) -> None:
        # answered already, the turn ended, the connection is gone: nothing to do
        with contextlib.suppress(ChatcliError, RuntimeError):
            self._http().request("POST", path, body)

    def _status(self, items: list[str]) -> None:
        self.remote_status = items

    # ------------------------------------------------------------------ questions

    def _approve(self, data: dict[str, Any], cancel: threading.Event | None) -> None:
        """An ``approval`` event: ask the front end's approver, send the answer."""
        qid = str(data.get("qid") or "")
        call, tool, verdict = approval_parts(data)
        answer: Approval
        if self._approver is None or (cancel is not None and cancel.is_set()):
            answer = Approval(False)
        else:
            given = self._approver(call, tool, verdict)
            answer = given if isinstance(given, Approval) else Approval(bool(given))
        body: dict[str, Any] = {"allow": answer.allow,
                                "scope": answer.scope if answer.allow else "once"}
        if not answer.allow and answer.reason:
            body["reason"] = answer.reason
        self._answer(qid, body)

    def _choose_for(self, data: dict[str, Any],
                    pick: Callable[[str, list[str]], int | None] | None) -> None:
        """A ``question`` event (a slash command's menu): the front end's pick, sent back."""
        options = [str(option) for option in data.get("options") or []]
        choice = pick(str(data.get("title") or ""), options) if pick is not None else None
        self._answer(str(data.get("qid") or ""), {"choice": choice})

    def _answer(self, qid: str, body: dict[str, Any]) -> None:
        with contextlib.suppress(RemoteBusy):  # another client answered first: its answer stands
            self._http().request("POST", self._path("questions", quote(qid, safe="")), body)

    # ------------------------------------------------------------------ slash commands

    def remote_command(self, line: str, width: int = 100, color: bool = False,
                       pick: Callable[[str, list[str]], int | None] | None = None,
                       cancel: threading.Event | None = None) -> Iterator[str]:
        """Run the slash command ``line`` on the server; yields the text to print (the
        command's console output, raw — with colour codes when ``color`` — and any answer it
        runs, in brief). Menus are asked through ``pick``; approvals through the approver.
        Raises :class:`chatcli.ChatcliError` when the server refuses (a turn runs: 409)."""
        from chatcli import TextDelta, ToolFinished, ToolStarted

        stream = self._http().stream("POST", self._path("commands"),
                                     {"line": line, "width": width, "color": color})
        text = ""
        for item in self._turn(stream, cancel, pick, outputs=True):
            if isinstance(item, TextDelta):  # an answer the command runs: whole lines
                text += item.text
                lines, newline, text = text.rpartition("\n")
                if newline:
                    yield lines + newline
                continue
            if text:
                yield text if text.endswith("\n") else text + "\n"
                text = ""
            if isinstance(item, Output):
                yield item.text
            elif isinstance(item, ToolStarted):
                yield f"⚙ {item.call.name}\n"
            elif isinstance(item, ToolFinished):
                first = (item.result.content.strip().splitlines() or ["(no output)"])[0]
                yield f"  {'✗' if item.result.is_error else '✓'} {first[:90]}\n"
            elif isinstance(item, TurnFinished) and item.error is not None:
                yield f"✗ {item.error}\n"
        if text:
            yield text if text.endswith("\n") else text + "\n"

    def command_output(self, line: str) -> str:
        """All that :meth:`remote_command` yields for ``line``, as one text."""
        return "".join(self.remote_command(line))

    # ------------------------------------------------------------------ during the session

    def switch(self, provider: str | None = None, model: str | None = None) -> None:
        """Answer with another provider and/or model on the server (its ``/switch``). Raises
        :class:`chatcli.ChatcliError` with the server's words when nothing changed."""
        target = provider or ""
        if model:
            target = f"{target}/{model}" if provider else f"--model {model}"
        if not target:
            return
        before = (self._provider, self._model)
        said = self.command_output(f"/switch {target}")
        if (self._provider, self._model) == before and (
                (provider and provider != self._provider) or (model and model != self._model)):
            raise ChatcliError(" ".join(said.split()) or _("the server did not switch"))

    def update_settings(self, **changes: Any) -> Settings:
        """Settings of this side (how answers are shown) for the rest of the session; the
        server keeps its own."""
        from chatcli import ConfigError, Settings
        from pydantic import ValidationError

        try:
            settings = Settings.model_validate({**self.settings.model_dump(), **changes})
        except ValidationError as err:
            first = err.errors()[0]
            key = ".".join(str(part) for part in first["loc"])
            raise ConfigError(_("invalid value for '{key}': {reason}").format(
                key=key, reason=first["msg"])) from None
        self.settings = settings
        return settings

    def context_tokens(self) -> int:
        """The server's estimate of the next request's input tokens (when it says; else a
        rough count of the mirror's text)."""
        if self._context_tokens is not None:
            return self._context_tokens
        return sum(len(m.text) for m in self.conversation.messages()) // 4

    def compact(self, instruction: str | None = None) -> None:
        """Compact the server's view (its ``/compact``)."""
        self.command_output(f"/compact {instruction}".strip() if instruction else "/compact")

    def set_conversation(self, conversation: Conversation) -> None:
        """Loading another conversation is the server's: not from here."""
        raise UsageError(_("the conversation is the server's over --remote"),
                         _("use --resume ID to open another of its sessions"))
