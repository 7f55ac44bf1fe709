"""The in-chat commands: ``/session …``, ``/rewind`` and ``/fork``.

Each receives the running chat (:class:`chatcli.ChatApp`) and the text after the command.
Failures print one line and change nothing.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import ChatcliError, Role, SlashCommand, TextPart, UsageError, translation

from chatcli_sessions.export import FORMATS, render

if TYPE_CHECKING:
    from chatcli import ChatApp, Checkpoint, Conversation, Message
    from chatcli_sessions_api import SessionStore
    from chatcli_sessions_api.records import SessionInfo

__all__ = ["SESSION_SUBCOMMANDS", "complete_session", "slash_commands"]

_, ngettext = translation(__name__)

SESSION_SUBCOMMANDS = ["new", "save", "load", "list", "delete", "fork", "export", "search"]

SESSION_HELP = _(
    "sessions: /session new | save NAME | load [--all] [ID] | list [--all] | delete ID | fork | "
    "export [markdown|json] [PATH] | search TEXT"
)


def _store() -> SessionStore:
    from chatcli_sessions.stores import get_store

    return get_store()


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def when(timestamp: float) -> str:
    """A short local time: ``14:05`` today, ``Mar 03 14:05`` otherwise."""
    moment = _dt.datetime.fromtimestamp(timestamp)
    if moment.date() == _dt.date.today():
        return moment.strftime("%H:%M")
    return moment.strftime("%b %d %H:%M")


def _say(app: ChatApp, text: str) -> None:
    app.console.print(text)


def _fail(app: ChatApp, err: ChatcliError) -> None:
    app.console.print(_("[red]error:[/red] {error}").format(error=_esc(str(err))))


def _guarded(action: Callable[[ChatApp, str], Any]) -> Callable[[ChatApp, str], Any]:
    def run(app: ChatApp, args: str) -> Any:
        try:
            return action(app, args)
        except ChatcliError as err:
            _fail(app, err)
            return None

    run.__doc__ = action.__doc__
    return run


def _new_conversation(app: ChatApp) -> Conversation:
    from chatcli import Conversation

    return Conversation(max_checkpoints=app.settings.max_checkpoints)


#: How many sessions ``/session list`` and ``/session load`` show.
LIST_LIMIT = 30


def _all_flag(args: str) -> tuple[bool, str]:
    """``(--all given, the other words)`` of a ``/session list|load`` argument."""
    words = args.split()
    every = any(w in ("--all", "-a") for w in words)
    return every, " ".join(w for w in words if w not in ("--all", "-a"))


def _session_list(app: ChatApp, args: str) -> None:
    from rich.table import Table

    from chatcli_sessions.project import age, current_project, shown_folder

    every, _rest = _all_flag(args)
    store = _store()
    project = None if every else current_project()
    sessions = store.list(limit=LIST_LIMIT, project=project)
    others = store.count() - store.count(project) if project is not None else 0
    more = ngettext("({count} in other projects: /session list --all)",
                    "({count} in other projects: /session list --all)",
                    others).format(count=others) if others else ""
    if not sessions:
        if not project:
            _say(app, _("No saved sessions yet."))
        elif not others:
            _say(app, _("No saved sessions in this project ({folder}) yet.").format(
                folder=_esc(shown_folder(project))))
        else:
            _say(app, ngettext(
                "No saved sessions in this project ({folder}) yet. ({count} in other projects: "
                "/session list --all)",
                "No saved sessions in this project ({folder}) yet. ({count} in other projects: "
                "/session list --all)", others).format(folder=_esc(shown_folder(project)),
                                                        count=others))
        return
    current = app.conversation.id
    rows = [["*" if info.id == current else "", info.id, info.name or "",
             info.title or _("(untitled)"), str(info.messages), age(info.updated_at),
             shown_folder(info.project) if info.project else _("(no project)")]
            for info in sessions]
    # i18n: the column headers of /session list (lower case)
    headers = ["", _("id"), _("name"), _("title"), _("msgs"), _("updated"), _("folder")]
    if not app.console.is_terminal:  # -p, piped: one line per session, nothing cut
        _print_plain(app, [headers[:3] + headers[4:] + headers[3:4],
                           *(row[:3] + row[4:] + row[3:4] for row in rows)])
    else:
        table = Table(box=None, pad_edge=False, show_edge=False)
        for column in headers:
            table.add_column(column, no_wrap=column != headers[3], overflow="ellipsis")
        for row in rows:
            table.add_row(*(_esc(cell) for cell in row))
        app.console.print(table)
    if more:
        _say(app, f"[dim]{_esc(more)}[/dim]")


def _print_plain(app: ChatApp, rows: list[list[str]]) -> None:
    """``rows`` as lines of columns lined up with spaces, the last column whole."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        app.console.print("  ".join([*cells, row[-1]]).rstrip(), markup=False, highlight=False,
                          soft_wrap=True)


