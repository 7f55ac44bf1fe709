"""A small, forgiving reader of the YAML-ish frontmatter rule files start with.

Rule files (``.chatcli/rules/*.md``) look like this::

    ---
    paths:
      - "src/**/*.py"
      - tests/**
    description: Python style
    ---
    Use type hints.

The frontmatter is read by chatcli-frontmatter as YAML with every scalar kept as the text
written (``012``, ``true``); when YAML refuses it (``globs: *.ts``) or it holds shapes rule files
do not use, it is read line by line instead: ``key: value`` lines, plain or quoted text, inline
lists (``[a, "b"]``), block lists (``- item`` lines), block scalars (``|`` and ``>``), comments
(``# …``, outside quotes). Values are text or lists of text; :func:`parse_frontmatter` never
raises. A file whose first line is not ``---``, or whose frontmatter is never closed (``---``
or ``...``), has no frontmatter: all of it is the body.
"""

from __future__ import annotations

from chatcli_frontmatter import scalar, split, split_list

__all__ = ["expand_braces", "parse_frontmatter", "scalar", "split_list"]

#: A value: text, or a list of texts.
Value = str | list[str]

_MAX_LINES = 500  # a frontmatter longer than this is not one


def parse_frontmatter(text: str) -> tuple[dict[str, Value], str]:
    """``(fields, body)`` of a rule file; ``fields`` maps lower-case keys to text or lists."""
    from chatcli_frontmatter import FrontmatterError, read, read_lines

    try:
        doc = read(text, text_only=True, max_lines=_MAX_LINES)
    except FrontmatterError as err:
        if err.front is None:  # no frontmatter, or never closed: all of it is the body
            return {}, err.body
        return (read_lines(err.front) if err.kind == "yaml" else {}), err.body
    fields = {str(key).lower(): _value(value) for key, value in doc.fields.items()}
    if any(value is None for value in fields.values()):  # a shape rule files do not use
        front = split(text, _MAX_LINES)[0] or ""
        return read_lines(front), doc.body
    return {key: value for key, value in fields.items() if value is not None}, doc.body


def _value(value: object) -> Value | None:
    """Text or a list of texts as rule files use them (None for other shapes)."""
    if isinstance(value, str):
        return value.strip() if "\n" in value else value
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str) and item] if all(
            isinstance(item, str) for item in value) else None
    return "" if value is None or value == {} else None


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
