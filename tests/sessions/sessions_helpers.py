"""Helpers shared by the sessions tests (a module of its own, so no conftest name clashes)."""

from __future__ import annotations

import io

from chatcli import Conversation, Message, PluginHost, Session, Settings, attach_hooks
from rich.console import Console


def new_conversation(host: PluginHost, max_checkpoints: int = 20) -> Conversation:
    """A conversation observed by the host's hooks, as the engine wires it."""
    conversation = Conversation(max_checkpoints=max_checkpoints)
    attach_hooks(conversation, host)
    return conversation


def turn(conversation: Conversation, question: str, answer: str | None = None) -> None:
    """One turn as the engine does it: checkpoint, user message, assistant answer."""
    conversation.checkpoint(question.strip().splitlines()[0])  # the engine's label
    conversation.append(Message.user(question))
    reply = Message.assistant(answer if answer is not None else f"answer to {question}")
    reply.provider, reply.model = "scripted", "m1"
    conversation.append(reply)


def path_texts(conversation: Conversation) -> list[str]:
    """The texts on the conversation's current path."""
    return [m.text for m in conversation.messages()]


class FakeApp:
    """A ChatApp for slash commands, as the REPL is one: a real :class:`chatcli.Session` (with
    the scripted provider answering) holds the conversation; pick/prefill are recorded and
    output goes to a string."""

    def __init__(self, host: PluginHost, settings: Settings | None = None) -> None:
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=200, color_system=None, no_color=True)
        self.host = host
        self.session = Session(host, settings or Settings(provider="scripted")).open()
        self.picks: list[int | None] = []
        self.pick_calls: list[tuple[str, list[str]]] = []
        self.prefilled: list[str] = []
        self.exited = False

    @property
    def settings(self) -> Settings:
        """The session's settings."""
        return self.session.settings

    @property
    def conversation(self) -> Conversation:
        """The session's current conversation."""
        return self.session.conversation

    def output(self) -> str:
        """Everything printed since the last call."""
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text

    def run(self, line: str) -> str:
        """Run a ``/command args`` line through the registered slash commands."""
        name, _, args = line.lstrip("/").partition(" ")
        self.host.slash_commands()[name].run(self, args)
        return self.output()

    def set_conversation(self, conversation: Conversation) -> None:
        self.session.set_conversation(conversation)

    def submit(self, text: str) -> None:
        raise NotImplementedError

    def retry(self) -> None:
        raise NotImplementedError

    def pick(self, title: str, options: list[str]) -> int | None:
        self.pick_calls.append((title, options))
        return self.picks.pop(0)

    def prefill(self, text: str) -> None:
        self.prefilled.append(text)

    def exit(self) -> None:
        self.exited = True