def _session_new(app: ChatApp, _args: str) -> None:
    app.set_conversation(_new_conversation(app))
    _say(app, _("Started a new session (saved once it has an answer)."))


def _session_save(app: ChatApp, args: str) -> None:
    name = args.strip() or None
    _store().save(app.conversation, name)
    if name:
        app.conversation.metadata["session_name"] = name
    if name:
        _say(app, _("Saved session {session} as {name}.").format(session=app.conversation.id,
                                                                  name=_esc(name)))
    else:
        _say(app, _("Saved session {session}.").format(session=app.conversation.id))


def _pick_session(app: ChatApp, title: str, every: bool = False) -> SessionInfo | None:
    """A menu of this project's sessions, newest first, the last entry opening every
    project's (with ``every``: every project's at once)."""
    from chatcli_sessions.choose import describe
    from chatcli_sessions.project import current_project, shown_folder

    store = _store()
    project = current_project()
    sessions = [] if every else store.list(limit=LIST_LIMIT, project=project)
    others = 0 if every else store.count() - store.count(project)
    if not sessions:
        if not every and others:
            _say(app, _("No saved session in this project ({folder}); sessions of every "
                        "project:").format(folder=_esc(shown_folder(project))))
        sessions = store.list(limit=LIST_LIMIT)
        others = 0
    if not sessions:
        _say(app, _("No saved sessions yet."))
        return None
    options = [describe(s) for s in sessions]
    if others:
        options.append(ngettext("every project… ({count} more in other projects)",
                                "every project… ({count} more in other projects)",
                                others).format(count=others))
    choice = app.pick(title, options)
    if choice is None:
        return None
    if choice == len(sessions):  # every project's
        return _pick_session(app, title, every=True)
    return sessions[choice]


def _session_load(app: ChatApp, args: str) -> None:
    store = _store()
    info: SessionInfo | None
    every, ref = _all_flag(args)
    if ref:
        info = store.resolve(ref)
    else:
        info = _pick_session(app, _("Load which session?"), every)
        if info is None:
            return
    conversation = store.load(info.id, max_checkpoints=app.settings.max_checkpoints, resume=True)
    app.set_conversation(conversation)
    shown = len(conversation.messages())
    _say(app, ngettext("Loaded session {session}: {title} ({count} messages).",
                       "Loaded session {session}: {title} ({count} messages).", shown).format(
        session=info.id, title=_esc(info.title or _("(untitled)")), count=shown))
    last_user = conversation.last(Role.USER)
    if last_user is not None:
        _say(app, "[dim]" + _("last message: {text}").format(
            text=_esc(last_user.text.strip()[:100])) + "[/dim]")


def _session_delete(app: ChatApp, args: str) -> None:
    store = _store()
    if not args.strip():
        raise UsageError(_("which session?"), _("use /session delete ID (see /session list)"))
    info = store.resolve(args.strip())
    store.delete(info.id)
    _say(app, _("Deleted session {session} ({title}).").format(
        session=info.id, title=_esc(info.title or _("untitled"))))
    if info.id == app.conversation.id:
        app.set_conversation(_new_conversation(app))
        _say(app, _("That was the current session; started a new one."))


