"""Finding the text an edit replaces: exactly, else through a small cascade.

The cascade, tried in order when ``old`` is not in the file as it is:

1. line endings: ``old`` written with ``\\n`` in a file of ``\\r\\n`` lines (or the reverse);
2. trailing whitespace: whole lines equal once trailing spaces and tabs are ignored;
3. indentation: whole lines equal but for one indentation prefix added to (or removed from)
   every line; ``new`` is re-indented by the same prefix.

Each step must find exactly one place (every place with ``replace_all``). When none does, the
error quotes the lines of the file that look most like ``old``.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass

from chatcli_coder._common import AmbiguousMatch, NoMatch, ToolError, one_line

__all__ = ["Line", "Span", "find_block", "plan_edit", "replace_text", "split_lines"]


@dataclass(frozen=True)
class Span:
    """Replace ``text[start:end]`` with ``replacement``."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Line:
    """One line of a file: where it starts, its text (no line ending), its ending."""

    start: int
    text: str
    eol: str

    @property
    def end(self) -> int:
        """Where its text ends (before the line ending)."""
        return self.start + len(self.text)

    @property
    def after(self) -> int:
        """Where the next line starts."""
        return self.start + len(self.text) + len(self.eol)


def split_lines(text: str) -> list[Line]:
    """``text`` as lines; only ``\\n`` and ``\\r\\n`` end a line. A text ending with a line
    ending has no empty last line."""
    lines: list[Line] = []
    start = 0
    length = len(text)
    while start < length:
        newline = text.find("\n", start)
        if newline < 0:
            lines.append(Line(start, text[start:], ""))
            break
        if newline > start and text[newline - 1] == "\r":
            lines.append(Line(start, text[start:newline - 1], "\r\n"))
        else:
            lines.append(Line(start, text[start:newline], "\n"))
        start = newline + 1
    return lines


