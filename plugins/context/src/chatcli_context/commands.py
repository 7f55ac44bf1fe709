"""``/context``: named contexts, the prompt as sent, and pull on or off.

``/context [list]`` · ``create NAME PATH...`` · ``attach NAME...`` · ``detach NAME...|--all`` ·
``show NAME`` · ``delete NAME`` · ``status`` · ``pull on|off|status``. Failures print one line
and change nothing.
"""

from __future__ import annotations

import datetime as _dt
import shlex
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_context.store import NAME_PATTERN, ContextStore, StoredContext

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_context.plugin import ContextPlugin

__all__ = ["HELP", "SUBCOMMANDS", "slash_command"]

_, ngettext = translation(__name__)

SUBCOMMANDS = ["list", "create", "attach", "detach", "show", "delete", "status", "pull"]
HELP = _("contexts and the prompt: /context list | create NAME PATH... | attach NAME... | "
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
    return ngettext("{count} file, {chars:,} characters", "{count} files, {chars:,} characters",
                    files).format(count=files, chars=context.chars)


def slash_command(plugin: ContextPlugin) -> SlashCommand:
    """The ``/context`` command, bound to ``plugin``."""
    from chatcli import SlashCommand

    def run(app: Any, text: str) -> None:
        words = _words(text)
        verb = words[0].lower() if words else "list"
        handler = _HANDLERS.get(verb)
        if handler is None:
            _say(app, _("unknown subcommand {verb!r}; {help}").format(verb=verb, help=HELP))
            return
        try:
            handler(plugin, app, words[1:])
        except _Refused as refused:
            _say(app, _("error: {error}").format(error=refused))

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
        _say(app, _("No contexts yet: /context create NAME PATH... makes one (files, folders, "
                    "globs)."))
        return
    plan = plugin.plan(app.conversation)
    _say(app, _("contexts (* attached to this conversation):"))
    width = max(len(n) for n in [*names, *attached])
    for name in sorted(set(names) | set(attached)):
        context = store.load(name)
        mark = "*" if name in attached else " "
        state = {"digest": "  " + _("· in the prompt as a digest (read with context_pull)"),
                 "whole": "  " + _("· in the prompt whole"),
                 "missing": ""}.get(plan.contexts.get(name, ""), "")
        size = _size(context) if context is not None else _("missing (deleted)")
        _say(app, f"{mark} {name:<{width}}  {size}{state}")


def _create(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.collect import collect
    from chatcli_context.settings import ContextOptions

    if len(args) < 2:
        raise _Refused(_("usage: /context create NAME PATH... (files, folders or globs)"))
    name, paths = args[0], args[1:]
    if not NAME_PATTERN.match(name):
        raise _Refused(_("{name!r} is not a context name: use letters, digits, '.', '_' or "
                         "'-' (up to 64, starting with a letter or digit)").format(name=name))
    store = ContextStore()
    if store.load(name) is not None:
        raise _Refused(_("a context named {name!r} exists; /context delete {name} first, or "
                         "choose another name").format(name=name))
    options, problems = ContextOptions.from_settings(app.settings)
    for problem in problems:
        _say(app, _("warning: {problem}").format(problem=problem))
    workspace = app.session.workspace
    found = collect(paths, workspace, options)
    if not found.files:
        why = []
        if found.missing:
            why.append(_("not found: {paths}").format(paths=", ".join(found.missing)))
        if found.skipped:
            why.append(_("refused: {paths}").format(
                paths="; ".join(f"{p} ({r})" for p, r in found.skipped[:5])))
        if found.ignored:
            # (English says "paths" for one too)
            why.append(ngettext("{count} paths ignored by .gitignore",
                                "{count} paths ignored by .gitignore",
                                found.ignored).format(count=found.ignored))
        raise _Refused(_("nothing to put in {name!r}: {why}").format(
            name=name, why="; ".join(why) or _("no files")))
    context = StoredContext(name=name, files=found.files, sources=list(paths),
                            skipped=found.skipped, root=str(workspace))
    store.save(context)
    _say(app, _('created context "{name}": {size} (from {paths})').format(
        name=name, size=_size(context), paths=" ".join(paths)))
    for path, reason in found.skipped:
        _say(app, "  " + _("refused {path}: {reason}").format(path=path, reason=reason))
    if found.missing:
        _say(app, "  " + _("not found: {paths}").format(paths=", ".join(found.missing)))
    if found.ignored:
        _say(app, "  " + ngettext("{count} path left out: .gitignore excludes them",
                                  "{count} paths left out: .gitignore excludes them",
                                  found.ignored).format(count=found.ignored))
    _say(app, _("attach it to this conversation with /context attach {name}").format(
        name=name))


def _attach(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if not args:
        raise _Refused(_("usage: /context attach NAME..."))
    store = ContextStore()
    unknown = [n for n in args if store.load(n) is None]
    if unknown:
        have = ", ".join(store.names()) or _("none (create one with /context create)")
        raise _Refused(_("no context named {names}; the contexts: {have}").format(
            names=", ".join(map(repr, unknown)), have=have))
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
            where = _("in the prompt as a digest (it passes the prompt_budget of {budget:,} "
                      "characters); the model reads it with context_pull").format(
                budget=_budget(app))
        else:
            where = _("in the prompt whole")
        said = (_('attached "{name}" ({size}): {where}') if name in added else
                _('already attached "{name}" ({size}): {where}'))
        _say(app, said.format(name=name, size=_size(context), where=where))


def _budget(app: Any) -> int:
    from chatcli_context.settings import ContextOptions

    return ContextOptions.from_settings(app.settings)[0].prompt_budget


def _detach(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if not args:
        raise _Refused(_("usage: /context detach NAME... (or --all)"))
    attached = _attached(app)
    if args[0] in ("--all", "all", "*"):
        gone = attached
    else:
        gone = [n for n in args if n in attached]
        missing = [n for n in args if n not in attached]
        if missing:
            raise _Refused(_("not attached: {names} (attached: {attached})").format(
                names=", ".join(missing), attached=", ".join(attached) or _("none")))
    set_attached(app.conversation, [n for n in attached if n not in gone])
    plugin.track(app.conversation)
    plugin.refresh(app.conversation)
    _say(app, _("detached {names}").format(names=", ".join(gone)) if gone
         else _("nothing was attached"))


def _show(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    if len(args) != 1:
        raise _Refused(_("usage: /context show NAME"))
    context = ContextStore().load(args[0])
    if context is None:
        raise _Refused(_("no context named {name!r}").format(name=args[0]))
    created = _dt.datetime.fromtimestamp(context.created_at).strftime("%Y-%m-%d %H:%M")
    said = (_('context "{name}": {size}, created {created} from {sources} in {root}')
            if context.root else _('context "{name}": {size}, created {created} from {sources}'))
    _say(app, said.format(name=context.name, size=_size(context), created=created,
                          sources=" ".join(context.sources), root=context.root))
    if context.name in _attached(app):
        how = plugin.plan(app.conversation).contexts.get(context.name, "whole")
        _say(app, _("attached to this conversation: yes, in the prompt as a digest")
             if how == "digest" else _("attached to this conversation: yes, in the prompt whole"))
    else:
        _say(app, _("not attached (/context attach {name})").format(name=context.name))
    width = max((len(f.path) for f in context.files), default=0)
    for item in context.files:
        _say(app, "  " + _("{path}  {count:>9,} characters").format(
            path=item.path.ljust(width), count=len(item.text)))
    for path, reason in context.skipped:
        _say(app, "  " + _("refused when created: {path} ({reason})").format(
            path=path, reason=reason))


def _delete(plugin: ContextPlugin, app: Any, args: list[str]) -> None:
    from chatcli_context.store import set_attached

    if len(args) != 1:
        raise _Refused(_("usage: /context delete NAME"))
    name = args[0]
    if not NAME_PATTERN.match(name) or not ContextStore().delete(name):
        raise _Refused(_("no context named {name!r}").format(name=name))
    attached = _attached(app)
    if name in attached:
        set_attached(app.conversation, [n for n in attached if n != name])
        plugin.refresh(app.conversation)
    _say(app, (_('deleted context "{name}" (and detached it)') if name in attached
               else _('deleted context "{name}"')).format(name=name))


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
            _say(app, _("context_pull is on for this session: material that does not fit is "
                        "deferred, and every deferral names the call that reads it back."))
        else:
            _say(app, _("context_pull is off for this session: every deferral is disarmed and "
                        "the prompt is the full, uncurated one. To keep it off, set "
                        "[context] pull = false or CHATCLI_CHAT_CONTEXT_PULL=false."))
        return
    if word != "status":
        raise _Refused(_("usage: /context pull on|off|status"))
    for line in pull_status(plugin, app):
        _say(app, line)


_HANDLERS = {"list": _list, "ls": _list, "create": _create, "new": _create, "attach": _attach,
             "add": _attach, "detach": _detach, "remove": _detach, "show": _show,
             "delete": _delete, "rm": _delete, "status": _status, "pull": _pull}