def _fork(app: ChatApp, _args: str) -> None:
    source = app.conversation
    if not source.messages():
        raise UsageError(_("nothing to fork yet"), _("send a message first"))
    forked = _store().fork(source)
    app.set_conversation(forked)
    _say(app, _("Forked into session {session} (from {source}); you are now in the fork.").format(
        session=forked.id, source=source.id))


def _session_export(app: ChatApp, args: str) -> None:
    from chatcli import atomic_write

    words = args.split(maxsplit=1)
    if words and words[0].lower() in (*FORMATS, "md"):
        fmt = words.pop(0).lower()
    else:  # no format named: the file's suffix tells (out.json), else markdown
        fmt = "json" if words and words[0].lower().endswith(".json") else "markdown"
    conversation = app.conversation
    suffix = ".json" if fmt == "json" else ".md"
    target = Path(words[0]).expanduser() if words else Path.cwd() / f"{conversation.id}{suffix}"
    if target.is_dir():
        target = target / f"{conversation.id}{suffix}"
    text = render(conversation, fmt, _store().info(conversation.id))
    try:
        atomic_write(target, text)
    except OSError as err:
        raise UsageError(_("cannot write {path}: {reason}").format(path=target,
                                                                    reason=err.strerror),
                         _("choose another path")) from None
    _say(app, _("Exported session {session} ({format}) to {path}.").format(
        session=conversation.id, format=fmt, path=_esc(str(target))))


def _session_search(app: ChatApp, args: str) -> None:
    if not args.strip():
        raise UsageError(_("search for what?"), _("use /session search TEXT"))
    hits = _store().search(args, limit=20)
    if not hits:
        _say(app, _("No messages match {text}.").format(text=_esc(args.strip())))
        return
    for hit in hits:
        _say(
            app,
            f"[bold]{hit.session_id}[/bold] [dim]{_esc(hit.session_title[:40])} · {hit.role} · "
            f"{when(hit.created_at)}[/dim]\n  {_esc(hit.snippet)}",
        )


_SESSION_ACTIONS: dict[str, Callable[[ChatApp, str], None]] = {
    "new": _session_new,
    "save": _session_save,
    "load": _session_load,
    "list": _session_list,
    "delete": _session_delete,
    "fork": _fork,
    "export": _session_export,
    "search": _session_search,
}


def _session(app: ChatApp, args: str) -> None:
    """Dispatch ``/session SUB ARGS``."""
    words = args.strip().split(maxsplit=1)
    if not words:
        conversation = app.conversation
        info = _store().info(conversation.id)
        count = len(conversation.messages())
        if info:
            said = ngettext("Session {session} (saved), {count} messages.",
                            "Session {session} (saved), {count} messages.", count)
        else:
            said = ngettext("Session {session} (not saved yet), {count} messages.",
                            "Session {session} (not saved yet), {count} messages.", count)
        _say(app, said.format(session=conversation.id, count=count))
        _say(app, f"[dim]{_esc(SESSION_HELP)}[/dim]")
        return
    sub, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
    action = _SESSION_ACTIONS.get(sub)
    if action is None:
        import difflib

        close = difflib.get_close_matches(sub, SESSION_SUBCOMMANDS, n=1)
        hint = (_("did you mean /session {command}?").format(command=close[0]) if close
                else SESSION_HELP)
        raise UsageError(_("unknown /session command {command!r}").format(command=sub), hint)
    action(app, rest)


