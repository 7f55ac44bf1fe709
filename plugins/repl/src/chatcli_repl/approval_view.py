"""What the approval question shows of a tool call: the diff a file tool would apply
(coloured, folded past a screenful, the rest on request) or the call's arguments whole (a
command as ``$ …``, wrapped by the terminal) — never a truncated argument. Key-shaped text is
redacted (``chatcli.redact``) in all of it."""

from __future__ import annotations

import re
from typing import Any

from chatcli import translation

__all__ = ["FOLD_LINES", "SHORT_ARGS", "Shown", "asker", "describe", "fold_limit", "print_rest"]

#: Arguments up to this long stay in the question's title (``note(text='a')``).
SHORT_ARGS = 60
#: Diff lines shown before the question at most (fewer on a short terminal).
FOLD_LINES = 40

_, ngettext = translation(__name__)


#: A worker's question: chatcli-subagents prefixes the verdict's reason with the worker's id
#: and type (``w2 explore: the command writes outside the workspace``).
_WORKER = re.compile(r"(w\d+) ([^\s:]+)(?::[ ]?(.*))?", re.DOTALL)


def asker(reason: str) -> tuple[str, str]:
    """(the header naming the worker that asks — ``worker w2 (explore) asks:`` — or "" when
    the main conversation asks; the reason without the worker's label)."""
    found = _WORKER.fullmatch(reason or "")
    if found is None:
        return "", reason
    worker, kind, rest = found.groups()
    return (_("worker {worker} ({kind}) asks:").format(worker=worker, kind=kind),
            (rest or "").strip())


class Shown:
    """What :func:`describe` printed: the title's ``name(…)`` part, and for a folded diff the
    diff, how many of its lines are hidden and how many were shown (:func:`print_rest`)."""

    def __init__(self, brief: str, diff: str = "", hidden: int = 0, shown: int = 0) -> None:
        self.brief = brief
        self.diff = diff
        self.hidden = hidden
        self.shown = shown


def fold_limit(console: Any) -> int:
    """How many diff lines fit above the question on this console."""
    try:
        height = int(console.size.height)
    except (AttributeError, TypeError, ValueError):
        return FOLD_LINES
    return max(8, min(FOLD_LINES, height - 14))


def _args_text(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items())


def describe(console: Any, name: str, arguments: dict[str, Any], preview: str | None,
             limit: int | None = None, header: str = "") -> Shown:
    """Print what the call would do above the question and say how to name it in the title.

    With a diff: the diff (its first ``limit`` lines), the title naming the files and their
    ``+N −M``. Without: short arguments stay in the title; longer ones are printed whole
    (``$ command`` for a command, ``key: value`` otherwise) and the title says so. ``header``
    (who asks: a worker) comes first, when anything is printed.
    """
    from chatcli import redact
    from chatcli_render.diff import fold, plus_minus, render, stats

    args = redact(_args_text(arguments))
    short = len(args) <= SHORT_ARGS and "\\n" not in args
    if header and (preview or not short):  # (the question shows it too)
        console.print(header, style="bold cyan", markup=False, highlight=False)
    if preview:
        diff = redact(preview)
        found = stats(diff)
        if len(found) == 1:
            brief = f"{name}({found[0].path} {plus_minus(found[0].added, found[0].removed)})"
        else:
            added = sum(s.added for s in found)
            removed = sum(s.removed for s in found)
            brief = ngettext("{name}({count} file {change})", "{name}({count} files {change})",
                             len(found)).format(name=name, count=len(found),
                                                change=plus_minus(added, removed))
        lines = limit if limit is not None else fold_limit(console)
        _head, hidden = fold(diff, lines)
        changes = (_("{name} would change {path}:").format(name=name, path=found[0].path)
                   if len(found) == 1 else
                   ngettext("{name} would change {count} file:",
                            "{name} would change {count} files:", len(found)).format(
                                name=name, count=len(found)))
        console.print(changes, style="dim", markup=False, highlight=False)
        console.print(render(diff, 0, lines))
        if hidden:
            console.print(ngettext("… {count:,} more diff line (the last choice shows it)",
                                   "… {count:,} more diff lines (the last choice shows them)",
                                   hidden).format(count=hidden),
                          style="dim", markup=False, highlight=False)
        return Shown(brief, diff if hidden else "", hidden, lines)
    if short:
        return Shown(f"{name}({args})")
    command = arguments.get("command")
    if isinstance(command, str):
        console.print("$ " + redact(command), markup=False, highlight=False)
        others = {k: v for k, v in arguments.items() if k != "command"}
        if others:
            console.print(redact(_args_text(others)), style="dim", markup=False,
                          highlight=False)
        return Shown(_("{name}(the command above)").format(name=name))
    for key, value in arguments.items():
        text = value if isinstance(value, str) else repr(value)
        console.print(f"{key}: " + redact(text), markup=False, highlight=False)
    return Shown(_("{name}(the arguments above)").format(name=name))


def print_rest(console: Any, shown: Shown) -> None:
    """Print the diff lines :func:`describe` folded away."""
    from chatcli_render.diff import render

    if shown.hidden:
        console.print(render(shown.diff, shown.shown))
