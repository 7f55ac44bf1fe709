"""The :class:`chatcli.ChatApp` slash commands get when a client runs them on the server.

Its console is a rich ``Console`` writing into a buffer (the client's width, colour only when
asked), flushed as ``output`` events: before a menu, before a turn the command runs, and when
the command ends. ``pick`` becomes a ``question`` event any client may answer; ``ask``,
``submit`` and ``retry`` run turns on the command's thread, their events in the same stream;
``prefill`` sends a ``prefill`` event (the text a client puts back into its input line, after
``/rewind``). ``/cost``, ``/rewind``, ``/agents``, ``/compact`` and ``/permissions`` run
unchanged.
"""

from __future__ import annotations

import difflib
import io
import threading
from typing import TYPE_CHECKING, Any

from chatcli import ChatApp, ChatcliError, translation

if TYPE_CHECKING:
    from chatcli import PluginHost, Session, TurnFinished
    from rich.console import Console

    from chatcli_remote.hub import LiveSession

__all__ = ["ServedApp", "find_command"]

_, ngettext = translation(__name__)


def find_command(host: PluginHost, name: str) -> Any:
    """The slash command ``name`` (or that alias), or None."""
    commands = host.slash_commands()
    return commands.get(name) or next(
        (c for c in commands.values() if name in c.aliases), None)


class ServedApp(ChatApp):
    """A slash command's chat on the server: output and menus go to the live session's
    clients as events. ``live_trace``: tool calls reach the clients as they happen."""

    live_trace = True

    def __init__(self, live: LiveSession, cancel: threading.Event, *, width: int = 100,
                 color: bool = False) -> None:
        from rich.console import Console

        self.live = live
        self.host: PluginHost = live.hub.host
        self.session: Session = live.session
        self.cancel = cancel
        self.color = color
        self._buffer = io.StringIO()
        self.console: Console = Console(
            file=self._buffer, width=max(20, min(int(width), 500)), highlight=False,
            force_terminal=color, color_system="truecolor" if color else None,
            no_color=not color, soft_wrap=False, emoji=False)
        self._queued: list[str] = []

    # ---------------------------------------------------------------- output

    def flush(self) -> None:
        """Send what the console printed since the last flush as an ``output`` event."""
        text = self._buffer.getvalue()
        if text:
            self._buffer.seek(0)
            self._buffer.truncate()
            self.live.emit("output", {"text": text, "ansi": self.color})

    def say(self, text: str, style: str = "") -> None:
        """One plain line on the console."""
        self.console.print(text, style=style or None, markup=False, highlight=False)

    # ---------------------------------------------------------------- running a line

    def run_line(self, line: str) -> str | None:
        """Run ``/name args`` (then what the command submitted); the error's one line when the
        command failed, else None. Unknown names get a suggestion, as in the chat."""
        text = line.strip()
        name, _sep, argument = text.removeprefix("/").partition(" ")
        command = find_command(self.host, name) if name else None
        if command is None:
            names = sorted({*self.host.slash_commands(),
                            *(a for c in self.host.slash_commands().values() for a in c.aliases)})
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
            if close:
                said = _("unknown command /{name} — did you mean /{suggestion}?").format(
                    name=name, suggestion=close[0])
            else:
                said = _("unknown command /{name} — /help lists the commands").format(name=name)
            self.say(said, "yellow")
            return _("unknown command /{name}").format(name=name)
        error: str | None = None
        try:
            if command.name == "retry" and not argument.strip():
                self.retry()  # (the chat's own /retry drives the chat's screen)
            else:
                command.run(self, argument.strip())
        except ChatcliError as err:
            error = str(err)
            self.say(f"✗ {err}", "red")
        except Exception as err:  # a plugin's command must not end the server
            error = _("/{command} failed: {error}: {reason}").format(
                command=command.name, error=type(err).__name__, reason=err)
            self.say(f"✗ {error}", "red")
        while self._queued and not self.cancel.is_set():
            self.ask(self._queued.pop(0))
        return error

    # ---------------------------------------------------------------- ChatApp
    # (settings, conversation and set_conversation come from ChatApp, through the session)

    def ask(self, text: str) -> TurnFinished | None:
        """Run a turn on ``text`` now, its events in this command's stream."""
        from chatcli import Message

        return self._turn(Message.user(text))

    def _turn(self, message: Any) -> TurnFinished | None:
        self.flush()
        finished, error = self.live.run_engine(message, self.cancel)
        if error is not None:
            self.say(f"✗ {error}", "red")
        elif finished is not None and finished.error is not None:
            self.say(f"✗ {finished.error}", "red")
        return finished  # type: ignore[no-any-return]

    def submit(self, text: str) -> None:
        """Send ``text`` after the command (in the same stream)."""
        self._queued.append(text)

    def retry(self) -> None:
        """Answer the last user message again."""
        from chatcli import Role

        user = self.conversation.last(Role.USER)
        if user is None:
            self.say(_("nothing to retry"), "yellow")
            return
        if self.conversation.head != user.id:
            self.conversation.move_head(user.id, "retry")
        self._turn(None)

    def pick(self, title: str, options: list[str]) -> int | None:
        """A ``question`` event; blocks until a client chooses (None: cancelled, the command
        stopped, or nobody answered in time)."""
        self.flush()
        return self.live.pick(title, list(options), self.cancel)

    def prefill(self, text: str) -> None:
        """A ``prefill`` event: the text for the client's input line (after a rewind)."""
        self.flush()
        self.live.emit("prefill", {"text": text})

    def exit(self) -> None:
        """Nothing to leave: the session stays live on the server (a client closes itself)."""
        self.say(_("the session stays open on the server (close the client to leave)"), "dim")
