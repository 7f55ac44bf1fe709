"""The REPL's state and its :class:`chatcli.ChatApp` implementation (what commands use)."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from chatcli import (
    Approval,
    Conversation,
    PluginHost,
    Role,
    Session,
    SessionOptions,
    Settings,
)

from chatcli_repl.view import Question, View

#: Items of the work queue: ("text", str) for a message or command, ("retry", "") for /retry.
WorkItem = tuple[str, str]


class ReplApp:
    """The running chat: its session, the work queue and the live view."""

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
        self.ui: Any = None  # the prompt-toolkit Application while a prompt is shown
        self.loop: Any = None  # its asyncio loop
        self._prefill = ""
        # Ctrl+C stops a turn even while the provider is silent or between two retries: the
        # engine watches the turn's cancel event (see run_turn).
        self.session = Session(host, settings, options, interactive=True, approver=self._approve)

    @property
    def settings(self) -> Settings:
        """The session's settings."""
        return self.session.settings

    @property
    def conversation(self) -> Conversation:
        """The current conversation."""
        return self.session.conversation

    # ---------------------------------------------------------------- ChatApp

    def set_conversation(self, conversation: Conversation) -> None:
        """Replace the current conversation; hooks observe the new one."""
        self.session.set_conversation(conversation)

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
        question = Question(title, list(options))
        self.view.question = question
        self.invalidate()
        question.done.wait()
        if self.view.waiting_since is not None:  # the time the user took is not the model's
            self.view.waiting_since = time.monotonic()
        self.view.question = None  # (after the clock: the spinner is back from here on)
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
        if tool.risk.value in self.allow:
            return Approval(True)
        args = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())[:60]
        why = f" — {verdict.reason}" if verdict.reason else ""
        answer = self.pick(f"Allow {tool.risk.value} tool {call.name}({args})?{why}",
                           ["allow once", f"allow all {tool.risk.value} tools this session",
                            "deny"])
        if answer == 1:
            self.allow.add(tool.risk.value)
        return Approval(answer in (0, 1), "session" if answer == 1 else "once")
