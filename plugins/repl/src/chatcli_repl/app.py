"""The REPL's state and its :class:`chatcli.ChatApp` implementation (what commands use)."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from chatcli import (
    Approval,
    ChatApp,
    PluginHost,
    Role,
    Session,
    SessionOptions,
    Settings,
    translation,
)
from chatcli_workspace import QuestionSlot

from chatcli_repl.view import Question, View

_, ngettext = translation(__name__)

#: Items of the work queue: ("text", str) for a message or command, ("retry", "") for /retry.
WorkItem = tuple[str, str]


#: Keys arriving this soon after an approval appears are ignored: they were typed for the
#: input line, not as an answer (ChatCLI's guard is the same 250 ms).
APPROVAL_GUARD = 0.25


#: the chat's question slot (one approval asked at a time; parallel workers wait their turn)
Turns = QuestionSlot


class ReplApp(ChatApp):
    """The running chat: its session, the work queue and the live view.

    ``live_trace`` tells slash commands (the agent modes) that every tool call is shown as it
    happens — name, arguments, result and time — so they need not print a trace of their own.
    """

    live_trace = True

    def __init__(self, host: PluginHost, settings: Settings, console: Any,
                 options: SessionOptions) -> None:
        self.host = host
        self.console = console
        self.allow = set(options.allow)  # risk classes (and rules, for a policy plugin)
        self.view = View(console)
        self.work: queue.Queue[WorkItem | None] = queue.Queue()
        self.busy = False
        self.exiting = False
        self.cancel: threading.Event | None = None
        #: the cancel event of the turn in progress (kept after it ends, until the next
        #: message or command: a worker of a stopped turn that still asks is refused)
        self.turn_cancel: threading.Event | None = None
        #: held while a question is on screen: approvals asked from several threads at once
        #: (workers' child runs, on the engine's pool threads) are asked one at a time
        self.asking = Turns()
        self.ui: Any = None  # the prompt-toolkit Application while a prompt is shown
        self.loop: Any = None  # its asyncio loop
        self._prefill = ""
        self._draft: Any = None  # the input line put aside while an approval is asked
        #: prints the answer streamed so far in full (set by run_turn while a turn runs)
        self.flush_answer: Any = None
        # Ctrl+C stops a turn even while the provider is silent or between two retries: the
        # engine watches the turn's cancel event (see run_turn). With --remote (chatcli-remote)
        # the session is a server's, offered as a Session is.
        remote = options.extra.get("remote")
        self.session = (Session if remote is None else remote.session)(
            host, settings, options, interactive=True, approver=self._approve,
            on_tool_output=self._tool_output)

    # ---------------------------------------------------------------- ChatApp
    # (settings, conversation and set_conversation come from ChatApp, through the session)

    def ask(self, text: str) -> Any:
        """Run a turn on ``text`` now (on the worker thread, where commands run), shown as
        usual; returns its ``TurnFinished``, or None when the text could not be sent."""
        from chatcli_repl.attach import user_message
        from chatcli_repl.turn import run_turn

        return run_turn(self, user_message(text))

    def submit(self, text: str) -> None:
        """Send ``text`` as if typed (queued after any answer in progress)."""
        self.enqueue(("text", text))

    def retry(self) -> None:
        """Answer the last user message again."""
        self.enqueue(("retry", ""))

    def pick(self, title: str, options: list[str]) -> int | None:
        """A menu above the input line; blocks the calling (worker) thread until answered."""
        if not options:
            return None
        if self.ui is None or threading.current_thread() is threading.main_thread():
            return self._pick_without_ui(title, options)
        return self.ask_question(Question(title, list(options)))

    def ask_question(self, question: Question, cancel: threading.Event | None = None
                     ) -> int | None:
        """Show ``question`` above the input line and wait (worker thread) for its answer; a
        question asked while another is on screen waits for it to be answered first. When
        ``cancel`` is set (the turn was stopped) the question is dismissed: None."""
        if not self._wait_turn(cancel):
            return None
        try:
            if cancel is not None and cancel.is_set():
                return None
            return self._ask(question, cancel)
        finally:
            self.asking.give_back()

    def _wait_turn(self, cancel: threading.Event | None) -> bool:
        """Take the question slot (True), or give up when ``cancel`` is set or the chat ends."""
        return self.asking.take(
            lambda: (cancel is not None and cancel.is_set()) or self.exiting)

    def _ask(self, question: Question, cancel: threading.Event | None) -> int | None:
        if question.guard and self.loop is not None:  # the line being typed goes aside first
            ready = threading.Event()

            def put_aside() -> None:
                try:
                    self.guard_input()
                finally:
                    ready.set()

            self.loop.call_soon_threadsafe(put_aside)
            ready.wait(2)
        self.view.question = question
        self.invalidate()
        while not question.done.wait(0.05):
            if (cancel is not None and cancel.is_set()) or self.exiting:
                question.settle(None)  # the turn stopped: nobody waits for this answer
        if self.view.waiting_since is not None:  # the time the user took is not the model's
            self.view.waiting_since = time.monotonic()
        self.view.question = None  # (after the clock: the spinner is back from here on)
        if question.guard:
            self._restore_draft()
        self.invalidate()
        return question.answer

    def prefill(self, text: str) -> None:
        """Put ``text`` into the input line for the user to edit."""
        self._prefill = text
        ui = self.ui
        if ui is not None and self.loop is not None:
            def apply() -> None:
                from prompt_toolkit.document import Document

                ui.current_buffer.document = Document(text, len(text))
                self._prefill = ""

            self.loop.call_soon_threadsafe(apply)

    def exit(self) -> None:
        """Leave the chat after the current command."""
        self.exiting = True
        ui = self.ui
        if ui is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(lambda: ui.is_running and ui.exit(exception=EOFError))

    # ---------------------------------------------------------------- helpers

    def take_prefill(self) -> str:
        """The text to start the next input line with (once)."""
        text, self._prefill = self._prefill, ""
        return text

    def run_now(self, line: str) -> None:
        """Run a ``/command`` at once on a thread of its own, beside any answer in progress
        (Shift+Tab's ``/permissions cycle``): it must not wait for the work queue."""
        from chatcli_repl.commands import dispatch

        def run() -> None:
            dispatch(self, line)
            self.refresh_status()

        threading.Thread(target=run, name="chatcli-command", daemon=True).start()

    def refresh_status(self) -> None:
        """Work out the status line again (model, permission mode, context use, spend) and
        redraw it; called when something it shows may have changed, never while drawing."""
        from chatcli_repl.status import status_line

        try:
            self.view.status_line = status_line(self)
        except Exception:  # a display never fails the chat
            return
        self.invalidate()

    def enqueue(self, item: WorkItem) -> None:
        """Queue work; shown as queued while an answer is in progress."""
        if item[0] == "text" and (self.busy or not self.work.empty()):
            with self.view.lock:
                self.view.queued.append(item[1])
        self.work.put(item)
        self.invalidate()

    def invalidate(self) -> None:
        """Ask the input line to redraw (any thread)."""
        ui = self.ui
        if ui is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(ui.invalidate)

    def last_user_text(self) -> str | None:
        """The text of the last user message on the current path."""
        from chatcli_repl.attach import typed_text

        message = self.conversation.last(Role.USER)
        return typed_text(message) if message else None

    def _pick_without_ui(self, title: str, options: list[str]) -> int | None:
        from prompt_toolkit.shortcuts import choice

        try:
            return choice(message=title, options=list(enumerate(options)))
        except (KeyboardInterrupt, EOFError):
            return None

    def _approve(self, call: Any, tool: Any, verdict: Any) -> Approval:
        """Ask whether a tool call may run: yes once, yes for the session, always (the rule a
        policy would save), no, or no with a reason that goes back to the model.

        Any thread may ask, several at once (workers run on the engine's pool threads): they
        are asked one at a time, each under a header naming the worker that asks. A question
        still waiting, or on screen, when the turn is stopped is answered "no"."""
        from chatcli_repl.approval_view import asker

        risk = tool.risk.value
        header, reason = asker(verdict.reason or "")
        # The kernel's own question (no policy plugin spoke) carries neither reason nor rule:
        # only then do risk classes pre-approved with --allow, or allowed for the session here,
        # answer it. A policy that asks with a reason (a dangerous command) is always asked.
        plain = not reason and not verdict.rule
        if plain and risk in self.allow:
            return Approval(True, "session")
        cancel = self.turn_cancel
        if not self._wait_turn(cancel):
            return Approval(False)
        try:
            if (cancel is not None and cancel.is_set()) or self.exiting:
                return Approval(False)  # a worker of a stopped turn: nobody is asked
            if plain and risk in self.allow:  # allowed while it waited its turn
                return Approval(True, "session")
            if self.loop is None or threading.current_thread() is threading.main_thread():
                return self._approve_without_ui(call, tool, verdict, header, reason)
            return self._approve_here(call, tool, verdict, header, reason, cancel)
        finally:
            self.asking.give_back()

    def _approve_here(self, call: Any, tool: Any, verdict: Any, header: str, reason: str,
                      cancel: threading.Event | None) -> Approval:
        """The approval menu above the input line (the question slot is this thread's)."""
        risk = tool.risk.value
        plain = not reason and not verdict.rule
        if self.flush_answer is not None:  # the question comes under the whole answer
            self.flush_answer()
        from chatcli_repl.approval_view import describe, print_rest

        # the diff it would apply (folded) or its arguments whole, printed above the question
        shown = describe(self.console, call.name, call.arguments,
                         getattr(verdict, "preview", None), header=header)
        choices: list[tuple[str, str]] = [("once", _("yes, once"))]
        if verdict.rule:
            choices.append(("session", _("yes, for this session ({rule})").format(
                rule=verdict.rule)))
            choices.append(("always", _("always: save the rule {rule}").format(
                rule=verdict.rule)))
        elif plain:
            choices.append(("session", _("yes, and allow all {risk} tools this session").format(
                risk=risk)))
        else:
            choices.append(("session", _("yes, for this session")))
        choices += [("no", _("no")), ("reason", _("no, and tell the model why…"))]
        if shown.hidden:
            choices.append(("all", ngettext("show the whole diff ({count:,} more line)",
                                            "show the whole diff ({count:,} more lines)",
                                            shown.hidden).format(count=shown.hidden)))
        title = _allow_title(risk, shown.brief, reason)
        while True:
            question = Question(title, [label for _scope, label in choices],
                                guard=APPROVAL_GUARD, header=header)
            answer = self.ask_question(question, cancel)
            scope = choices[answer][0] if answer is not None else "no"
            if scope != "all":
                break
            print_rest(self.console, shown)
            choices.pop()
        if scope == "reason":
            why_not = Question(_("Why not? Type it in the input line (the model reads it):"),
                               [], free_text=True, header=header)
            self.ask_question(why_not, cancel)
            return Approval(False, "once", why_not.text.strip() if why_not.answer is not None
                            else "")
        if scope == "no":
            return Approval(False)
        if scope == "session" and plain:
            self.allow.add(risk)
        return Approval(True, scope)

    def _approve_without_ui(self, call: Any, tool: Any, verdict: Any, header: str,
                            reason: str) -> Approval:
        from chatcli_repl.approval_view import describe

        if header:
            self.console.print(header, style="bold cyan", markup=False, highlight=False)
        describe(self.console, call.name, call.arguments, getattr(verdict, "preview", None),
                 limit=10_000)
        answer = self._pick_without_ui(_allow_title(tool.risk.value, call.name, reason),
                                       [_("yes, once"), _("no")])
        return Approval(answer == 0)

    def _tool_output(self, line: str) -> None:
        """A running tool's live output: dim above the input line, the last lines only."""
        self.view.add_tool_output(line)
        self.invalidate()

    # ---------------------------------------------------------------- type-ahead

    def guard_input(self) -> None:
        """An approval was just drawn (UI thread): what was typed before it must not answer it.
        Bytes the terminal still holds are flushed; the line being typed is put aside (it comes
        back after the answer)."""
        import contextlib
        import sys

        ui = self.ui
        # (not while the terminal owes an answer to a cursor-position request: flushing it
        # would make prompt-toolkit wait for it, then call the terminal unable to answer)
        if ui is None or not ui.renderer.waiting_for_cpr:
            with contextlib.suppress(Exception):  # not a terminal, or no termios (Windows)
                import termios

                termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
        if ui is None:
            return
        buffer = ui.current_buffer
        if buffer.text and self._draft is None:
            self._draft = buffer.document
        buffer.reset()

    def _restore_draft(self) -> None:
        draft, self._draft = self._draft, None
        ui = self.ui
        if draft is None or ui is None or self.loop is None:
            return

        def apply() -> None:
            if not ui.current_buffer.text:
                ui.current_buffer.document = draft

        self.loop.call_soon_threadsafe(apply)


def _allow_title(risk: str, brief: str, reason: str) -> str:
    """``Allow write tool edit(calc.py +1 −1)? — why the policy asks``."""
    if reason:
        # i18n: {risk} is the tool's risk class (read, write, exec…), as --allow names it
        return _("Allow {risk} tool {call}? — {reason}").format(risk=risk, call=brief,
                                                                  reason=reason)
    return _("Allow {risk} tool {call}?").format(risk=risk, call=brief)
