"""What a front end offers to slash commands.

The REPL plugin implements :class:`ChatApp`, and so does ``chatcli -p "/command …"`` (where
nobody can pick from a menu); slash commands contributed by plugins receive it as their first
argument and use only what is declared here. A front end that subclasses it gets ``settings``,
``conversation`` and ``set_conversation`` from its ``session``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rich.console import Console

    from chatcli._config import Settings
    from chatcli._conversation import Conversation
    from chatcli._engine import TurnFinished
    from chatcli._plugins import PluginHost
    from chatcli._session import Session

__all__ = ["ChatApp"]


@runtime_checkable
class ChatApp(Protocol):
    """The running chat, as slash commands see it."""

    console: Console
    """Where to print (rich); respects NO_COLOR and plain mode."""
    host: PluginHost
    """The plugin host (hooks, providers, tools, slash commands)."""
    session: Session
    """The session: ``session.provider_name``/``session.model`` tell what answers,
    ``session.switch(...)`` changes it, ``session.update_settings(...)`` changes a setting."""

    @property
    def settings(self) -> Settings:
        """The session's settings (read only: change them with ``session.update_settings``)."""
        return self.session.settings

    @property
    def conversation(self) -> Conversation:
        """The current conversation (its log, head and checkpoints)."""
        return self.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        """Replace the current conversation (load, new, fork); hooks start observing it."""
        self.session.set_conversation(conversation)

    def ask(self, text: str) -> TurnFinished | None:
        """Run a turn on ``text`` now, shown as every answer is, and return how it ended (None
        when it could not start). Slash commands run off the input loop, so this may block."""

    def submit(self, text: str) -> None:
        """Send ``text`` as if the user typed it (queued after any answer in progress)."""

    def retry(self) -> None:
        """Answer the last user message again (after a failure or an interruption)."""

    def pick(self, title: str, options: list[str]) -> int | None:
        """Let the user choose one of ``options`` in a menu; None when cancelled (Esc)."""

    def prefill(self, text: str) -> None:
        """Put ``text`` into the input line for the user to edit (e.g. after a rewind)."""

    def exit(self) -> None:
        """Leave the chat after the current command."""
