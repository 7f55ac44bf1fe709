"""Markdown files with YAML frontmatter: the fields and the body, read leniently.

Real files are sloppy (an unquoted colon in a description, tabs, a missing closing ``---``), so a
frontmatter that YAML refuses is read again as plain ``key: value`` lines (with ``- item`` lists)
and the problem is reported, instead of losing the file. The reading is chatcli-frontmatter's
(imported on first use); this module keeps the personas' conventions (keys lower-cased, ``_``
read as ``-``, the body stripped) and turns fields into text and lists.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Document", "as_list", "as_text", "parse"]


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
    from chatcli_frontmatter import FrontmatterError, read, read_lines

    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    try:
        doc = read(text)
    except FrontmatterError as err:
        if err.kind in ("missing", "unclosed"):
            return Document({}, text.strip(), [] if err.kind == "missing" else [
                "the frontmatter has no closing '---' line; the whole file was read as the body"])
        if err.kind == "empty":
            return Document({}, err.body.strip(), [])
        if err.kind == "not-mapping":
            return Document({}, err.body.strip(), [
                f"the frontmatter is a YAML {type(err.value).__name__}, not a mapping of keys; "
                "it was ignored"])
        where = f" (line {err.line})" if err.line is not None else ""
        return Document(_normalise(read_lines(err.front or "")), err.body.strip(), [
            f"the frontmatter is not valid YAML{where}: {err.problem or 'invalid syntax'}; it was "
            "read as plain 'key: value' lines (quote values that hold ': ')"])
    return Document(_normalise(doc.fields), doc.body.strip(), [])


def _normalise(data: dict[Any, Any]) -> dict[str, Any]:
    return {str(key).strip().lower().replace("_", "-"): value for key, value in data.items()}


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
