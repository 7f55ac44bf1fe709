"""Reading a SKILL.md: the YAML frontmatter (with PyYAML) and the markdown body.

Two readers share the parsing: :func:`read_strict` for ``chatcli skills validate`` (a YAML error
is a problem, duplicate keys are reported) and :func:`read_lenient` for loading, which repairs
the one mistake real files make most — an unquoted colon inside a value (``description: Use
when: …``, which YAML reads as a nested mapping and refuses) — and says so in one line per
repaired line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Parsed", "read_lenient", "read_strict", "split"]

#: A top-level ``key: value`` line whose value is plain text (not quoted, not a block, not a
#: flow collection, not an anchor, alias or tag).
_PLAIN_LINE = re.compile(
    r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_-]*):[ \t]+(?P<value>[^'\"|>\[{&*!#\s].*?)\s*$")


@dataclass
class Parsed:
    """What a SKILL.md holds: its fields (None when they cannot be read), body and problems."""

    fields: dict[str, Any] | None
    body: str = ""
    #: problems that stop it being read (strict: every problem)
    errors: list[str] = field(default_factory=list)
    #: what was repaired while reading leniently
    warnings: list[str] = field(default_factory=list)
    #: the line of the file where the body starts (1-based)
    body_line: int = 1


def split(text: str) -> tuple[str | None, str, int, str | None]:
    """``(frontmatter, body, body_line, error)``: the YAML between the opening ``---`` line and
    the closing ``---`` (or ``...``) line; None and an error when there is none."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1, "no frontmatter: the file must start with a '---' line"
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() in ("---", "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1:]), index + 2, None
    return None, text, 1, "the frontmatter is not closed by a '---' line"


def _loader(duplicates: list[str]) -> type:
    """A safe YAML loader (the C one when available) that records duplicate top-level keys."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        depth = 0

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if self.depth == 0:
                seen: set[Any] = set()
                for key_node, _ in node.value:
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


def _load(text: str) -> tuple[Any, list[str], str | None, int | None]:
    """``(value, duplicate keys, error, error line within text (0-based))``."""
    import yaml

    duplicates: list[str] = []
    try:
        value = yaml.load(text, Loader=_loader(duplicates))  # a SafeLoader subclass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        return None, duplicates, str(problem), (mark.line if mark is not None else None)
    except (RecursionError, ValueError, OverflowError) as err:  # absurd nesting, bad numbers
        return None, duplicates, f"{type(err).__name__}: {err}", None
    return value, duplicates, None, None


def _problem(problem: str) -> str:
    """PyYAML's problem in words that do not depend on its C or Python parser."""
    if "mapping values are not allowed" in problem:
        return "a colon followed by a space inside an unquoted value (quote the value)"
    return problem


def read_strict(text: str) -> Parsed:
    """Parse ``text`` as the specification requires; every problem is an error."""
    front, body, body_line, error = split(text)
    if front is None:
        return Parsed(None, body, [error or "no frontmatter"], body_line=body_line)
    value, duplicates, problem, line = _load(front)
    if problem is not None:
        where = f"line {line + 2}: " if line is not None else ""
        return Parsed(None, body, [f"{where}the frontmatter is not valid YAML: "
                                   f"{_problem(problem)}"], body_line=body_line)
    if not isinstance(value, dict):
        shown = "empty" if value is None else f"a {type(value).__name__}, not a mapping"
        return Parsed(None, body, [f"the frontmatter is {shown} (write 'name: …' and "
                                   "'description: …' lines)"], body_line=body_line)
    errors = [f"field {key!r} appears more than once" for key in dict.fromkeys(duplicates)]
    return Parsed(value, body, errors, body_line=body_line)


def _repair(front: str) -> tuple[str, list[str]]:
    """``front`` with plain top-level values that hold ``': '`` quoted, and one warning per
    repaired line."""
    lines = front.splitlines(keepends=True)
    warnings = []
    for index, line in enumerate(lines):
        match = _PLAIN_LINE.match(line.rstrip("\r\n"))
        if match is None:
            continue
        value = match.group("value")
        if ": " not in value and not value.endswith(":"):
            continue
        ending = line[len(line.rstrip("\r\n")):]
        lines[index] = f"{match.group('key')}: {json.dumps(value, ensure_ascii=False)}{ending}"
        warnings.append(f"line {index + 2}: unquoted colon in the value of "
                        f"{match.group('key')!r}; read it as text (quote the value)")
    return "".join(lines), warnings


def read_lenient(text: str) -> Parsed:
    """Parse ``text`` as real files need: an unquoted colon in a plain value is read as text
    (with a warning); other YAML errors, or no frontmatter, are errors."""
    front, body, body_line, error = split(text)
    if front is None:
        return Parsed(None, body, [error or "no frontmatter"], body_line=body_line)
    value, _duplicates, problem, line = _load(front)
    warnings: list[str] = []
    if problem is not None:
        repaired, warnings = _repair(front)
        if warnings:
            value, _duplicates, problem, line = _load(repaired)
    if problem is not None:
        where = f"line {line + 2}: " if line is not None else ""
        return Parsed(None, body, [f"{where}the frontmatter is not valid YAML: "
                                   f"{_problem(problem)}"], body_line=body_line)
    if not isinstance(value, dict):
        shown = "empty" if value is None else "not a mapping"
        return Parsed(None, body, [f"the frontmatter is {shown}"], body_line=body_line)
    return Parsed(value, body, [], warnings, body_line=body_line)
