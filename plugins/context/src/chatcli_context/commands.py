"""``/context``: named contexts, the prompt as sent, and pull on or off.

``/context [list]`` · ``create NAME PATH...`` · ``attach NAME...`` · ``detach NAME...|--all`` ·
``show NAME`` · ``delete NAME`` · ``status`` · ``pull on|off|status``. Failures print one line
and change nothing.
"""

from __future__ import annotations

import datetime as _dt
import shlex
from typing import TYPE_CHECKING, Any

from chatcli_context.store import NAME_PATTERN, ContextStore, StoredContext

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_context.plugin import ContextPlugin

__all__ = ["HELP", "SUBCOMMANDS", "slash_command"]

SUBCOMMANDS = ["list", "create", "attach", "detach", "show", "delete", "status", "pull"]
HELP = ("contexts and the prompt: /context list | create NAME PATH... | attach NAME... | "
        "detach NAME...|--all | show NAME | delete NAME | status | pull on|off|status")


class _Refused(Exception):
    """A command that cannot be done; its message is the one line printed."""


def _say(app: Any, text: str = "") -> None:
    app.console.print(text, markup=False, highlight=False, soft_wrap=True)


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _size(context: StoredContext) -> str:
    files = len(context.files)
    return f"{files} file{'s' if files != 1 else ''}, {context.chars:,} characters"


def slash_command(plugin: ContextPlugin) -> SlashCommand:
    """The ``/context`` command, bound to ``plugin``."""
    from chatcli import SlashCommand

    def run(app: Any, text: str) -> None:
        words = _words(text)
        verb = words[0].lower() if words else "list"
        handler = _HANDLERS.get(verb)
        if handler is None:
            _say(app, f"unknown subcommand {verb!r}; {HELP}")
            return
        try:
            handler(plugin, app, words[1:])
        except _Refused as refused:
            _say(app, f"error: {refused}")

    def complete(_app: Any, text: str) -> list[str]:
        words = text.split()
        if len(words) <= 1 and not text.endswith(" "):
            return [s for s in SUBCOMMANDS if s.startswith(text.strip())]
        if words[0] in ("attach", "detach", "show", "delete"):
            start = "" if text.endswith(" ") else words[-1]
            return [n for n in ContextStore().names() if n.startswith(start)]
        if words[0] == "pull":
            return ["on", "off", "status"]
        return []

    return SlashCommand(name="context", help=HELP, run=run, subcommands=list(SUBCOMMANDS),
                        complete=complete)


# ------------------------------------------------------------------------------ subcommands


def _attached(app: Any) -> list[str]:
    from chatcli_context.store import attached_names

    return attached_names(app.conversation)


def _list(plugin: ContextPlugin, app: Any, _args: list[str]) -> None:
    store = ContextStore()
    names = store.names()
    attached = _attached(app)
    if not names and not attached:
        _say(app, "No contexts yet: /context create NAME PATH... makes one (files, folders, "
                  "globs).")
        return
    plan = plugin.plan(app.conversation)
    _say(app, "contexts (* attached to this conversation):")
    width = max(len(n) for n in [*names, *attached])
    for name in sorted(set(names) | set(attached)):
        context = store.load(name)
        mark = "*" if name in attached else " "
        state = {"digest": "  · in the prompt as a digest (read with context_pull)",
                 "whole": "  · in the prompt whole",
                 "missing": ""}.get(plan.contexts.get(name, ""), "")
        size = _size(context) if context is not None else "missing (deleted)"
        _say(app, f"{mark} {name:<{width}}  {size}{state}")


