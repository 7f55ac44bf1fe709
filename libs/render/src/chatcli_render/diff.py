"""Unified diffs for people: made (``difflib``), read back into per-file ``+N −M`` counts,
folded to a number of lines, coloured for a terminal.

Pure standard library but for :func:`render` (rich, imported when called). The reader follows
the ``@@ -a,b +c,d @@`` counts, so a removed line that reads ``-- x`` (``--- x`` in the diff) is
a removed line, not a file header; any text is accepted (what is not a diff counts nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["FileStat", "classify", "fold", "plus_minus", "render", "stat_lines", "stats",
           "unified"]

#: the minus sign of ``+4 −1`` (U+2212, as the counts are shown to people)
MINUS = "\u2212"

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class FileStat(NamedTuple):
    """One file of a diff: its path (the new one; the old one for a deletion) and the lines
    added and removed."""

    path: str
    added: int
    removed: int


def plus_minus(added: int, removed: int) -> str:
    """``+4 −1`` (the minus sign is U+2212)."""
    return f"+{added} {MINUS}{removed}"


def _lines(text: str | None) -> list[str]:
    if not text:
        return []
    lines = text.splitlines(keepends=True)
    if not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def unified(before: str | None, after: str | None, path: str, new_path: str | None = None,
            context: int = 3) -> str:
    """The unified diff turning ``before`` into ``after`` (None: the file does not exist on
    that side: ``/dev/null``), with ``a/path`` and ``b/new_path`` headers; "" when equal. A
    rename without changes is the two headers ``rename from``/``rename to``."""
    target = new_path or path
    if before == after and target == path:
        return ""
    old = f"a/{path}" if before is not None else "/dev/null"
    new = f"b/{target}" if after is not None else "/dev/null"
    import difflib

    body = "".join(difflib.unified_diff(_lines(before), _lines(after), old, new, n=context))
    if not body and target != path:
        return f"rename from {path}\nrename to {target}\n"
    return body


def classify(diff: str) -> Iterator[tuple[str, str]]:
    """Each line of ``diff`` (without its line end) with its kind: ``file`` (``---``/``+++``
    headers), ``hunk`` (``@@``), ``add``, ``del``, ``context``, ``note`` (``\\ No newline…``)
    or ``meta`` (anything else: ``diff --git``, ``index``, text around the diff)."""
    lines = diff.splitlines()
    old_left = new_left = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if old_left > 0 or new_left > 0:
            if line.startswith("+"):
                new_left -= 1
                yield "add", line
            elif line.startswith("-"):
                old_left -= 1
                yield "del", line
            elif line.startswith("\\"):
                yield "note", line
            else:
                old_left, new_left = old_left - 1, new_left - 1
                yield "context", line
            continue
        if line.startswith("--- ") and index < len(lines) and lines[index].startswith("+++ "):
            yield "file", line
            yield "file", lines[index]
            index += 1
            continue
        found = _HUNK.match(line)
        if found:
            old_left = int(found[2]) if found[2] is not None else 1
            new_left = int(found[4]) if found[4] is not None else 1
            yield "hunk", line
        elif line.startswith("\\"):
            yield "note", line
        else:
            yield "meta", line


def _path(header: str) -> str:
    name = header[4:].split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) > 1:
        name = name[1:-1]
    return name[2:] if name[:2] in ("a/", "b/") else name


def stats(diff: str) -> list[FileStat]:
    """Lines added and removed per file of ``diff``, in its order (a file named twice is
    counted together)."""
    counts: dict[str, list[int]] = {}
    current: list[int] | None = None
    old_header = ""
    for kind, line in classify(diff):
        if kind == "file":
            if line.startswith("--- "):
                old_header = line
                continue
            name = _path(line) if _path(line) != "/dev/null" else _path(old_header)
            current = counts.setdefault(name, [0, 0])
        elif kind == "add" and current is not None:
            current[0] += 1
        elif kind == "del" and current is not None:
            current[1] += 1
    return [FileStat(path, added, removed) for path, (added, removed) in counts.items()]


def stat_lines(found: list[FileStat]) -> list[str]:
    """``calc.py | +4 −1`` per file (paths aligned), then ``2 files changed, +5 −1``; no line
    when nothing changed."""
    if not found:
        return []
    width = max(len(s.path) for s in found)
    rows = [f"{s.path.ljust(width)} | {plus_minus(s.added, s.removed)}" for s in found]
    added = sum(s.added for s in found)
    removed = sum(s.removed for s in found)
    files = f"{len(found)} file{'s' * (len(found) != 1)} changed"
    return [*rows, f"{files}, {plus_minus(added, removed)}"]


def fold(diff: str, limit: int) -> tuple[str, int]:
    """The first ``limit`` lines of ``diff`` and how many lines were left out."""
    lines = diff.splitlines()
    if len(lines) <= limit:
        return diff.rstrip("\n"), 0
    return "\n".join(lines[:limit]), len(lines) - limit


#: the rich style of each kind of line
STYLES = {"file": "bold", "hunk": "cyan", "add": "green", "del": "red", "note": "dim",
          "meta": "bold", "context": ""}


def render(diff: str, start: int = 0, stop: int | None = None) -> Text:
    """``diff`` (its lines ``start`` to ``stop``, each coloured as the whole diff reads) as
    rich text: added lines green, removed red, hunk headers cyan, file headers bold (a
    console without colour prints it plain)."""
    from rich.text import Text

    text = Text(no_wrap=False, end="")
    for number, (kind, line) in enumerate(classify(diff)):
        if number < start:
            continue
        if stop is not None and number >= stop:
            break
        if number > start:
            text.append("\n")
        text.append(line, style=STYLES[kind] or None)
    return text
