"""The input line: prompt-toolkit session with history, multi-line keys, completion and menus."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import data_dir, translation
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings

if TYPE_CHECKING:
    from chatcli_repl.app import ReplApp

_, ngettext = translation(__name__)


class ChatCompleter(Completer):
    """Completes ``/commands``, their sub-commands, ``@path`` file references, and — for an
    ``@`` that begins the message — the ``@name`` mentions slash commands offer (personas)."""

    def __init__(self, app: ReplApp) -> None:
        self.app = app

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        text = document.text_before_cursor
        if text.startswith("/"):
            yield from self._commands(text)
            return
        word = text.split()[-1] if text and not text[-1].isspace() else ""
        if word.startswith("@"):
            if text.lstrip() == word:  # the message's first word: whom it is addressed to
                yield from self._mentions(word[1:])
            yield from self._paths(word[1:])

    def _mentions(self, partial: str) -> Iterator[Completion]:
        """The ``@name`` mentions of every slash command that offers some."""
        found: dict[str, str] = {}
        for command in self.app.host.slash_commands().values():
            mentions = getattr(command, "mentions", None)
            if mentions is None:
                continue
            with contextlib.suppress(Exception):  # a plugin's list must not break typing
                for name, description in mentions(self.app):
                    found.setdefault(str(name), str(description))
        wanted = partial.lower()
        for name in sorted(found):
            if name.lower().startswith(wanted):
                yield Completion(name, -len(partial), display="@" + name,
                                 display_meta=found[name][:60])

    def _commands(self, text: str) -> Iterator[Completion]:
        commands = self.app.host.slash_commands()
        if " " not in text:
            names: dict[str, str] = {}
            for command in commands.values():
                names[command.name] = command.help
                for alias in command.aliases:
                    names.setdefault(alias, command.help)
            for name in sorted(names):
                if name.startswith(text[1:]):
                    yield Completion("/" + name, -len(text), display_meta=names[name][:60])
            return
        head, _, rest = text.partition(" ")
        command = _find(commands, head[1:])
        if command is None:
            return
        # Sub-commands complete the first word; a plugin's completer gets the whole argument
        # text and returns full replacements of it (``load s_1a2b`` for ``load s_``).
        candidates = [] if " " in rest else list(command.subcommands)
        if command.complete is not None:
            with contextlib.suppress(Exception):  # a plugin's completer must not break typing
                candidates += list(command.complete(self.app, rest))
        for candidate in dict.fromkeys(candidates):
            if candidate.startswith(rest):
                yield Completion(candidate, -len(rest))

    def _paths(self, partial: str) -> Iterator[Completion]:
        folder, _, stem = partial.rpartition("/")
        base = Path(folder or ".").expanduser()
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
                continue
            suffix = "/" if entry.is_dir() else ""
            path = f"{folder}/{entry.name}" if folder else entry.name
            yield Completion(path + suffix, -len(partial), display=entry.name + suffix)


def _find(commands: dict[str, Any], name: str) -> Any:
    if name in commands:
        return commands[name]
    for command in commands.values():
        if name in command.aliases:
            return command
    return None


def key_bindings(app: ReplApp) -> KeyBindings:
    """Newline keys, Ctrl+C while answering, Esc Esc for /rewind, Shift+Tab for the permission
    mode, and menu keys (approvals ignore keys typed ahead of them)."""
    from prompt_toolkit.keys import Keys

    bindings = KeyBindings()
    busy = Condition(lambda: app.busy)
    asking = Condition(lambda: app.view.open_question() is not None)

    def _early() -> bool:
        question = app.view.open_question()
        return question is not None and question.too_early()

    early = Condition(_early)

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    # Keys that reach an approval in its first moments were typed for the input line: they are
    # dropped (letters and digits too, so they cannot build an answer). Ctrl+C still stops.
    @bindings.add(Keys.Any, filter=early)
    @bindings.add(Keys.BracketedPaste, filter=early)
    def _typed_ahead(event: Any) -> None:
        """Ignored."""

    # eager: Esc in a menu acts at once, instead of waiting a second for Esc Enter / Esc Esc
    # (keys typed in that second were swallowed with the Esc).
    @bindings.add("escape", filter=asking, eager=True)
    def _cancel_question(event: Any) -> None:
        question = app.view.open_question()
        if question is not None and not question.too_early():
            question.settle(None)

    @bindings.add("c-c", filter=asking)
    def _stop_at_question(event: Any) -> None:
        # Ctrl+C always stops: at a tool approval it denies the call *and* ends the answer
        # (Esc only declines, and the model goes on).
        _stop(event)
        question = app.view.open_question()
        if question is not None:
            question.settle(None)

    @bindings.add("up", filter=asking & ~early)
    def _up(event: Any) -> None:
        question = app.view.open_question()
        if question is not None and question.options:
            question.selected = (question.selected - 1) % len(question.options)

    @bindings.add("down", filter=asking & ~early)
    def _down(event: Any) -> None:
        question = app.view.open_question()
        if question is not None and question.options:
            question.selected = (question.selected + 1) % len(question.options)

    @bindings.add("enter", filter=asking)
    def _answer(event: Any) -> None:
        question = app.view.open_question()
        if question is None or question.too_early():
            return
        typed = event.current_buffer.text.strip()
        if question.free_text:
            question.text = typed
            event.current_buffer.reset()
            question.settle(0)
            return
        if typed.isdigit() and 1 <= int(typed) <= len(question.options):
            choice = int(typed) - 1
        elif not typed:
            choice = question.selected
        else:
            question.hint = _("'{typed}' is not a choice: type 1 to {count}").format(
                typed=typed[:40], count=len(question.options))
            event.current_buffer.reset()
            return
        event.current_buffer.reset()
        question.settle(choice)

    @bindings.add("c-c", filter=busy & ~asking)
    def _stop(event: Any) -> None:
        """Cancel the answer in progress (the engine keeps what arrived, marked interrupted)."""
        if app.cancel is not None:
            app.cancel.set()
            app.view.status = _("stopping…")

    @bindings.add("c-c", filter=~busy & ~asking)
    def _clear_line(event: Any) -> None:
        # Ctrl+C clears a typed line; on an empty line it reminds how to leave.
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt)

    @bindings.add("escape", "escape", filter=~asking)
    def _rewind(event: Any) -> None:
        if "rewind" in app.host.slash_commands():
            app.submit("/rewind")

    @bindings.add("s-tab", filter=~asking)
    def _cycle_permissions(event: Any) -> None:
        # The permission mode changes at once, even while an answer streams (the next tool
        # call is decided in the new mode), so the command does not wait in the work queue.
        if "permissions" in app.host.slash_commands():
            app.run_now("/permissions cycle")

    return bindings


def build_session(app: ReplApp) -> PromptSession[str]:
    """The prompt session: persistent history in the data dir, completion, bindings."""
    history_file = data_dir() / "history"
    try:
        history_file.parent.mkdir(parents=True, exist_ok=True)
        history: Any = FileHistory(str(history_file))
    except OSError:
        from prompt_toolkit.history import InMemoryHistory

        history = InMemoryHistory()

    def guard() -> None:  # drawn inside a render: change the input line just after it
        if app.loop is not None:
            app.loop.call_soon(app.guard_input)

    app.view.on_guarded_menu = guard
    from prompt_toolkit.styles import Style

    return PromptSession(
        message=app.view.message,
        # the status line: dim, not prompt-toolkit's reverse-video bar
        bottom_toolbar=app.view.toolbar,
        style=Style.from_dict({"bottom-toolbar": "noreverse",
                               "bottom-toolbar.text": "noreverse",
                               "status-line": "fg:ansibrightblack noreverse"}),
        history=history,
        completer=ChatCompleter(app),
        complete_while_typing=True,
        key_bindings=key_bindings(app),
        erase_when_done=True,
        enable_history_search=False,
        reserve_space_for_menu=4,
    )