def complete_session(app: ChatApp, text: str) -> list[str]:
    """Completions for the argument text of ``/session`` (each a full replacement of it)."""
    words = text.split()
    if not words or (len(words) == 1 and not text.endswith(" ")):
        prefix = words[0] if words else ""
        return [s for s in SESSION_SUBCOMMANDS if s.startswith(prefix)]
    sub = words[0]
    partial = "" if text.endswith(" ") else words[-1]
    if sub in ("load", "delete") and len(words) <= 2:
        from chatcli_sessions.project import current_project

        try:  # this project's first
            store = _store()
            sessions = store.list(limit=LIST_LIMIT, project=current_project())
            sessions += store.list(limit=LIST_LIMIT)
        except ChatcliError:
            return []
        refs = list(dict.fromkeys([s.id for s in sessions] + [s.name for s in sessions
                                                              if s.name]))
        return [f"{sub} {r}" for r in refs if r.startswith(partial)]
    if sub == "export" and len(words) <= 2:
        return [f"export {f}" for f in FORMATS if f.startswith(partial)]
    return []


# ------------------------------------------------------------------ /rewind


def _followers(conversation: Conversation) -> dict[str, Message]:
    """The message that followed each checkpoint, by checkpoint id.

    The engine takes a checkpoint right before appending a message to its head, so newest
    first each checkpoint gets the newest child of its head, in append order, that no newer
    checkpoint took. Order decides, not timestamps: the user's message is made before its
    checkpoint, a coarse clock gives siblings the same time, and a clock stepped between a
    checkpoint and its message made an older sibling look closer. Newest first, because the
    oldest checkpoints are the ones pruned.
    """
    children: dict[str | None, list[Message]] = {}
    for message in conversation.all_messages():  # append order
        children.setdefault(message.parent_id, []).append(message)
    followers: dict[str, Message] = {}
    for checkpoint in reversed(conversation.checkpoints):
        waiting = children.get(checkpoint.head)
        if waiting:
            followers[checkpoint.id] = waiting.pop()
    return followers


def on_current_path(conversation: Conversation) -> list[tuple[Checkpoint, Message]]:
    """The checkpoints ``/rewind`` offers, newest first, each with the message that followed it.

    Only checkpoints whose message is on the current path (root to head) count: after a rewind
    and new messages, the checkpoints of the abandoned branch would lead back into it, and one
    that nothing followed yet would not move the conversation at all.
    """
    on_path = {m.id for m in conversation.messages()}
    followers = _followers(conversation)
    found = []
    for checkpoint in reversed(conversation.checkpoints):
        message = followers.get(checkpoint.id)
        if message is not None and message.id in on_path:
            found.append((checkpoint, message))
    return found


def _prompt_text(checkpoint: Checkpoint, message: Message) -> str:
    """What to put back in the input: what was typed for ``message`` (else the label).

    What was typed is the message's first text part (later ones are attached files, @path) —
    unless a command sent it: a command that turns what was typed into a prompt (``/coder fix
    the bug`` sends ``fix the bug``) labels the checkpoint with the command line as typed, and
    the command goes back in front of the text.
    """
    if message.role != Role.USER:
        return checkpoint.label
    typed = next((p.text for p in message.parts if isinstance(p, TextPart)), None)
    text = message.text if typed is None else typed
    return command_prefix(checkpoint.label, text) + text


def command_prefix(label: str, text: str) -> str:
    """The command in front of ``text`` in a checkpoint ``label`` (``/coder --max-steps 5 ``
    for the label ``/coder --max-steps 5 fix it`` and the text ``fix it``), else ``""``.

    The label holds the start of the command line (its first line, cut at 80 characters);
    the command is what comes before the part of the label that starts ``text``.
    """
    if not label.startswith("/") or text.startswith("/"):
        return ""
    for at in range(1, len(label)):
        if label[at - 1].isspace() and label[at:] and text.startswith(label[at:]):
            return label[:at]
    return ""


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else _("(empty)")


REWIND_USAGE = _(
    "/rewind (menu) | /rewind last | /rewind N (1 = the newest) | /rewind ID, each optionally "
    "with code (files only) or conversation (conversation only) | /rewind undo"
)

#: The words that say what a rewind restores ("both" is the default when files changed).
_REWIND_MODES = {
    "both": "both", "all": "both", "--both": "both", "--all": "both",
    "code": "code", "code-only": "code", "--code-only": "code", "files": "code",
    "conversation": "conversation", "conversation-only": "conversation",
    "--conversation-only": "conversation", "chat": "conversation", "--no-code": "conversation",
}
_MODE_CHOICES = [("both", _("conversation and code")), ("conversation", _("conversation only")),
                 ("code", _("code only"))]


