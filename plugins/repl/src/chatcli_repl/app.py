"""The REPL's state and its :class:`chatcli.ChatApp` implementation (what commands use)."""

from __future__ import annotations

import queue
import threading
from typing import Any

from chatcli import (
    Conversation,
    Engine,
    PluginHost,
    Role,
    Settings,
    attach_hooks,
    build_provider,
    choose_provider,
    find_provider,
)

from chatcli_repl.cancel import CancellableProvider, cancellable_sleep
from chatcli_repl.view import Question, View

#: Items of the work queue: ("text", str) for a message or command, ("retry", "") for /retry.
WorkItem = tuple[str, str]


class ReplApp:
    """The running chat: conversation, engine, the work queue and the live view."""

    def __init__(self, host: PluginHost, settings: Settings, console: Any,
                 conversation: Conversation, allow: set[str] | None = None) -> None:
        self.host = host
        self.settings = settings
        self.console = console
        self.conversation = conversation
        self.allow = set(allow or ())
        self.view = View(console)
        self.work: queue.Queue[WorkItem | None] = queue.Queue()
        self.busy = False
        self.exiting = False
        self.cancel: threading.Event | None = None
        self.ui: Any = None  # the prompt-toolkit Application while a prompt is shown
        self.loop: Any = None  # its asyncio loop
        self._prefill = ""
        spec = choose_provider(host, settings)
        provider, config = build_provider(spec, settings)
        # Ctrl+C stops a turn even while the provider is silent or between two retries.
        self.engine = Engine(host, settings, self._cancellable(provider), spec.name,
                             config.model, approver=self._approve, interactive=True,
                             max_retries=config.max_retries,
                             sleep=cancellable_sleep(lambda: self.cancel),
                             native_tools=spec.capabilities.native_tools)
        attach_hooks(conversation, host)

    # ---------------------------------------------------------------- ChatApp

    def switch(self, provider: str | None = None, model: str | None = None) -> None:
        """Use another provider and/or model from the next message on; history is kept."""
        spec = find_provider(self.host, provider or self.engine.provider_name)
        if model is None and provider is not None and provider != self.engine.provider_name:
            model = None  # the new provider's configured or default model
        elif model is None:
            model = self.engine.model
        new_provider, config = build_provider(spec, self.settings, model)
        self.engine.provider = self._cancellable(new_provider)
        self.engine.provider_name = spec.name
        self.engine.model = config.model
        self.engine.max_retries = config.max_retries
        self.engine.native_tools = spec.capabilities.native_tools

    def set_conversation(self, conversation: Conversation) -> None:
        """Replace the current conversation; hooks observe the new one."""
        old = self.conversation
        if old is not conversation:
            self.host.call("session_end", conversation=old)
        self.conversation = conversation
        attach_hooks(conversation, self.host)
        if old is not conversation:
            self.host.call("session_start", conversation=conversation, settings=self.settings)

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
        self.view.question = None
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

    def _cancellable(self, provider: Any) -> CancellableProvider:
        return CancellableProvider(provider, lambda: self.cancel)

    def _pick_without_ui(self, title: str, options: list[str]) -> int | None:
        from prompt_toolkit.shortcuts import choice

        try:
            return choice(message=title, options=list(enumerate(options)))
        except (KeyboardInterrupt, EOFError):
            return None

    def _approve(self, call: Any, tool: Any) -> bool:
        if tool.risk.value in self.allow:
            return True
        args = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())[:60]
        answer = self.pick(f"Allow {tool.risk.value} tool {call.name}({args})?",
                           ["allow once", f"allow all {tool.risk.value} tools this session",
                            "deny"])
        if answer == 1:
            self.allow.add(tool.risk.value)
        return answer in (0, 1)
