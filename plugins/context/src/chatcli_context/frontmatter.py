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

__all__ = ["parse_frontmatter", "scalar", "split_list"]

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
