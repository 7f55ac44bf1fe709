"""Choosing a session to go on with: ``chatcli -c`` (this project's newest) and ``chatcli
--resume`` without an id (a numbered list of this project's sessions, every project's one key
away). Imported only when ``-c`` or ``--resume`` runs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from chatcli import UsageError, translation

from chatcli_sessions.project import age, current_project, shown_folder

if TYPE_CHECKING:
    from chatcli_sessions_api import SessionStore
    from chatcli_sessions_api.records import SessionInfo

__all__ = ["MAX_SHOWN", "continue_ref", "describe", "pick_ref"]

_, ngettext = translation(__name__)

#: How many sessions the ``--resume`` list shows (newest first).
MAX_SHOWN = 20


def describe(info: SessionInfo) -> str:
    """One session in a menu: name, title, age, size and folder."""
    fields = {"name": info.name, "title": _one_line(info.title) or _("(untitled)"),
              "age": age(info.updated_at), "count": info.messages,
              "folder": shown_folder(info.project or info.cwd)}
    if info.name:
        return ngettext("{name}: {title} — {age}, {count} msgs · {folder}",
                        "{name}: {title} — {age}, {count} msgs · {folder}",
                        info.messages).format(**fields)
    return ngettext("{title} — {age}, {count} msgs · {folder}",
                    "{title} — {age}, {count} msgs · {folder}", info.messages).format(**fields)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _elsewhere(store: SessionStore, project: str) -> str:
    """The hint for a project without sessions: where the others are."""
    others = store.count()
    if not others:
        return _("run chatcli without -c to start one")
    return ngettext("run chatcli without -c to start one, or chatcli --resume to choose one of "
                    "the {count} session of other projects",
                    "run chatcli without -c to start one, or chatcli --resume to choose one of "
                    "the {count} sessions of other projects", others).format(count=others)


def continue_ref(store: SessionStore) -> str:
    """The id ``-c`` continues: the newest session of the current project."""
    project = current_project()
    latest = store.latest(project=project)
    if latest is None:
        raise UsageError(_("there is no saved session in this project ({folder}) to continue"
                           ).format(folder=shown_folder(project)), _elsewhere(store, project))
    return latest.id


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _show(out: TextIO, title: str, found: list[SessionInfo], more: int) -> None:
    out.write(f"{title}\n")
    for number, info in enumerate(found, 1):
        out.write(f"  {number:>2}  {info.id}  {describe(info)}\n")
    if more:
        out.write("   a  " + ngettext("every project ({count} more in other projects)",
                                      "every project ({count} more in other projects)",
                                      more).format(count=more) + "\n")
    out.flush()


def pick_ref(store: SessionStore, stdin: TextIO | None = None, out: TextIO | None = None) -> str:
    """``--resume`` without an id: list this project's sessions (newest first, with folder and
    age) on stderr and, on a terminal, ask which one (Enter: the newest; ``a``: every
    project's). Without a terminal nobody can answer: the list stays, and a usage error says
    to give the id."""
    stdin = sys.stdin if stdin is None else stdin
    out = sys.stderr if out is None else out
    project = current_project()
    mine = store.list(limit=MAX_SHOWN, project=project)
    total = store.count()
    here = shown_folder(project)
    if not total:
        raise UsageError(_("there is no saved session to resume"), _("run chatcli to start one"))
    others = total - store.count(project)
    everywhere = not mine or not others  # nothing more to widen to
    if not mine:
        found = store.list(limit=MAX_SHOWN)
        _show(out, _("No saved session in this project ({folder}); sessions of every project:"
                     ).format(folder=here), found, 0)
    else:
        found = mine
        _show(out, _("Sessions of this project ({folder}), newest first:").format(folder=here),
              found, others)
    can_ask = _isatty(stdin) and _isatty(out)
    while can_ask:
        if everywhere:
            # i18n: the answer keys (numbers, Enter) stay as they are
            asked = _("Resume which session? [1-{last}, Enter = 1] ")
        else:
            # i18n: the answer keys (numbers, "a", Enter) stay as they are
            asked = _("Resume which session? [1-{last}, a = every project, Enter = 1] ")
        out.write(asked.format(last=len(found)))
        out.flush()
        line = stdin.readline()
        if not line:  # Ctrl+D
            break
        answer = line.strip().lower()
        if not answer:
            return found[0].id
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            return found[int(answer) - 1].id
        if answer == "a" and not everywhere:
            everywhere = True
            found = store.list(limit=MAX_SHOWN)
            _show(out, _("Sessions of every project, newest first:"), found, 0)
            continue
        if answer in ("q", "quit"):
            break
        out.write("  " + _("no such choice: {answer!r}").format(answer=line.strip()) + "\n")
    if can_ask:
        raise UsageError(_("no session chosen"), _("chatcli --resume ID resumes a given one"))
    raise UsageError(_("--resume without an id needs a terminal to choose on"),
                     _("give the session: chatcli --resume ID (ids above)"))
