"""A real chatcli Session for the tests of one plugin: the OpenAI or Anthropic provider pointed at
a chatcli_testing wire server, the plugins under test registered on a fresh host, a captured
console, and the ChatApp slash commands receive.

Feature folders subclass :class:`HarnessChat` in their own support module (tests import it by
its bare name: ``tests/`` is on ``sys.path`` for every test, through ``pythonpath`` in
pyproject.toml).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Message,
    PluginHost,
    ProviderSettings,
    Session,
    SessionOptions,
    Settings,
    ToolFinished,
    TurnFinished,
)
from rich.console import Console

__all__ = ["HarnessApp", "HarnessChat", "chats", "system_of"]


class HarnessChat:
    """A session answering through ``server``, with ``plugins`` (name, plugin) registered after
    the provider and ``extra_plugins`` after them as ``extra0``, ``extra1``…

    ``settings`` are top-level settings (``memory={...}``); ``provider_options`` go into the
    provider's table beside its ``base_url``.
    """

    def __init__(self, server: Any, workspace: Path, *,
                 plugins: Iterable[tuple[str, Any]] = (), extra_plugins: Iterable[Any] = (),
                 provider: str = "openai", provider_options: dict[str, Any] | None = None,
                 options: SessionOptions | None = None, interactive: bool = False,
                 approver: Any = None, width: int = 300,
                 conversation: Conversation | None = None, **settings: Any) -> None:
        import chatcli_provider_anthropic.plugin as anthropic_plugin
        import chatcli_provider_openai.plugin as openai_plugin

        self.server, self.workspace = server, workspace
        self.warned: list[str] = []
        self.host = PluginHost(warn=self.warned.append)
        assert self.host.register(openai_plugin if provider == "openai" else anthropic_plugin,
                                  provider)
        for name, plugin in plugins:
            assert self.host.register(plugin, name)
        for index, plugin in enumerate(extra_plugins):
            assert self.host.register(plugin, f"extra{index}")
        table = ProviderSettings(base_url=server.url, **(provider_options or {}))
        self.settings = Settings(provider=provider, model="m", providers={provider: table},
                                 **settings)
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=width, color_system=None, no_color=True)
        self.session = Session(self.host, self.settings, options or SessionOptions(),
                               interactive=interactive, approver=approver,
                               workspace=workspace).open()
        if conversation is not None:
            self.session.set_conversation(conversation)
        self.events: list[Any] = []
        self.app = HarnessApp(self)

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        self.session.set_conversation(conversation)

    def slash(self, line: str, app: Any = None) -> str:
        """Run ``/name args`` as the chat does (with ``app``, else :attr:`app`); what it
        printed."""
        self.buffer.seek(0)
        self.buffer.truncate()
        name, _, argument = line.removeprefix("/").partition(" ")
        self.host.slash_commands()[name].run(app or self.app, argument.strip())
        return self.buffer.getvalue()

    def turn(self, text: str, *, check: bool = True, cancel: Any = None) -> TurnFinished:
        """One user turn; its end (``check``: it ended without an error)."""
        self.events = list(self.session.run(Message.user(text), cancel=cancel))
        finished = self.events[-1]
        assert isinstance(finished, TurnFinished), finished
        if check:
            assert finished.error is None, finished.error
        return finished

    def results(self) -> list[Any]:
        """The tool results of the last turn."""
        return [event.result for event in self.events if isinstance(event, ToolFinished)]

    def request(self) -> Any:
        """The request the next model call would send (built now, not sent)."""
        return self.session.engine.build_request(self.conversation)

    def close(self) -> None:
        self.session.close()


class HarnessApp:
    """The ChatApp a slash command receives; ``ask`` runs a turn now (and is recorded in
    :attr:`asked`), there is no menu to pick from and nothing to prefill or leave."""

    def __init__(self, chat: HarnessChat) -> None:
        self.chat = chat
        self.console = chat.console
        self.host = chat.host
        self.session = chat.session
        self.asked: list[str] = []

    @property
    def settings(self) -> Settings:
        return self.chat.session.settings

    @property
    def conversation(self) -> Conversation:
        return self.chat.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        self.chat.session.set_conversation(conversation)

    def ask(self, text: str) -> TurnFinished:
        self.asked.append(text)
        return self.chat.turn(text)

    def submit(self, text: str) -> None:
        self.ask(text)

    def retry(self) -> None:
        list(self.chat.session.run(None))

    def pick(self, title: str, options: list[str]) -> int | None:
        return None

    def prefill(self, text: str) -> None:
        """Nothing to fill."""

    def exit(self) -> None:
        """Nothing to leave."""


def system_of(request: Any) -> str:
    """The instructions of a recorded OpenAI or Anthropic request as the model reads them: the
    system prompt (the stable sections), then the volatile ones (the date, recall, an agent
    run's anchor), which travel after the history in the newest message's
    ``<system-reminder>`` — joined as one system prompt, in the order they had when all were in
    the system prompt (stable, then volatile). "" when there is no system prompt."""
    body = request.json or {}
    messages = body.get("messages") or []
    if "system" in body:
        system = body["system"]
        system = system if isinstance(system, str) else "\n\n".join(b["text"] for b in system)
    else:
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
    content = messages[-1].get("content") if messages else None
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict) and part.get("type") == "text")
    opening, closing = "<system-reminder>\n", "\n</system-reminder>"
    start = content.rfind(opening) if isinstance(content, str) else -1
    if start >= 0 and content.endswith(closing):
        reminder = content[start + len(opening):-len(closing)]
        system = f"{system}\n\n{reminder}" if system else reminder
    return system


def chats(make: Callable[..., HarnessChat]) -> Iterator[Callable[..., HarnessChat]]:
    """The body of a ``chat`` fixture: yields a factory that calls ``make(**options)`` and
    keeps the chat, then closes every chat it made (``yield from chats(...)``)."""
    made: list[HarnessChat] = []

    def factory(**options: Any) -> HarnessChat:
        made.append(make(**options))
        return made[-1]

    yield factory
    for chat in made:
        chat.close()
