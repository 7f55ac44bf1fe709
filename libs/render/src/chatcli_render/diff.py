"""Unified diffs for people: made (``difflib``), read back into per-file ``+N −M`` counts,
folded to a number of lines, coloured for a terminal.

The standard library (and chatcli's translations of the few words people read) but for
:func:`render` (rich, imported when called). The reader follows
the ``@@ -a,b +c,d @@`` counts, so a removed line that reads ``-- x`` (``--- x`` in the diff) is
a removed line, not a file header; any text is accepted (what is not a diff counts nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal, NamedTuple

from chatcli import translation

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["FileStat", "classify", "fold", "plus_minus", "render", "stat_lines", "stats",
           "unified"]

_, ngettext = translation(__name__)

#: one difflib opcode: what to do, and the ranges of both sides it covers
_Op = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]

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
    """``text``'s lines, each with its line end (only a newline ends a line: a form feed or a
    lone carriage return is part of one); a last line without one gets git's "No newline at
    end of file" note."""
    if not text:
        return []
    lines = [line + "\n" for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1] + "\n\\ No newline at end of file\n"
    return lines


#: Lines (on either side, once the common head and tail are set aside) past which a diff is
#: anchored on the lines found once on each side first (patience): difflib alone takes minutes
#: on a large file with scattered changes.
_DIRECT = 2_000


def _opcodes(a: list[str], b: list[str], a0: int = 0, b0: int = 0
             ) -> list[_Op]:
    """difflib-style opcodes turning ``a`` into ``b`` (offsets ``a0``/``b0`` added)."""
    import difflib

    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    out: list[_Op] = []
    if head:
        out.append(("equal", a0, a0 + head, b0, b0 + head))
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    x0, y0 = a0 + head, b0 + head
    if not mid_a and not mid_b:
        pass
    elif not mid_a:
        out.append(("insert", x0, x0, y0, y0 + len(mid_b)))
    elif not mid_b:
        out.append(("delete", x0, x0 + len(mid_a), y0, y0))
    elif len(mid_a) <= _DIRECT and len(mid_b) <= _DIRECT:
        matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        out += [(tag, i1 + x0, i2 + x0, j1 + y0, j2 + y0)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    else:
        out += _anchored(mid_a, mid_b, x0, y0)
    if tail:
        out.append(("equal", a0 + len(a) - tail, a0 + len(a), b0 + len(b) - tail, b0 + len(b)))
    return out


def _anchored(a: list[str], b: list[str], a0: int, b0: int
              ) -> list[_Op]:
    """Patience: the lines found exactly once on each side, in the longest run that keeps
    their order, are matched; the gaps between them are diffed alone."""
    import bisect
    from collections import Counter

    count_a, count_b = Counter(a), Counter(b)
    where_b = {line: j for j, line in enumerate(b) if count_b[line] == 1}
    pairs = [(i, where_b[line]) for i, line in enumerate(a)
             if count_a[line] == 1 and line in where_b]
    # the longest increasing run of b positions (patience sorting)
    tops: list[int] = []
    top_index: list[int] = []
    back: list[int] = [-1] * len(pairs)
    for k, (_i, j) in enumerate(pairs):
        at = bisect.bisect_left(tops, j)
        if at == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[at] = j
            top_index[at] = k
        back[k] = top_index[at - 1] if at else -1
    chain: list[tuple[int, int]] = []
    k = top_index[-1] if top_index else -1
    while k != -1:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    if not chain:  # nothing to anchor on: one block replaced
        return [("replace", a0, a0 + len(a), b0, b0 + len(b))]
    out: list[_Op] = []
    i = j = 0
    for ai, bj in [*chain, (len(a), len(b))]:
        if ai > i or bj > j:
            out += _opcodes(a[i:ai], b[j:bj], a0 + i, b0 + j)
        if ai < len(a):
            out.append(("equal", a0 + ai, a0 + ai + 1, b0 + bj, b0 + bj + 1))
        i, j = ai + 1, bj + 1
    return _merged(out)


def _merged(codes: list[_Op]
            ) -> list[_Op]:
    """Neighbouring opcodes of the same kind as one (as difflib gives them)."""
    out: list[_Op] = []
    for code in codes:
        if code[1] == code[2] and code[3] == code[4]:
            continue
        if out and out[-1][0] == code[0] == "equal":
            last = out.pop()
            code = ("equal", last[1], code[2], last[3], code[4])
        out.append(code)
    return out


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as ``diff -u`` writes it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified(before: str | None, after: str | None, path: str, new_path: str | None = None,
            context: int = 3) -> str:
    """The unified diff turning ``before`` into ``after`` (None: the file does not exist on
    that side: ``/dev/null``), with ``a/path`` and ``b/new_path`` headers; "" when equal. A
    rename without changes is the two headers ``rename from``/``rename to``. Lines are matched
    with ``difflib``, anchored first on the lines found once on each side when the part that
    changed is long (a large file with scattered edits takes a fraction of a second)."""
    target = new_path or path
    if before == after and target == path:
        return ""
    import difflib

    a, b = _lines(before), _lines(after)
    matcher = difflib.SequenceMatcher(None, a, b)
    opcodes = _merged(_opcodes(a, b))
    matcher.get_opcodes = lambda: opcodes  # type: ignore[method-assign]
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out.append(f"--- {f'a/{path}' if before is not None else '/dev/null'}\n")
            out.append(f"+++ {f'b/{target}' if after is not None else '/dev/null'}\n")
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} "
                   f"+{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                out.extend("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                out.extend("+" + line for line in b[j1:j2])
    if not out and target != path:
        return f"rename from {path}\nrename to {target}\n"
    return "".join(out)


def classify(diff: str) -> Iterator[tuple[str, str]]:
    """Each line of ``diff`` (without its line end) with its kind: ``file`` (``---``/``+++``
    headers), ``hunk`` (``@@``), ``add``, ``del``, ``context``, ``note`` (``\\ No newline…``)
    or ``meta`` (anything else: ``diff --git``, ``index``, text around the diff)."""
    lines = diff.split("\n")
    if diff.endswith("\n") or not diff:
        lines.pop()
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
    # i18n: {counts} is "+5 −1" (lines added and removed)
    total = ngettext("{count} file changed, {counts}", "{count} files changed, {counts}",
                     len(found)).format(count=len(found), counts=plus_minus(added, removed))
    return [*rows, total]


def fold(diff: str, limit: int) -> tuple[str, int]:
    """The first ``limit`` lines of ``diff`` and how many lines were left out."""
    lines = diff.split("\n")
    if diff.endswith("\n") or not diff:
        lines.pop()
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
