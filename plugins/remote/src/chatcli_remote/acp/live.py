"""One editor session: a chatcli :class:`~chatcli.Session` driven over ACP.

Turns and slash commands run on the session's worker thread (one at a time); what they produce
goes to the editor through the :class:`~.outbox.Outbox` in order: text as
``agent_message_chunk``, tool calls and questions through :class:`~.toolcalls.ToolCalls`,
``plan`` updates from the ``progress_items`` hook, a ``usage_update`` after each turn.

:class:`LiveSession` is also the :class:`~chatcli.ChatApp` slash commands see: its console is a
text buffer sent as message chunks after the command, ``pick`` asks the editor to choose.
"""

from __future__ import annotations

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import update_agent_message_text, update_agent_thought_text, update_plan
from acp.helpers import update_current_mode
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate, UsageUpdate
from chatcli import ChatApp, translation

from chatcli_remote.acp.convert import plan_entries, stop_reason
from chatcli_remote.acp.outbox import Outbox
from chatcli_remote.acp.toolcalls import ToolCalls

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate
    from acp.interfaces import Client
    from chatcli import (
        FileAccess,
        Message,
        PluginHost,
        Session,
        SessionOptions,
        Settings,
        TurnFinished,
        Usage,
    )
    from rich.console import Console

__all__ = ["MODES", "LiveSession"]

_, ngettext = translation(__name__)


