"""Reading a SKILL.md: the YAML frontmatter and the markdown body (with chatcli-frontmatter).

Two readers: :func:`read_strict` for ``chatcli skills validate`` (a YAML error is a problem,
duplicate keys are reported) and :func:`read_lenient` for loading, which reads an unquoted colon
inside a value (``description: Use when: …``) as text and says so in one line per repaired line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chatcli import translation
from chatcli_frontmatter import FrontmatterError, read

__all__ = ["Parsed", "read_lenient", "read_strict"]

_, ngettext = translation(__name__)


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


def read_strict(text: str) -> Parsed:
    """Parse ``text`` as the specification requires; every problem is an error."""
    try:
        doc = read(text)
    except FrontmatterError as err:
        shown = (_("{error} (write 'name: …' and 'description: …' lines)").format(error=err)
                 if err.kind in ("empty", "not-mapping") else str(err))
        return Parsed(None, err.body, [shown], body_line=err.body_line)
    errors = [_("field {key!r} appears more than once").format(key=key)
              for key in dict.fromkeys(doc.duplicates)]
    return Parsed(doc.fields, doc.body, errors, body_line=doc.body_line)


def read_lenient(text: str) -> Parsed:
    """Parse ``text`` as real files need: an unquoted colon in a plain value is read as text
    (with a warning); other YAML errors, or no frontmatter, are errors."""
    try:
        doc = read(text, repair=True)
    except FrontmatterError as err:
        shown = _("the frontmatter is not a mapping") if err.kind == "not-mapping" else str(err)
        return Parsed(None, err.body, [shown], body_line=err.body_line)
    return Parsed(doc.fields, doc.body, [], list(doc.warnings), body_line=doc.body_line)
