"""A small, forgiving reader of the YAML-ish frontmatter rule files start with.

Rule files (``.chatcli/rules/*.md``) look like this::

    ---
    paths:
      - "src/**/*.py"
      - tests/**
    description: Python style
    ---
    Use type hints.

Only what rule files use is read: ``key: value`` lines, values that are plain or quoted text,
inline lists (``[a, "b"]``), block lists (``- item`` lines under the key), block scalars
(``|`` and ``>``), comments (``# …``, outside quotes). Anything else is kept as text or skipped;
:func:`parse_frontmatter` never raises. A file whose first line is not ``---``, or whose
frontmatter is never closed (``---`` or ``...``), has no frontmatter: all of it is the body.
"""

from __future__ import annotations

import re

__all__ = ["expand_braces", "parse_frontmatter", "scalar", "split_list"]

#: A value: text, or a list of texts.
Value = str | list[str]

_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|)$")
_ITEM = re.compile(r"^\s*-(?:\s+(.*)|)$")
_FENCE = "---"
_MAX_LINES = 500  # a frontmatter longer than this is not one


def parse_frontmatter(text: str) -> tuple[dict[str, Value], str]:
    """``(fields, body)`` of a rule file; ``fields`` maps lower-case keys to text or lists."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r").rstrip() != _FENCE:
        return {}, text
    end = None
    for index in range(1, min(len(lines), _MAX_LINES + 1)):
        if lines[index].rstrip("\r").rstrip() in (_FENCE, "..."):
            end = index
            break
    if end is None:
        return {}, text
    fields = _fields([line.rstrip("\r") for line in lines[1:end]])
    body = "\n".join(lines[end + 1:])
    return fields, body


def _fields(lines: list[str]) -> dict[str, Value]:
    fields: dict[str, Value] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1].isspace():
            continue
        match = _KEY.match(line.rstrip())
        if match is None:
            continue
        key = match.group(1).lower()
        raw = _strip_comment(match.group(2) or "").strip()
        if raw in ("|", ">", "|-", ">-", "|+", ">+"):
            block, index = _indented(lines, index)
            joiner = "\n" if raw.startswith("|") else " "
            fields[key] = joiner.join(part.strip() for part in block).strip()
        elif raw:
            fields[key] = _inline(raw)
        else:
            items, index = _items(lines, index)
            fields[key] = items if items else ""
    return fields


def _indented(lines: list[str], index: int) -> tuple[list[str], int]:
    """The indented (or blank) lines from ``index`` on, and where they end."""
    block = []
    while index < len(lines) and (not lines[index].strip() or lines[index][:1].isspace()):
        block.append(lines[index])
        index += 1
    return block, index


def _items(lines: list[str], index: int) -> tuple[list[str], int]:
    """The ``- item`` lines from ``index`` on (blank lines and comments between them allowed)."""
    items: list[str] = []
    while index < len(lines):
        line = lines[index]
        if not line.strip() or line.lstrip().startswith("#"):
            index += 1
            continue
        match = _ITEM.match(line)
        if match is None:
            break
        value = scalar(_strip_comment(match.group(1) or "").strip())
        if value:
            items.append(value)
        index += 1
    return items, index


def _inline(raw: str) -> Value:
    if raw.startswith("[") and raw.endswith("]"):
        return [v for v in (scalar(p) for p in split_list(raw[1:-1])) if v]
    return scalar(raw)


def scalar(raw: str) -> str:
    """Plain text, or the inside of a quoted value (``''`` and ``\\"`` unescaped)."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", raw[1:-1])
    return raw


def _strip_comment(raw: str) -> str:
    """``raw`` without a trailing ``# comment`` (a ``#`` inside quotes, or not after a space,
    is text)."""
    quote = None
    for index, char in enumerate(raw):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"" and (index == 0 or raw[index - 1] in " ,[:"):
            quote = char
        elif char == "#" and (index == 0 or raw[index - 1].isspace()):
            return raw[:index]
    return raw


def split_list(raw: str) -> list[str]:
    """``raw`` split at commas that are outside quotes, braces and brackets."""
    parts, current, depth, quote = [], [], 0, None
    for char in raw:
        if quote:
            current.append(char)
            if char == quote:
                quote = None
            continue
        if char in "'\"" and not "".join(current).strip():
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]" and depth:
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return [part for part in parts if part]


def expand_braces(glob: str, limit: int = 64) -> list[str]:
    """``src/*.{ts,tsx}`` → ``["src/*.ts", "src/*.tsx"]`` (nested braces too; at most ``limit``
    patterns; a brace without a comma inside stays as written)."""
    results = [glob]
    done: list[str] = []
    while results:
        pattern = results.pop(0)
        span = _brace_span(pattern)
        if span is None:
            done.append(pattern)
        else:
            start, end = span
            head, inside, tail = pattern[:start], pattern[start + 1:end], pattern[end + 1:]
            results[:0] = [head + option + tail for option in _split_top(inside)]
        if len(done) + len(results) > limit:
            return [glob]
    return done


def _brace_span(pattern: str) -> tuple[int, int] | None:
    """The first ``{…,…}`` group of ``pattern`` (its start and end index), if any."""
    stack = []
    for index, char in enumerate(pattern):
        if char == "{":
            stack.append(index)
        elif char == "}" and stack:
            start = stack.pop()
            if not stack and "," in _top_level(pattern[start + 1:index]):
                return start, index
    return None


def _top_level(inside: str) -> str:
    """``inside`` with nested ``{…}`` groups removed (to find its own commas)."""
    out, depth = [], 0
    for char in inside:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _split_top(inside: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in inside:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts
