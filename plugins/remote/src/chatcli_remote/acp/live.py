"""One editor session: a chatcli :class:`~chatcli.Session` driven over ACP.

Turns and slash commands run on the session's worker thread (one at a time); what they produce
goes to the editor through the :class:`~.outbox.Outbox` in order: text as
``agent_message_chunk``, each tool call as ``tool_call`` then ``tool_call_update`` (an edit's
preview as diff content, a command's output as it comes), ``plan`` updates from the
``progress_items`` hook. The approver asks the editor (``session/request_permission``); the
editor's answer becomes chatcli's :class:`~chatcli.Approval`, a cancelled one a no.

:class:`LiveSession` is also the :class:`~chatcli.ChatApp` slash commands see: its console is a
text buffer sent as message chunks after the command, ``pick`` asks the editor to choose.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.helpers import update_current_mode
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate, UsageUpdate
from chatcli import ChatApp

from chatcli_remote.acp.convert import (
    ToolKindName,
    diff_contents,
    plan_entries,
    result_content,
    stop_reason,
    tool_kind,
    tool_locations,
    tool_title,
)
from chatcli_remote.acp.outbox import Outbox, WaitCancelled

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate, ToolCallContentVariant
    from acp.interfaces import Client
    from chatcli import (
        Approval,
        FileAccess,
        Message,
        PluginHost,
        Session,
        SessionOptions,
        Settings,
        Tool,
        ToolCallPart,
        TurnFinished,
        Usage,
        Verdict,
    )
    from rich.console import Console

__all__ = ["MODES", "LiveSession"]

#: chatcli-agent's permission modes (``/permissions MODE``), offered as ACP session modes
MODES: dict[str, tuple[str, str]] = {
    "default": ("Default", "reads run; edits and commands ask"),
    "accept-edits": ("Accept edits", "edits in the workspace run; commands ask"),
    "plan": ("Plan", "read only: nothing is changed"),
    "auto": ("Auto", "everything runs, except what always asks"),
}
#: the console width slash commands print at (message chunks in the editor)
WIDTH = 100
#: the most output lines a running command keeps in its tool call
OUTPUT_LINES = 200
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
        self.session: Session = Session(
            host, settings, options, interactive=True, approver=self._approve,
            workspace=workspace, on_tool_output=self._tool_output, files=files)
        self._lock = threading.Lock()
        self._started: set[str] = set()  # tool calls the editor knows
        self._diffs: dict[str, list[ToolCallContentVariant]] = {}
        self._output: dict[str, list[str]] = {}
        self._running_exec: list[str] = []
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

    def _send(self, update: SessionUpdate | UsageUpdate) -> None:
        session_id = self.id
        self.outbox.send(lambda: self.conn.session_update(session_id=session_id, update=update))

    def say(self, text: str) -> None:
        """``text`` as an agent message chunk."""
        if text:
            self._send(update_agent_message_text(text))

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
                self.say(f"\n\nchatcli: error: {_one_line(err)}\n")
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
        name, _, argument = text[1:].partition(" ")
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
                self._send(update_current_mode(mode))

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
            self.say(f"\n\nchatcli: error: {_one_line(finished.error)}\n")
        return finished

    def _context_use(self) -> None:
        """How full the context window is (``usage_update``: the editor's context meter)."""
        try:
            used = self.session.context_tokens()
            size = self.session.engine.current.context_window
        except Exception:
            return
        self._send(UsageUpdate(session_update="usage_update", used=used, size=size))

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
                self._tool_started(event.call)
            elif isinstance(event, ToolFinished):
                self._tool_finished(event.call, event.result.content, event.result.is_error)
                self._progress()
            elif isinstance(event, Retrying):
                self._send(update_agent_thought_text(
                    f"{event.error}; retrying in {event.delay:.1f} s\n"))
            elif isinstance(event, Compacted):
                self._send(update_agent_thought_text(f"{event.report.line()}\n"))
            elif isinstance(event, TurnFinished):
                finished = event
        return finished

    def _tool(self, name: str) -> Tool | None:
        try:
            return self.session.engine.tools.get(name)
        except Exception:
            return None

    def _start(self, call: ToolCallPart, status: str,
               content: list[ToolCallContentVariant] | None = None) -> None:
        """Tell the editor of ``call`` (once; later: a status update)."""
        with self._lock:
            known = call.id in self._started
            self._started.add(call.id)
        kind = self._kind(call)
        if known:
            self._send(update_tool_call(call.id, status=status,  # type: ignore[arg-type]
                                        content=content))
            return
        self._send(start_tool_call(
            call.id, tool_title(call), kind=kind, status=status,  # type: ignore[arg-type]
            content=content, locations=tool_locations(call, self.workspace),
            raw_input=_jsonable(call.arguments)))

    def _kind(self, call: ToolCallPart) -> ToolKindName:
        tool = self._tool(call.name)
        return tool_kind(call.name, str(tool.risk) if tool is not None else None)

    def _tool_started(self, call: ToolCallPart) -> None:
        if self._kind(call) == "execute":  # its output lines are shown in its tool call
            with self._lock:
                self._running_exec.append(call.id)
        content = self._diffs.get(call.id)
        if content is None:
            content = self._preview(call)
            self._diffs[call.id] = content
        self._start(call, "in_progress", content or None)

    def _preview(self, call: ToolCallPart) -> list[ToolCallContentVariant]:
        """The diff an edit that was not asked about will make (the tool's preview)."""
        tool = self._tool(call.name)
        if tool is None or tool.preview is None:
            return []
        try:
            args = tool.parse_arguments(call.arguments)
            context = self.session.engine.tool_context()
            return list(diff_contents(tool.preview(args, context), self.workspace,
                                      self._read))
        except Exception:
            return []

    def _tool_finished(self, call: ToolCallPart, content: str, is_error: bool) -> None:
        if call.id not in self._started:
            self._start(call, "pending")
        with self._lock:
            if call.id in self._running_exec:
                self._running_exec.remove(call.id)
            self._output.pop(call.id, None)
        shown = [*self._diffs.pop(call.id, []), *result_content(content)]
        self._send(update_tool_call(call.id, status="failed" if is_error else "completed",
                                    content=shown, raw_output=content[:4000]))

    def _tool_output(self, line: str) -> None:
        """A running command's output line: shown in its tool call."""
        with self._lock:
            if not self._running_exec:
                return
            call_id = self._running_exec[-1]
            lines = self._output.setdefault(call_id, [])
            lines.append(line.rstrip("\n"))
            del lines[:-OUTPUT_LINES]
            text = "\n".join(lines)
        self._send(update_tool_call(call_id, content=[tool_content(text_block(text))]))

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
        self._send(update_plan(plan_entries(items)))

    def _read(self, path: Path) -> str | None:
        try:
            if self.files is not None:
                return self.files.read_text(path)
            return path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    # ------------------------------------------------------------------ approvals

    def _approve(self, call: ToolCallPart, tool: Tool, verdict: Verdict) -> Approval:
        """Ask the editor whether ``call`` may run (any thread; blocks until it answers)."""
        from chatcli import Approval

        content: list[ToolCallContentVariant] = list(
            diff_contents(verdict.preview, self.workspace, self._read))
        self._diffs[call.id] = content
        shown = [*content]
        if verdict.reason:
            shown.append(tool_content(text_block(verdict.reason)))
        self._start(call, "pending", shown or None)
        always = f"Always allow ({verdict.rule})" if verdict.rule else "Allow for this session"
        options = [
            PermissionOption(option_id="once", name="Allow once", kind="allow_once"),
            PermissionOption(option_id="always", name=always, kind="allow_always"),
            PermissionOption(option_id="no", name="Reject", kind="reject_once"),
        ]
        request = ToolCallUpdate(
            tool_call_id=call.id, title=tool_title(call), status="pending",
            kind=tool_kind(call.name, str(tool.risk)), content=shown or None,
            locations=tool_locations(call, self.workspace), raw_input=_jsonable(call.arguments))
        session_id = self.id
        try:
            answer = self.outbox.ask(lambda: self.conn.request_permission(
                session_id=session_id, tool_call=request, options=options), self.cancel_event)
        except WaitCancelled:
            return Approval(False, reason="the turn was cancelled")
        except Exception as err:
            return Approval(False, reason=f"the editor did not answer ({err})")
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome) or outcome.option_id == "no":
            approval = Approval(False)
        elif outcome.option_id == "always":
            approval = Approval(True, "always" if verdict.rule else "session")
        else:
            approval = Approval(True)
        if not self._own_call(call):
            # a worker's call (chatcli-subagents): its run is not in this turn's events, so
            # the question's card is closed here, with the answer
            self._diffs.pop(call.id, None)
            self._send(update_tool_call(call.id, status="completed" if approval.allow
                                        else "failed"))
        return approval

    def _own_call(self, call: ToolCallPart) -> bool:
        """Whether ``call`` is one of the session's own answer (not a worker's)."""
        from chatcli import Role

        try:
            answer = self.session.conversation.last(Role.ASSISTANT)
        except Exception:
            return True
        return answer is None or any(c.id == call.id for c in answer.tool_calls)

    # ------------------------------------------------------------------ modes

    def read_mode(self) -> str:
        """The permission mode, as ``/permissions`` says it ("default" without the plugin)."""
        text = self.quiet("permissions", "")
        first = text.strip().splitlines()[0] if text.strip() else ""
        word = first.removeprefix("permission mode:").strip().split(" ")[0]
        return word if first.startswith("permission mode:") and word in MODES else "default"

    def set_mode(self, mode: str) -> None:
        """``/permissions MODE``; raises ValueError for a mode it does not take."""
        text = self.quiet("permissions", mode)
        if not text.startswith(f"permission mode: {mode} "):
            raise ValueError(text.strip() or f"unknown mode {mode!r}")
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
            self.say("nothing to retry\n")
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
        self.say(f"(your message, to send again if you want: {text[:200]})\n")

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


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _one_line(err: BaseException) -> str:
    """The error as the CLI's one line (redacted)."""
    from chatcli import redact

    text = " ".join(str(err).split()) or type(err).__name__
    return redact(text)