def _create(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.collect import collect
    from chatcli_context.settings import ContextOptions

    if len(args) < 2:
        raise _Refused("usage: /context create NAME PATH... (files, folders or globs)")
    name, paths = args[0], args[1:]
    if not NAME_PATTERN.match(name):
        raise _Refused(f"{name!r} is not a context name: use letters, digits, '.', '_' or "
                       "'-' (up to 64, starting with a letter or digit)")
    store = ContextStore()
    if store.load(name) is not None:
        raise _Refused(f"a context named {name!r} exists; /context delete {name} first, or "
                       "choose another name")
    options, problems = ContextOptions.from_settings(app.settings)
    for problem in problems:
        _say(app, f"warning: {problem}")
    workspace = app.session.workspace
    found = collect(paths, workspace, options)
    if not found.files:
        why = []
        if found.missing:
            why.append("not found: " + ", ".join(found.missing))
        if found.skipped:
            why.append("refused: " + "; ".join(f"{p} ({r})" for p, r in found.skipped[:5]))
        if found.ignored:
            why.append(f"{found.ignored} paths ignored by .gitignore")
        raise _Refused(f"nothing to put in {name!r}: " + ("; ".join(why) or "no files"))
    context = StoredContext(name=name, files=found.files, sources=list(paths),
                            skipped=found.skipped, root=str(workspace))
    store.save(context)
    _say(app, f'created context "{name}": {_size(context)} (from {" ".join(paths)})')
    for path, reason in found.skipped:
        _say(app, f"  refused {path}: {reason}")
    if found.missing:
        _say(app, "  not found: " + ", ".join(found.missing))
    if found.ignored:
        _say(app, f"  {found.ignored} path{'s' if found.ignored != 1 else ''} left out: "
                  ".gitignore excludes them")
    _say(app, f"attach it to this conversation with /context attach {name}")


def _attach(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if not args:
        raise _Refused("usage: /context attach NAME...")
    store = ContextStore()
    unknown = [n for n in args if store.load(n) is None]
    if unknown:
        have = ", ".join(store.names()) or "none (create one with /context create)"
        raise _Refused(f"no context named {', '.join(map(repr, unknown))}; the contexts: {have}")
    attached = _attached(app)
    added = [n for n in dict.fromkeys(args) if n not in attached]
    set_attached(app.conversation, [*attached, *added])
    plugin.track(app.conversation)
    plan = plugin.plan(app.conversation)
    plugin.refresh(app.conversation, plan)
    for name in args:
        context = store.load(name)
        assert context is not None
        how = plan.contexts.get(name)
        if how == "digest":
            where = (f"in the prompt as a digest (it passes the prompt_budget of "
                     f"{_budget(app):,} characters); the model reads it with context_pull")
        else:
            where = "in the prompt whole"
        verb = "attached" if name in added else "already attached"
        _say(app, f'{verb} "{name}" ({_size(context)}): {where}')


def _budget(app: Any) -> int:
    from chatcli_context.settings import ContextOptions

    return ContextOptions.from_settings(app.settings)[0].prompt_budget


def _detach(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if not args:
        raise _Refused("usage: /context detach NAME... (or --all)")
    attached = _attached(app)
    if args[0] in ("--all", "all", "*"):
        gone = attached
    else:
        gone = [n for n in args if n in attached]
        missing = [n for n in args if n not in attached]
        if missing:
            raise _Refused(f"not attached: {', '.join(missing)} (attached: "
                           f"{', '.join(attached) or 'none'})")
    set_attached(app.conversation, [n for n in attached if n not in gone])
    plugin.track(app.conversation)
    plugin.refresh(app.conversation)
    _say(app, f"detached {', '.join(gone)}" if gone else "nothing was attached")


def _show(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    if len(args) != 1:
        raise _Refused("usage: /context show NAME")
    context = ContextStore().load(args[0])
    if context is None:
        raise _Refused(f"no context named {args[0]!r}")
    created = _dt.datetime.fromtimestamp(context.created_at).strftime("%Y-%m-%d %H:%M")
    _say(app, f'context "{context.name}": {_size(context)}, created {created} from '
              f"{' '.join(context.sources)}" + (f" in {context.root}" if context.root else ""))
    if context.name in _attached(app):
        how = plugin.plan(app.conversation).contexts.get(context.name, "whole")
        _say(app, "attached to this conversation: " + (
            "yes, in the prompt as a digest" if how == "digest" else "yes, in the prompt whole"))
    else:
        _say(app, f"not attached (/context attach {context.name})")
    width = max((len(f.path) for f in context.files), default=0)
    for item in context.files:
        _say(app, f"  {item.path:<{width}}  {len(item.text):>9,} characters")
    for path, reason in context.skipped:
        _say(app, f"  refused when created: {path} ({reason})")


def _delete(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if len(args) != 1:
        raise _Refused("usage: /context delete NAME")
    name = args[0]
    if not NAME_PATTERN.match(name) or not ContextStore().delete(name):
        raise _Refused(f"no context named {name!r}")
    attached = _attached(app)
    if name in attached:
        set_attached(app.conversation, [n for n in attached if n != name])
        plugin.refresh(app.conversation)
    _say(app, f'deleted context "{name}"' + (" (and detached it)" if name in attached else ""))


def _status(plugin: ContextPlugin, app: Any, _args: list[str]) -> None:
    from chatcli_context.status import status_lines

    for line in status_lines(plugin, app):
        _say(app, line)


def _pull(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.status import pull_status

    word = args[0].lower() if args else "status"
    if word in ("on", "off"):
        from chatcli_context.settings import PULL_SETTING

        value = word == "on"
        plugin.pull_override = value
        app.session.update_settings(**{PULL_SETTING: value})
        plugin.track(app.conversation)
        plugin.refresh(app.conversation, settings=app.session.settings)
        if value:
            _say(app, "context_pull is on for this session: material that does not fit is "
                      "deferred, and every deferral names the call that reads it back.")
        else:
            _say(app, "context_pull is off for this session: every deferral is disarmed and "
                      "the prompt is the full, uncurated one. To keep it off, set "
                      "[context] pull = false or CHATCLI_CHAT_CONTEXT_PULL=false.")
        return
    if word != "status":
        raise _Refused("usage: /context pull on|off|status")
    for line in pull_status(plugin, app):
        _say(app, line)


_HANDLERS = {"list": _list, "ls": _list, "create": _create, "new": _create, "attach": _attach,
             "add": _attach, "detach": _detach, "remove": _detach, "show": _show,
             "delete": _delete, "rm": _delete, "status": _status, "pull": _pull}
