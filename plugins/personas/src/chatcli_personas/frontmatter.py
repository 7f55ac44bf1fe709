"""Markdown files with YAML frontmatter: the fields and the body, read leniently.

Real files are sloppy (an unquoted colon in a description, tabs, a missing closing ``---``), so a
frontmatter that YAML refuses is read again as plain ``key: value`` lines (with ``- item`` lists)
and the problem is reported, instead of losing the file. PyYAML is imported on first use.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Document", "as_list", "as_text", "parse"]

_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_ITEM_LINE = re.compile(r"^\s+-\s+(.*)$|^-\s+(.*)$")


class Document:
    """A parsed file: ``fields`` (keys lower-cased, ``_`` read as ``-``), ``body`` (the markdown
    after the frontmatter) and ``problems`` (one line each, for warnings)."""

    def __init__(self, fields: dict[str, Any], body: str, problems: list[str]) -> None:
        self.fields = fields
        self.body = body
        self.problems = problems

    def get(self, *keys: str) -> Any:
        """The first of ``keys`` present in the frontmatter (``color``, ``colour``), else None."""
        for key in keys:
            if key in self.fields:
                return self.fields[key]
        return None


def parse(text: str) -> Document:
    """Split ``text`` into frontmatter fields and body; never raises."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return Document({}, text.strip(), [])
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            head, body = "\n".join(lines[1:index]), "\n".join(lines[index + 1:])
            break
    else:
        return Document({}, text.strip(), ["the frontmatter has no closing '---' line; the "
                                           "whole file was read as the body"])
    fields, problems = _fields(head)
    return Document(fields, body.strip(), problems)


def _fields(head: str) -> tuple[dict[str, Any], list[str]]:
    import yaml

    try:
        data = yaml.safe_load(head) if head.strip() else {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(err, "problem", None) or "invalid syntax"
        return _normalise(_simple_fields(head)), [
            f"the frontmatter is not valid YAML{where}: {problem}; it was read as plain "
            "'key: value' lines (quote values that hold ': ')"]
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        return {}, [f"the frontmatter is a YAML {type(data).__name__}, not a mapping of keys; "
                    "it was ignored"]
    return _normalise(data), []


def _normalise(data: dict[Any, Any]) -> dict[str, Any]:
    return {str(key).strip().lower().replace("_", "-"): value for key, value in data.items()}


def _simple_fields(head: str) -> dict[str, Any]:
    """``key: value`` lines, ``- item`` lines under a key with no value, quotes stripped."""
    fields: dict[str, Any] = {}
    current: str | None = None
    for line in head.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM_LINE.match(line)
        if item is not None and current is not None:
            value = fields.get(current)
            items = value if isinstance(value, list) else []
            items.append(_unquote(item.group(1) or item.group(2) or ""))
            fields[current] = items
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            if current is not None and isinstance(fields.get(current), str):
                fields[current] = f"{fields[current]} {line.strip()}".strip()
            continue
        current = match.group(1)
        fields[current] = _unquote(match.group(2).strip())
    return fields


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def as_text(value: Any) -> str:
    """A field as one line of text ('' for None; lists joined with ', ')."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(as_text(item) for item in value if item is not None)
    return " ".join(str(value).split())


def as_list(value: Any) -> list[str]:
    """A field as a list of strings: a YAML list, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list | tuple | set):
        return [as_text(item) for item in value if as_text(item)]
    return [as_text(value)] if as_text(value) else []