def _interactive(app: ChatApp) -> bool:
    """Whether a person runs this chat (the REPL), not a one-shot ``-p`` run."""
    return bool(getattr(getattr(app, "session", None), "interactive", False))


def _parse_rewind(args: str) -> tuple[str | None, str | None]:
    """``(checkpoint, mode)`` from ``/rewind``'s words (``last code``, ``2``, ``cp_1f chat``)."""
    target: str | None = None
    mode: str | None = None
    for word in args.split():
        found = _REWIND_MODES.get(word.lower())
        if found is not None:
            if mode is not None and mode != found:
                raise UsageError(_("/rewind: {word!r} contradicts the earlier word").format(
                    word=word), REWIND_USAGE)
            mode = found
        elif target is None:
            target = word
        else:
            raise UsageError(_("/rewind takes one checkpoint, not {first!r} and {second!r}"
                               ).format(first=target, second=word), REWIND_USAGE)
    return target, mode


def _find_checkpoint(choices: list[tuple[Checkpoint, Message]], target: str
                     ) -> tuple[Checkpoint, Message]:
    if target.lower() == "last":
        for checkpoint, message in choices:
            if message.role == Role.USER:
                return checkpoint, message
        raise UsageError(_("no message of yours to rewind to"), _("use /rewind for a menu"))
    if target.isdigit() and 1 <= int(target) <= len(choices):
        return choices[int(target) - 1]
    # an id prefix (hex: it may be all digits, "/rewind 409817"); a short number is a number
    as_id = len(target) >= 4 or not target.isdigit()
    matches = [c for c in choices if as_id and (
        c[0].id.startswith(target) or c[0].id.startswith(f"cp_{target}"))]
    if len(matches) == 1:
        return matches[0]
    if target.isdigit() and not matches:
        raise UsageError(ngettext("there is {count} checkpoint to rewind to, not {number}",
                                  "there are {count} checkpoints to rewind to, not {number}",
                                  len(choices)).format(count=len(choices), number=int(target)),
                         _("give 1 (the newest) to {count}").format(count=len(choices)))
    raise UsageError(_("no single checkpoint matches {target!r}").format(target=target),
                     _("use /rewind for a menu"))


def _list_checkpoints(app: ChatApp, choices: list[tuple[Checkpoint, Message]]) -> None:
    """What a one-shot run could not ask: which argument to give, and the checkpoints."""
    _say(app, _("Give the checkpoint as the argument: /rewind last (before your last message), "
                "/rewind N (1 = the newest below) or /rewind ID; add code or conversation to "
                "restore only that part."))
    for number, (checkpoint, _message) in enumerate(choices[:10], 1):
        _say(app, f"  {number:>2}  {checkpoint.id}  {when(checkpoint.created_at)}  "
                  f"{_esc(_first_line(checkpoint.label))}")
    if len(choices) > 10:
        older = len(choices) - 10
        _say(app, "  " + ngettext("… and {count} older", "… and {count} older", older).format(
            count=older))


def _rewind_to(app: ChatApp, checkpoint: Checkpoint, message: Message,
               files: str | None = None) -> None:
    app.conversation.rewind(checkpoint.id)
    app.prefill(_prompt_text(checkpoint, message))
    _say(
        app,
        _("Rewound to before “{label}” ({time}); the message is back in the input. /rewind "
          "undo goes back.").format(label=_esc(_first_line(checkpoint.label)),
                                    time=when(checkpoint.created_at)),
    )
    if files:
        _say(app, _esc(files))


def _rewind_undo(app: ChatApp) -> None:
    conversation = app.conversation
    head = conversation.head
    undone = conversation.undo()
    files = app.host.hook.workspace_undo(conversation=conversation)
    if undone and (conversation.head != head or not files):
        count = len(conversation.messages())
        _say(app, ngettext("Undone: the conversation is back to {count} messages.",
                           "Undone: the conversation is back to {count} messages.",
                           count).format(count=count))
    if files:
        _say(app, _esc(files))
    if not undone and not files:
        _say(app, _("Nothing to undo."))


