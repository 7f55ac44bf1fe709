"""The one reader of markdown files that start with YAML frontmatter (skills, personas, command
templates, rule files).

:func:`read` splits a file into its frontmatter (between an opening ``---`` line and a closing
``---`` or ``...`` line) and its body, and reads the frontmatter with PyYAML's safe loader (the
C one when built), recording keys given twice. It raises only :class:`FrontmatterError`, one line
naming the cause (``kind`` says which), whatever the text. Two kinds of leniency are offered:

- ``repair=True``: an unquoted colon inside a plain value (``description: Use when: …``, which
  YAML reads as a nested mapping and refuses) is read as text, with one warning per repaired
  line;
- ``text_only=True``: every scalar is read as the text written (``012``, ``true`` and ``5`` stay
  text), as for globs.

:func:`read_lines` is the forgiving reader for a frontmatter YAML refuses (``globs: *.ts``):
``key: value`` lines, plain or quoted text, inline lists (``[a, "b"]``), ``- item`` lists and
block scalars; it never raises. PyYAML is imported on first use.
"""

from __future__ import annotations

import json
import re
from typing import Any

from chatcli import translation
from chatcli_records_lite import dataclass

__all__ = ["Frontmatter", "FrontmatterError", "load", "read", "read_lines", "repair_colons",
           "scalar", "split", "split_list"]
_, ngettext = translation(__name__)


class FrontmatterError(ValueError):
    """Why a file's frontmatter cannot be read, in one line. ``kind`` is ``"missing"`` (no
    opening ``---`` line), ``"unclosed"``, ``"yaml"`` (``line`` of the file, ``problem``),
    ``"empty"`` or ``"not-mapping"`` (``value`` holds what was read); ``front``, ``body`` and
    ``body_line`` are what the split found (the whole text is the body without a frontmatter)."""

    def __init__(self, kind: str, message: str, *, front: str | None = None, body: str = "",
                 body_line: int = 1, line: int | None = None, problem: str = "",
                 value: Any = None) -> None:
        super().__init__(" ".join(message.splitlines()))
        self.kind = kind
        self.front = front
        self.body = body
        self.body_line = body_line
        self.line = line
        self.problem = problem
        self.value = value


@dataclass(frozen=True)
class Frontmatter:
    """A file read: its ``fields``, its ``body`` and the line where the body starts (1-based),
    the keys given more than once in a mapping, and the lines ``repair`` quoted."""

    fields: dict[Any, Any]
    body: str
    body_line: int = 1
    duplicates: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


NO_FRONTMATTER = "no frontmatter: the file must start with a '---' line"
NOT_CLOSED = "the frontmatter is not closed by a '---' line"


def split(text: str, max_lines: int | None = None) -> tuple[str | None, str, int, str | None]:
    """``(frontmatter, body, body_line, error)``: the text between the opening ``---`` line and
    the closing ``---`` (or ``...``) line, if it closes within ``max_lines``; else None, the
    whole text as the body, and :data:`NO_FRONTMATTER` or :data:`NOT_CLOSED`. A leading BOM
    is dropped."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1, NO_FRONTMATTER
    last = len(lines) if max_lines is None else min(len(lines), max_lines + 1)
    for index in range(1, last):
        if lines[index].rstrip("\r\n").rstrip() in ("---", "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1:]), index + 2, None
    return None, text, 1, NOT_CLOSED


def _loader(duplicates: list[str], text_only: bool) -> type:
    """A safe YAML loader that records keys given twice in a mapping (``text_only``: the base
    loader, which reads every scalar as text)."""
    import yaml

    if text_only:
        base = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    else:
        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        depth = 0

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if self.depth == 0:
                seen: set[Any] = set()
                for key_node, _value in node.value:
                    key = getattr(key_node, "value", None)
                    if key in seen:
                        duplicates.append(str(key))
                    seen.add(key)
            self.depth += 1
            try:
                return super().construct_mapping(node, deep=deep)
            finally:
                self.depth -= 1

    return Loader


def _friendly(problem: str) -> str:
    """PyYAML's problem in words that do not depend on its C or Python parser."""
    if "mapping values are not allowed" in problem:
        return _("a colon followed by a space inside an unquoted value (quote the value)")
    return problem