def dominant_eol(text: str) -> str:
    """The line ending most lines of ``text`` use (``\\n`` for a text of one line)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def _line_number(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


# ---------------------------------------------------------------------------- line blocks


@dataclass(frozen=True)
class Block:
    """Where a block of whole lines matched, and how ``new`` must be re-indented."""

    first: int  # index of the first line
    count: int  # how many lines
    added: str = ""  # the file has this extra indentation compared with old
    removed: str = ""  # old has this extra indentation compared with the file


def _indent_delta(file_lines: list[str], old_lines: list[str]) -> tuple[str, str] | None:
    """(added, removed): the one indentation change that turns ``old_lines`` into
    ``file_lines`` (lines compared without trailing whitespace), or None."""
    added: str | None = None  # set with removed, once
    removed = ""
    for have, want in zip(file_lines, old_lines, strict=True):
        have, want = have.rstrip(), want.rstrip()
        if not have and not want:
            continue
        if not have or not want or have.lstrip(" \t") != want.lstrip(" \t"):
            return None
        lead_have, lead_want = _leading(have), _leading(want)
        if added is None:
            if lead_have.endswith(lead_want):
                added, removed = lead_have[: len(lead_have) - len(lead_want)], ""
            elif lead_want.endswith(lead_have):
                added, removed = "", lead_want[: len(lead_want) - len(lead_have)]
            else:
                return None
        if lead_have != added + lead_want[len(removed):] or not lead_want.startswith(removed):
            return None
    if added is None or (not added and not removed):
        return None
    return added, removed


def _equal_trailing(file_lines: list[str], old_lines: list[str]) -> bool:
    return all(a.rstrip() == b.rstrip() for a, b in zip(file_lines, old_lines, strict=True))


def find_blocks(lines: list[Line], old_lines: list[str], strategy: str,
                start: int = 0, overlapping: bool = False) -> list[Block]:
    """Every place (from line ``start``; overlapping ones too if asked) where ``old_lines``
    match whole lines under ``strategy``: ``exact``, ``trailing`` (trailing whitespace
    ignored) or ``indent`` (one indentation prefix added or removed, trailing whitespace
    ignored)."""
    count = len(old_lines)
    if count == 0 or count > len(lines):
        return []
    anchor = next((k for k, line in enumerate(old_lines) if line.strip()), 0)
    key = old_lines[anchor]
    if strategy == "exact":
        def same(text: str) -> bool:
            return text == key
    elif strategy == "trailing":
        key_r = key.rstrip()

        def same(text: str) -> bool:
            return text.rstrip() == key_r
    else:
        key_s = key.strip()

        def same(text: str) -> bool:
            return text.strip() == key_s
    found: list[Block] = []
    index = start
    last = len(lines) - count
    while index <= last:
        if not same(lines[index + anchor].text):
            index += 1
            continue
        window = [line.text for line in lines[index:index + count]]
        block: Block | None = None
        if strategy == "exact":
            if window == old_lines:
                block = Block(index, count)
        elif strategy == "trailing":
            if _equal_trailing(window, old_lines):
                block = Block(index, count)
        else:
            delta = _indent_delta(window, old_lines)
            if delta is not None:
                block = Block(index, count, *delta)
        if block is None:
            index += 1
        else:
            found.append(block)
            index += 1 if overlapping else count
    return found


def reindent(lines: list[str], added: str, removed: str) -> list[str]:
    """``lines`` with the indentation change of a matched block applied."""
    if not added and not removed:
        return lines
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        if removed:
            lead = _leading(line)
            cut = len(removed) if lead.startswith(removed) else len(
                _common_prefix(lead, removed))
            line = line[cut:]
        out.append(added + line)
    return out


def _common_prefix(a: str, b: str) -> str:
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return a[:size]


def _old_lines(old: str) -> tuple[list[str], bool]:
    """``old`` as lines, and whether it ends with a line ending (covers whole lines)."""
    normal = old.replace("\r\n", "\n")
    whole = normal.endswith("\n")
    parts = normal.split("\n")
    if whole:
        parts = parts[:-1]
    return parts, whole


def block_span(text: str, lines: list[Line], block: Block, new: str, whole: bool) -> Span:
    """The replacement of ``block`` by ``new`` (re-indented, in the file's line endings)."""
    eol = dominant_eol(text)
    new_lines = reindent(new.replace("\r\n", "\n").split("\n"), block.added, block.removed)
    replacement = eol.join(new_lines)
    last = lines[block.first + block.count - 1]
    end = last.after if whole else last.end
    return Span(lines[block.first].start, end, replacement)


# ---------------------------------------------------------------------------- the cascade

_HOW = {"trailing": "ignoring trailing whitespace", "indent": "adjusting the indentation"}


def plan_edit(text: str, old: str, new: str, replace_all: bool = False,
              shown: str = "the file") -> tuple[list[Span], str]:
    """Where ``old`` is in ``text`` and what replaces it, and how it was found ("exact",
    "line endings", …). Raises :class:`NoMatch` or :class:`AmbiguousMatch`."""
    if old == "":
        raise ToolError("old is empty: give the exact text to replace (to create a file or "
                        "replace all of it, use the write tool)")  # untranslated: model-facing
    if old == new:
        raise ToolError("old and new are the same text: nothing would change")  # untranslated
    spans = _exact(text, old, new, replace_all, shown)
    if spans:
        return spans, "exact"
    eol = dominant_eol(text)
    if "\n" in old:
        if eol == "\r\n" and "\r\n" not in old:
            spans = _exact(text, old.replace("\n", "\r\n"),
                           new.replace("\r\n", "\n").replace("\n", "\r\n"), replace_all, shown)
        elif eol == "\n" and "\r\n" in old:
            spans = _exact(text, old.replace("\r\n", "\n"), new.replace("\r\n", "\n"),
                           replace_all, shown)
        if spans:
            return spans, "line endings"
    lines = split_lines(text)
    old_lines, whole = _old_lines(old)
    if any(line.strip() for line in old_lines):
        for strategy in ("trailing", "indent"):
            blocks = find_blocks(lines, old_lines, strategy, overlapping=not replace_all)
            if not blocks:
                continue
            if len(blocks) > 1 and not replace_all:
                numbers = [b.first + 1 for b in blocks]
                raise _ambiguous(len(blocks), numbers, shown, f" ({_HOW[strategy]})")
            return [block_span(text, lines, b, new, whole) for b in blocks], _HOW[strategy]
    raise no_match(lines, old_lines, shown, "old")


def _exact(text: str, old: str, new: str, replace_all: bool, shown: str) -> list[Span]:
    """Every place ``old`` is, as spans (an overlapping second place counts as ambiguous)."""
    first = text.find(old)
    if first < 0:
        return []
    if not replace_all:
        second = text.find(old, first + 1)
        if second < 0:
            return [Span(first, first + len(old), new)]
        numbers: list[int] = []
        total, at = 0, first
        while at >= 0:
            total += 1
            if len(numbers) < 10:
                numbers.append(_line_number(text, at))
            at = text.find(old, at + 1)
        raise _ambiguous(total, numbers, shown, "")
    spans: list[Span] = []
    index = first
    while index >= 0:
        spans.append(Span(index, index + len(old), new))
        index = text.find(old, index + len(old))
    return spans


def _ambiguous(count: int, numbers: list[int], shown: str, how: str) -> AmbiguousMatch:
    where = ", ".join(str(n) for n in numbers[:10]) + (", …" if count > 10 else "")
    return AmbiguousMatch(
        f"old is found {count} times in '{shown}'{how} (lines {where}): include more "
        "surrounding lines to make it unique, or set replace_all to change every one")


def no_match(lines: list[Line], old_lines: list[str], shown: str, what: str) -> NoMatch:
    """The error for text found nowhere, quoting the closest lines of the file."""
    tried = "also ignoring trailing whitespace, indentation and line endings"
    near = closest_lines([line.text for line in lines], old_lines)
    if near is None:
        return NoMatch(f"{what} is not in '{shown}' ({tried}) and no line looks like it: "
                       "read the file again and copy the text exactly")
    first, last, ratio, quoted = near
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    alike = ("the same but for whitespace, tabs or spaces" if whitespace_only(
        [line.text for line in lines], old_lines, first) else f"{ratio:.0%} alike")
    return NoMatch(
        f"{what} is not in '{shown}' ({tried}); the closest is {where} ({alike}): "
        f"{one_line(quoted, 1_200)} — copy the exact text from there (read the file again if "
        "it changed)")


def closest_lines(file_lines: list[str], old_lines: list[str],
                  max_lines: int = 20_000) -> tuple[int, int, float, str] | None:
    """The window of the file most like ``old_lines``: first and last line numbers (from 1),
    similarity, text. Candidate windows come from lines that resemble a line of old."""
    wanted = [line.strip() for line in old_lines]
    if not any(wanted) or not file_lines:
        return None
    scope = [line.strip() for line in file_lines[:max_lines]]
    size = min(len(old_lines), len(scope))
    index_of: dict[str, list[int]] = {}
    for number, line in enumerate(scope):
        if line:
            index_of.setdefault(line, []).append(number)
    votes: Counter[int] = Counter()
    probes = [(k, line) for k, line in enumerate(wanted) if line][:12]
    for offset, line in probes:
        for close in difflib.get_close_matches(line, list(index_of), n=5, cutoff=0.5):
            for number in index_of[close][:50]:
                start = max(0, min(number - offset, len(scope) - size))
                votes[start] += 1
    if not votes:
        return None
    target = "\n".join(line.rstrip() for line in old_lines)
    best: tuple[float, int] | None = None
    for start, _count in votes.most_common(12):
        window = "\n".join(line.rstrip() for line in file_lines[start:start + size])
        ratio = difflib.SequenceMatcher(None, window, target, autojunk=False).ratio()
        if best is None or ratio > best[0]:
            best = (ratio, start)
    assert best is not None
    ratio, start = best
    quoted = "\n".join(file_lines[start:start + min(size, 12)])
    if size > 12:
        quoted += "\n…"
    return start + 1, start + size, ratio, quoted


def whitespace_only(file_lines: list[str], old_lines: list[str], first: int) -> bool:
    """Whether the window at line ``first`` (from 1) differs from ``old_lines`` only in
    whitespace (tabs for spaces, say)."""
    window = file_lines[first - 1:first - 1 + len(old_lines)]
    return len(window) == len(old_lines) and all(
        a.split() == b.split() for a, b in zip(window, old_lines, strict=True))


def replace_text(text: str, spans: list[Span]) -> str:
    """``text`` with every span replaced (spans do not overlap)."""
    out: list[str] = []
    at = 0
    for span in sorted(spans, key=lambda s: s.start):
        out.append(text[at:span.start])
        out.append(span.replacement)
        at = span.end
    out.append(text[at:])
    return "".join(out)


def find_block(lines: list[Line], old_lines: list[str], start: int = 0,
               near: int | None = None, at_end: bool = False
               ) -> tuple[Block, str] | None:
    """Where a hunk's old lines are (for patches): at or after line ``start``, the match
    closest to ``near`` (a line index) when several; through the cascade. Returns the block
    and how it matched, or None."""
    for strategy in ("exact", "trailing", "indent"):
        blocks = find_blocks(lines, old_lines, strategy, start, overlapping=True)
        if at_end:
            blocks = [b for b in blocks if b.first + b.count == len(lines)]
        if blocks:
            if near is not None:
                blocks.sort(key=lambda b: abs(b.first - near))
            return blocks[0], strategy
    return None