def _restore_files(app: ChatApp, restore: Callable[[], str]) -> str | None:
    """Run a restore point's ``restore``; None (and one line said) when it failed."""
    try:
        return restore()
    except Exception as err:  # a plugin's restore: say so, rewind nothing
        _say(app, _("[red]error:[/red] the files could not be restored ({kind}: {error}); "
                    "nothing was rewound.").format(kind=_esc(type(err).__name__),
                                                   error=_esc(str(err))))
        return None


def _rewind(app: ChatApp, args: str) -> None:
    """``/rewind`` (menu), ``/rewind last|N|ID [code|conversation]``, ``/rewind undo``."""
    conversation = app.conversation
    if args.strip().lower() == "undo":
        _rewind_undo(app)
        return
    target, mode = _parse_rewind(args)
    choices = on_current_path(conversation)
    if not choices:
        if conversation.checkpoints:
            _say(app, _("Nothing to rewind here: no earlier message of this conversation has a "
                        "checkpoint (/rewind undo goes back to before the last rewind)."))
        else:
            _say(app, _("No checkpoints yet: one is taken before each message you send."))
        return
    if target is not None:
        checkpoint, message = _find_checkpoint(choices, target)
    else:
        options = [f"{when(c.created_at)}  {_first_line(c.label)}" for c, _ in choices]
        choice = app.pick(_("Rewind to before which message?"), options)
        if choice is None:
            _say(app, _("Rewind cancelled."))
            if not _interactive(app):  # a one-shot run: nobody could choose
                _list_checkpoints(app, choices)
            return
        checkpoint, message = choices[choice]
    point = None
    if mode != "conversation":
        point = app.host.hook.workspace_restore_point(conversation=conversation,
                                                       checkpoint=checkpoint)
    if point is None:
        if mode == "code":
            _say(app, _("No file to restore: none changed since then (of those chatcli "
                        "records); the conversation is unchanged."))
            return
        _rewind_to(app, checkpoint, message,
                   _("No file to restore: none changed since then.") if mode == "both" else None)
        return
    if mode is None:
        if target is None or _interactive(app):  # a person is choosing: ask what to restore
            choice = app.pick(_("Files changed since then: {summary}. Rewind what?").format(
                summary=point.summary), [label for _mode, label in _MODE_CHOICES])
            if choice is None:
                _say(app, _("Rewind cancelled."))
                return
            mode = _MODE_CHOICES[choice][0]
        else:
            mode = "both"
    if mode == "conversation":
        _rewind_to(app, checkpoint, message, _("Files left as they are: {summary}.").format(
            summary=point.summary))
        return
    files = _restore_files(app, point.restore)
    if files is None:
        return
    if mode == "code":
        # a head move that goes nowhere, so that /rewind undo undoes this rewind (and only it)
        conversation.move_head(conversation.head, "rewind")
        _say(app, _("{files} The conversation is unchanged; /rewind undo puts the files "
                    "back.").format(files=_esc(files)))
        return
    _rewind_to(app, checkpoint, message, files)


def slash_commands() -> list[SlashCommand]:
    """The commands this plugin contributes."""
    return [
        SlashCommand(
            name="session",
            help=SESSION_HELP,
            run=_guarded(_session),
            subcommands=list(SESSION_SUBCOMMANDS),
            complete=complete_session,
        ),
        SlashCommand(
            name="rewind",
            help=_("go back to before an earlier message, and the files changed since "
                   "(menu; or /rewind last|N|ID [code|conversation]); /rewind undo reverts it"),
            run=_guarded(_rewind),
            subcommands=["undo", "last"],
        ),
        SlashCommand(
            name="fork",
            help=_("copy this conversation into a new session and continue there"),
            run=_guarded(_fork),
        ),
    ]