def load(front: str, *, text_only: bool = False) -> tuple[Any, list[str]]:
    """``(value, keys given twice)`` of the YAML ``front`` (the frontmatter of a file,
    its line 2 onwards); raises :class:`FrontmatterError` of kind ``"yaml"``."""
    import yaml

    duplicates: list[str] = []
    try:
        value = yaml.load(front, Loader=_loader(duplicates, text_only))  # a safe loader
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = str(getattr(err, "problem", None) or str(err).splitlines()[0])
        line = mark.line + 2 if mark is not None else None
        message = _("the frontmatter is not valid YAML: {problem}").format(
            problem=_friendly(problem))
        if line is not None:
            message = _("line {line}: {message}").format(line=line, message=message)
        raise FrontmatterError(
            "yaml",  # untranslated: the error's kind
            message, front=front, line=line, problem=problem) from None
    except (RecursionError, ValueError, OverflowError) as err:  # absurd nesting, bad numbers
        problem = f"{type(err).__name__}: {err}"
        raise FrontmatterError(
            "yaml",  # untranslated: the error's kind
            _("the frontmatter is not valid YAML: {problem}").format(problem=problem),
            front=front, problem=problem) from None
    return value, duplicates


#: A top-level ``key: value`` line whose value is plain text (not quoted, not a block, not a
#: flow collection, not an anchor, alias or tag).
#: (Patterns here are compiled by ``re``'s cache on first use, not at import.)
_PLAIN_LINE = (
    r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_-]*):[ \t]+(?P<value>[^'\"|>\[{&*!#\s].*?)\s*$")


def repair_colons(front: str) -> tuple[str, list[str]]:
    """``front`` with plain top-level values that hold ``': '`` quoted, and one warning per
    repaired line."""
    lines = front.splitlines(keepends=True)
    warnings = []
    for index, line in enumerate(lines):
        match = re.match(_PLAIN_LINE, line.rstrip("\r\n"))
        if match is None:
            continue
        value = match.group("value")
        if ": " not in value and not value.endswith(":"):
            continue
        ending = line[len(line.rstrip("\r\n")):]
        lines[index] = f"{match.group('key')}: {json.dumps(value, ensure_ascii=False)}{ending}"
        warnings.append(_("line {line}: unquoted colon in the value of {key!r}; read it as text "
                          "(quote the value)").format(line=index + 2, key=match.group("key")))
    return "".join(lines), warnings


def read(text: str, *, repair: bool = False, text_only: bool = False,
         max_lines: int | None = None) -> Frontmatter:
    """The frontmatter fields and the body of ``text``; raises :class:`FrontmatterError` (one
    line) when there is no frontmatter, it is not closed (within ``max_lines``), it is not valid
    YAML, or it is empty or not a mapping."""
    front, body, body_line, error = split(text, max_lines)
    if front is None:
        missing = error != NOT_CLOSED
        raise FrontmatterError(
            "missing" if missing else "unclosed",  # untranslated: the error's kind
            _("no frontmatter: the file must start with a '---' line") if missing else
            _("the frontmatter is not closed by a '---' line"), body=body, body_line=body_line)
    warnings: list[str] = []
    try:
        try:
            value, duplicates = load(front, text_only=text_only)
        except FrontmatterError:
            repaired, warnings = repair_colons(front) if repair else (front, [])
            if not warnings:
                raise
            value, duplicates = load(repaired, text_only=text_only)
    except FrontmatterError as err:
        err.front, err.body, err.body_line = front, body, body_line
        raise
    if not isinstance(value, dict):
        kind, shown = ("empty", _("the frontmatter is empty")) if value is None else (
            "not-mapping", _("the frontmatter is a {kind}, not a mapping").format(
                kind=type(value).__name__))
        raise FrontmatterError(kind, shown, front=front, body=body, body_line=body_line,
                               value=value)
    return Frontmatter(value, body, body_line, tuple(duplicates), tuple(warnings))


# ------------------------------------------------------------------ the forgiving line reader

_KEY = r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|)$"
_ITEM = r"^\s*-(?:\s+(.*)|)$"


def read_lines(front: str) -> dict[str, str | list[str]]:
    """The fields of a frontmatter read line by line, for one YAML refuses: lower-case keys
    mapped to text or lists of text (``key: value``, quoted values, ``[a, "b"]``, ``- item``
    lines, ``|`` and ``>`` blocks; comments dropped; anything else skipped). Never raises."""
    lines = [line.rstrip("\r") for line in front.split("\n")]
    fields: dict[str, str | list[str]] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1].isspace():
            continue
        match = re.match(_KEY, line.rstrip())
        if match is None:
            continue
        key = match.group(1).lower()
        raw = _strip_comment(match.group(2) or "").strip()
        if raw in ("|", ">", "|-", ">-", "|+", ">+"):
            block, index = _indented(lines, index)
            joiner = "\n" if raw.startswith("|") else " "
            fields[key] = joiner.join(part.strip() for part in block).strip()
        elif raw.startswith("[") and raw.endswith("]"):
            fields[key] = [v for v in (scalar(p) for p in split_list(raw[1:-1])) if v]
        elif raw:
            fields[key] = scalar(raw)
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
        match = re.match(_ITEM, line)
        if match is None:
            break
        value = scalar(_strip_comment(match.group(1) or "").strip())
        if value:
            items.append(value)
        index += 1
    return items, index


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
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    quote: str | None = None
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
