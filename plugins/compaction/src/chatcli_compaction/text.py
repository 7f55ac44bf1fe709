"""Near-lossless text reductions for trimming: reasoning blocks out of answers, verbose markup
in tool outputs made compact. Linear scanners (no backtracking regular expressions): a block
that never closes stops the scan instead of making it quadratic. None of them raises."""

from __future__ import annotations

__all__ = ["REASONING_TAGS", "compact_markup", "looks_like_markup", "strip_reasoning"]

#: The tags models wrap their reasoning in.
REASONING_TAGS = ("think", "thinking", "reasoning")

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def strip_reasoning(text: str) -> str:
    """``text`` without its closed ``<think>…</think>``, ``<thinking>…</thinking>`` and
    ``<reasoning>…</reasoning>`` blocks (tags in any case, attributes allowed); an unclosed block
    is kept, and so is everything outside the blocks. Blank lines a block leaves are folded."""
    lower = text.translate(_ASCII_LOWER)  # same length as text, unlike str.lower()
    out: list[str] = []
    position = 0
    changed = False
    while True:
        found = _next_open(lower, position)
        if found is None:
            break
        start, tag, body = found
        close = _closing(lower, tag, body)
        if close < 0:
            break
        end = lower.find(">", close)
        if end < 0:
            break
        out.append(text[position:start])
        position = end + 1
        changed = True
    if not changed:
        return text
    out.append(text[position:])
    return _fold_blank_lines("".join(out)).strip()


def _closing(lower: str, tag: str, position: int) -> int:
    """Where ``</tag>`` (or ``</tag >``) first starts at or after ``position``; -1 when never."""
    mark = f"</{tag}"
    at = position
    while True:
        at = lower.find(mark, at)
        if at < 0:
            return -1
        after = at + len(mark)
        if after < len(lower) and lower[after] in "> \t\n":
            return at
        at = after


def _next_open(lower: str, position: int) -> tuple[int, str, int] | None:
    """The first opening reasoning tag at or after ``position``: (where it starts, its name,
    where its body starts)."""
    at = position
    while True:
        at = lower.find("<", at)
        if at < 0:
            return None
        for tag in REASONING_TAGS:
            if lower.startswith(tag, at + 1):
                after = at + 1 + len(tag)
                if after < len(lower) and lower[after] in "> \t\n":
                    end = lower.find(">", after)
                    if end < 0:
                        return None
                    return at, tag, end + 1
        at += 1


def _fold_blank_lines(text: str) -> str:
    """Runs of three or more line breaks (blank lines between) folded to two."""
    lines = text.split("\n")
    out: list[str] = []
    blank = 0
    for line in lines:
        if line.strip():
            blank = 0
            out.append(line)
        else:
            blank += 1
            if blank <= 1:
                out.append("")
    return "\n".join(out)


def looks_like_markup(text: str) -> bool:
    """Whether a tool output is mostly XML/HTML: it starts with a tag and has many."""
    head = text.lstrip()[:1]
    return head == "<" and text.count("<") >= 10


def compact_markup(text: str) -> str:
    """A markup tool output made compact: comments dropped, the whitespace between tags and at
    line ends removed, blank lines folded. Other text is returned unchanged."""
    if not looks_like_markup(text):
        return text
    text = _drop_comments(text)
    out: list[str] = []
    position = 0
    while True:
        close = text.find(">", position)
        if close < 0:
            break
        out.append(text[position:close + 1])
        following = close + 1
        while following < len(text) and text[following] in " \t\r\n":
            following += 1
        between_tags = following < len(text) and text[following] == "<"
        position = following if between_tags else close + 1  # whitespace between tags: gone
    out.append(text[position:])
    lines = [line.rstrip() for line in "".join(out).split("\n")]
    return _fold_blank_lines("\n".join(lines)).strip()


def _drop_comments(text: str) -> str:
    out: list[str] = []
    position = 0
    while True:
        start = text.find("<!--", position)
        if start < 0:
            break
        end = text.find("-->", start + 4)
        if end < 0:
            break
        out.append(text[position:start])
        position = end + 3
    out.append(text[position:])
    return "".join(out)