def _said_mode(text: str) -> str:
    """The mode ``/permissions`` names on its first line, ``permission mode: MODE (…)`` in
    any language (the words before the colon are translated, the mode's id never), else
    ``""``."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    label, colon, rest = first.partition(":")
    words = rest.split()
    return words[0] if colon and label.strip() and words else ""


#: chatcli-agent's permission modes (``/permissions MODE``), offered as ACP session modes
#: (their ids are chatcli's; the names and descriptions the editor shows are translated)
MODES: dict[str, tuple[str, str]] = {
    "default": (_("Default"), _("reads run; edits and commands ask")),
    "accept-edits": (_("Accept edits"), _("edits in the workspace run; commands ask")),
    "plan": (_("Plan"), _("read only: nothing is changed")),
    "auto": (_("Auto"), _("everything runs, except what always asks")),
}
#: the console width slash commands print at (message chunks in the editor)
WIDTH = 100
#: the name of the threads turns run on
TURN_THREAD = "chatcli-acp-turn"
#: seconds between two looks at ``progress_items`` while a turn runs
PROGRESS_SECONDS = 1.0


class LiveSession(ChatApp):
    """A chatcli session served to one ACP client (see the module's docstring).

    :param conn: the connection to the editor.
    :param outbox: the bridge from the worker thread to the connection's loop.
    :param host: the plugin host.
    :param settings: the settings for the session's folder.
    :param options: new (no ``resume``) or the session to go on with (``resume=ID``).
    :param workspace: the folder the editor opened (ACP ``cwd``).
    :param files: the editor's file access (None: the disk).
    """

    def __init__(self, conn: Client, outbox: Outbox, host: PluginHost, settings: Settings,
                 options: SessionOptions, workspace: Path, files: FileAccess | None = None) -> None:
        from chatcli import Session

        self.conn = conn
        self.outbox = outbox
        self.host = host
        self.files = files
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=TURN_THREAD)
        self.cancel_event = threading.Event()
        self.running = False
        self.id = ""
        self._buffer = io.StringIO()
        self.console = _console(self._buffer)
        self.calls = ToolCalls(self)
        self.session: Session = Session(
            host, settings, options, interactive=True, approver=self.calls.approve,
            workspace=workspace, on_tool_output=self.calls.output, files=files)
        self._lock = threading.Lock()
        self._plan: list[Any] = []
        self.mode = "default"
        #: the tokens of the last turn (the prompt's answer reports them)
        self.usage: Usage | None = None

    # ------------------------------------------------------------------ life

    def open(self) -> None:
        """Open the chatcli session (on the worker thread's caller: blocking)."""
        self.session.open()
        self.id = self.session.conversation.id
        self.mode = self.read_mode()

    def close(self) -> None:
        """End the turn, close the session (``session_end``)."""
        self.cancel_event.set()
        self.worker.shutdown(wait=True, cancel_futures=True)
        self.session.close()

    @property
    def workspace(self) -> Path:
        """The session's folder."""
        return self.session.workspace

    def has_modes(self) -> bool:
        """Whether chatcli-agent's ``/permissions`` is there (the modes are its)."""
        return "permissions" in self.host.slash_commands()

    # ------------------------------------------------------------------ sending

    def send(self, update: SessionUpdate | UsageUpdate) -> None:
        """Queue a session update (from any thread; sent in order)."""
        session_id = self.id
        self.outbox.send(lambda: self.conn.session_update(session_id=session_id, update=update))

    def say(self, text: str) -> None:
        """``text`` as an agent message chunk."""
        if text:
            self.send(update_agent_message_text(text))

    # ------------------------------------------------------------------ a prompt

    async def prompt(self, text: str, images: list[str] | None = None) -> str:
        """Run ``text`` (a message with ``images``, or ``/name args`` for a slash command) on
        the worker thread; returns the ACP stop reason once every update before it was sent."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()
        self.cancel_event = threading.Event()
        self.running = True
        self.usage = None

        async def finish(reason: str) -> None:
            if not done.done():
                done.set_result(reason)

        def work() -> None:
            reason = "end_turn"
            try:
                reason = self._handle(text, images or [])
            except Exception as err:  # a failing command or plugin: its one line, as the CLI
                self.say("\n\n" + _("chatcli: error: {message}").format(message=_one_line(err))
                         + "\n")
            finally:
                if self.cancel_event.is_set():
                    reason = "cancelled"
                self.outbox.send(lambda: finish(reason))

        try:
            self.worker.submit(work)
            return await done
        finally:
            self.running = False

    def cancel(self) -> None:
        """Stop the running turn: the engine stops, waiting questions are answered no."""
        self.cancel_event.set()
        self.outbox.cancel_requests()

    def _handle(self, text: str, images: list[str]) -> str:
        command, argument = self._command(text)
        if command is not None and not images:
            self._run_command(command, argument)
            return "cancelled" if self.cancel_event.is_set() else "end_turn"
        from chatcli import Message

        finished = self._turn(Message.user(text, *images))
        return stop_reason(str(finished.stop_reason)) if finished is not None else "end_turn"

    def _command(self, text: str) -> tuple[Any, str]:
        """The slash command ``text`` runs (by name or alias) and its argument, or (None, "")."""
        if not text.startswith("/"):
            return None, ""
        name, _sep, argument = text[1:].partition(" ")
        name = name.strip()
        commands = self.host.slash_commands()
        found = commands.get(name) or next(
            (c for c in commands.values() if name in c.aliases), None)
        return found, argument.strip()

    def _run_command(self, command: Any, argument: str) -> None:
        try:
            command.run(self, argument)
        finally:
            self._flush_console()
            mode = self.read_mode()
            if mode != self.mode:
                self.mode = mode
                self.send(update_current_mode(mode))

    def _flush_console(self) -> None:
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        if text.strip():
            self.say(text if text.endswith("\n") else text + "\n")

    # ------------------------------------------------------------------ a turn

    def _turn(self, message: Message | None) -> TurnFinished | None:
        """Run one turn, streaming what it does; returns how it ended."""
        self._flush_console()
        finished: TurnFinished | None = None
        ended = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(ended,), daemon=True,
                                  name="chatcli-acp-progress")
        ticker.start()
        try:
            finished = self._stream(message)
        finally:
            ended.set()
            ticker.join()
        self._progress()
        if finished is not None:
            self.usage = finished.usage
            self._context_use()
        if finished is not None and finished.error is not None:
            self.say("\n\n" + _("chatcli: error: {message}").format(
                message=_one_line(finished.error)) + "\n")
        return finished

    def _context_use(self) -> None:
        """How full the context window is (``usage_update``: the editor's context meter)."""
        try:
            used = self.session.context_tokens()
            size = self.session.engine.current.context_window
        except Exception:
            return
        self.send(UsageUpdate(session_update="usage_update", used=used, size=size))

    def _tick(self, ended: threading.Event) -> None:
        """Look at the ``progress_items`` while a turn runs (workers move during one call)."""
        while not ended.wait(PROGRESS_SECONDS):
            self._progress()

    def _stream(self, message: Message | None) -> TurnFinished | None:
        from chatcli import (
            Compacted,
            Retrying,
            TextDelta,
            ToolFinished,
            ToolStarted,
            TurnFinished,
        )

        finished: TurnFinished | None = None
        for event in self.session.run(message, self.cancel_event):
            if isinstance(event, TextDelta):
                self.say(event.text)
            elif isinstance(event, ToolStarted):
                self.calls.started(event.call)
            elif isinstance(event, ToolFinished):
                self.calls.finished(event.call, event.result.content, event.result.is_error)
                self._progress()
            elif isinstance(event, Retrying):
                self.send(update_agent_thought_text(
                    _("{reason}; retrying in {delay:.1f} s").format(reason=event.error,
                                                                   delay=event.delay) + "\n"))
            elif isinstance(event, Compacted):
                self.send(update_agent_thought_text(f"{event.report.line()}\n"))
            elif isinstance(event, TurnFinished):
                finished = event
        return finished

    def _progress(self) -> None:
        """A ``plan`` update when the ``progress_items`` hook's answer changed."""
        ask = getattr(self.host.hook, "progress_items", None)
        if ask is None:
            return
        try:
            answers = ask(conversation=self.session.conversation)
        except Exception:
            return
        items = [item for answer in answers or [] for item in (answer or [])]
        with self._lock:
            if not items or items == self._plan:
                return
            self._plan = items
        self.send(update_plan(plan_entries(items)))

    # ------------------------------------------------------------------ modes

    def read_mode(self) -> str:
        """The permission mode, as ``/permissions`` says it ("default" without the plugin)."""
        word = _said_mode(self.quiet("permissions", ""))
        return word if word in MODES else "default"

    def set_mode(self, mode: str) -> None:
        """``/permissions MODE``; raises ValueError for a mode it does not take."""
        text = self.quiet("permissions", mode)
        if _said_mode(text) != mode:
            raise ValueError(text.strip() or _("unknown mode {mode!r}").format(mode=mode))
        self.mode = mode

    def quiet(self, name: str, argument: str) -> str:
        """What slash command ``name`` prints for ``argument`` (not shown to the editor)."""
        command = self.host.slash_commands().get(name)
        if command is None:
            return ""
        buffer = io.StringIO()
        command.run(_Quiet(self, _console(buffer)), argument)
        return buffer.getvalue()

    # ------------------------------------------------------------------ ChatApp

    def ask(self, text: str) -> TurnFinished | None:
        """Run a turn on ``text`` now (a slash command's), streamed like any answer."""
        from chatcli import Message

        return self._turn(Message.user(text))

    def submit(self, text: str) -> None:
        """Send ``text`` as a message (now: the command runs on the turn's thread)."""
        self.ask(text)

    def retry(self) -> None:
        """Answer the last user message again."""
        from chatcli import Role

        user = self.conversation.last(Role.USER)
        if user is None:
            self.say(_("nothing to retry") + "\n")
            return
        if self.conversation.head != user.id:
            self.conversation.move_head(user.id, "retry")
        self._turn(None)

    def pick(self, title: str, options: list[str]) -> int | None:
        """Let the user choose in the editor (a permission request whose options are the
        choices); None when cancelled."""
        from chatcli import new_id

        self._flush_console()
        choices = [PermissionOption(option_id=str(n), name=option[:200], kind="allow_once")
                   for n, option in enumerate(options)]
        request = ToolCallUpdate(tool_call_id=new_id("pick_"), title=title[:200],
                                 kind="other", status="pending")
        session_id = self.id
        try:
            answer = self.outbox.ask(lambda: self.conn.request_permission(
                session_id=session_id, tool_call=request, options=choices), self.cancel_event)
        except Exception:
            return None
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id.isdigit():
            index = int(outcome.option_id)
            return index if index < len(options) else None
        return None

    def prefill(self, text: str) -> None:
        """The editor's input cannot be filled: show the text instead."""
        self.say(_("(your message, to send again if you want: {text})").format(text=text[:200])
                 + "\n")

    def exit(self) -> None:
        """An editor session ends when the editor closes it."""


class _Quiet(ChatApp):
    """The session as a slash command sees it, printing to its own console (``quiet``)."""

    def __init__(self, live: LiveSession, console: Console) -> None:
        self.live = live
        self.console = console
        self.host = live.host
        self.session = live.session

    def ask(self, text: str) -> TurnFinished | None:
        return self.live.ask(text)

    def submit(self, text: str) -> None:
        self.live.submit(text)

    def retry(self) -> None:
        self.live.retry()

    def pick(self, title: str, options: list[str]) -> int | None:
        return None

    def prefill(self, text: str) -> None:
        """Nothing to fill."""

    def exit(self) -> None:
        """Nothing to leave."""


def _console(buffer: io.StringIO) -> Console:
    from rich.console import Console

    return Console(file=buffer, width=WIDTH, no_color=True, color_system=None, highlight=False,
                   soft_wrap=True, force_terminal=False)


def _one_line(err: BaseException) -> str:
    """The error as the CLI's one line (redacted)."""
    from chatcli import redact

    text = " ".join(str(err).split()) or type(err).__name__
    return redact(text)
