"""The Agent Skills format (agentskills.io), strictly: what ``chatcli skills validate`` reports.

A skill is a folder holding ``SKILL.md``: YAML frontmatter between ``---`` lines, then markdown
instructions. The specification's fields are ``name`` (1–64 characters: lowercase letters,
digits and single hyphens, not at either end, equal to the folder's name), ``description``
(1–1,024 characters, required), and the optional ``license``, ``compatibility`` (1–500
characters), ``metadata`` (a map of strings to strings) and ``allowed-tools`` (a space-separated
string or a list of strings). chatcli also reads fields other tools added and users rely on:
``triggers``, ``paths``, ``user-invocable``, ``disable-model-invocation``, ``argument-hint`` and
``model`` (:data:`EXTENSION_FIELDS`); ``--spec`` treats them as the reference validator
(skills-ref) does, as fields the specification does not allow.

Every function here is pure: it takes parsed values and returns problems, one line each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from chatcli import translation

__all__ = [
    "EXTENSION_FIELDS",
    "MAX_COMPATIBILITY",
    "MAX_DESCRIPTION",
    "MAX_NAME",
    "NAME_PATTERN",
    "SPEC_FIELDS",
    "extension_problems",
    "field_problems",
    "name_problems",
    "valid_name",
]

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
#: A valid name, whole: lowercase ASCII letters and digits in groups joined by single hyphens.
NAME_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

_, ngettext = translation(__name__)

SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
#: Fields outside the specification that chatcli reads, with the type each must have.
EXTENSION_FIELDS: dict[str, str] = {
    "triggers": "words",
    "paths": "words",
    "user-invocable": "bool",
    "disable-model-invocation": "bool",
    "argument-hint": "text",
    "model": "text",
}


def valid_name(name: object) -> bool:
    """Whether ``name`` is a valid skill name (the folder is not checked)."""
    return (isinstance(name, str) and 0 < len(name) <= MAX_NAME
            and NAME_PATTERN.fullmatch(name) is not None)


def name_problems(name: object, folder: str | None = None) -> list[str]:
    """What is wrong with ``name`` as the ``name`` of the skill in ``folder``."""
    if not isinstance(name, str):
        return [_("'name' must be text, not {kind}").format(kind=_kind(name))]
    if not name.strip():
        return [_("'name' is empty")]
    problems = []
    if len(name) > MAX_NAME:
        problems.append(_("'name' is {count} characters, over the limit of {limit}").format(
            count=len(name), limit=MAX_NAME))
    if name != name.lower():
        problems.append(_("'name' {name!r} has uppercase letters (use lowercase)").format(
            name=name))
    bad = sorted({c for c in name.lower() if not (c.isascii() and (c.isalnum() or c == "-"))})
    if bad:
        shown = "".join(bad)
        problems.append(_("'name' {name!r} has characters other than a-z, 0-9 and '-': "
                          "{found!r}").format(name=name, found=shown))
    if name.startswith("-") or name.endswith("-"):
        problems.append(_("'name' {name!r} starts or ends with a hyphen").format(name=name))
    if "--" in name:
        problems.append(_("'name' {name!r} has consecutive hyphens").format(name=name))
    if folder is not None and name != folder:
        problems.append(_("'name' {name!r} differs from its folder's name {folder!r}").format(
            name=name, folder=folder))
    return problems


def field_problems(fields: Mapping[str, Any], folder: str | None = None, *,
                   spec_only: bool = False) -> list[str]:
    """Every problem of a parsed frontmatter mapping, in the order of the fields."""
    problems = []
    allowed = set(SPEC_FIELDS) if spec_only else {*SPEC_FIELDS, *EXTENSION_FIELDS}
    unknown = [str(key) for key in fields if key not in allowed]
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        allowed_names = ", ".join(SPEC_FIELDS)
        if spec_only:
            problems.append(ngettext(
                "unknown field {names} (the specification allows {allowed})",
                "unknown fields {names} (the specification allows {allowed})",
                len(unknown)).format(names=names, allowed=allowed_names))
        else:
            problems.append(ngettext(
                "unknown field {names} (the specification allows {allowed}; chatcli also "
                "reads {extensions})",
                "unknown fields {names} (the specification allows {allowed}; chatcli also "
                "reads {extensions})", len(unknown)).format(
                    names=names, allowed=allowed_names, extensions=", ".join(EXTENSION_FIELDS)))
    if "name" not in fields:
        problems.append(_("'name' is missing (required)"))
    else:
        problems += name_problems(fields["name"], folder)
    if "description" not in fields:
        problems.append(_("'description' is missing (required)"))
    else:
        problems += _text_problems("description", fields["description"], MAX_DESCRIPTION)
    if "license" in fields and not isinstance(fields["license"], str):
        problems.append(_("'{key}' must be text, not {kind}").format(
            key="license", kind=_kind(fields["license"])))
    if "compatibility" in fields:
        problems += _text_problems("compatibility", fields["compatibility"], MAX_COMPATIBILITY)
    if "metadata" in fields:
        problems += _metadata_problems(fields["metadata"])
    if "allowed-tools" in fields:
        problems += _words_problems("allowed-tools", fields["allowed-tools"],
                                    _("a space-separated string or a list of strings"))
    if not spec_only:
        for key, kind in EXTENSION_FIELDS.items():
            if key in fields:
                problems += extension_problems(key, kind, fields[key])
    return problems


def _text_problems(key: str, value: Any, limit: int) -> list[str]:
    if not isinstance(value, str):
        return [_("'{key}' must be text, not {kind}").format(key=key, kind=_kind(value))]
    if not value.strip():
        return [_("'{key}' is empty").format(key=key)]
    if len(value) > limit:
        return [_("'{key}' is {count:,} characters, over the limit of {limit:,}").format(
            key=key, count=len(value), limit=limit)]
    return []


def _metadata_problems(value: Any) -> list[str]:
    if not isinstance(value, Mapping):
        return [_("'metadata' must be a map of text to text, not {kind}").format(
            kind=_kind(value))]
    problems = []
    for key, item in value.items():
        if not isinstance(key, str):
            problems.append(_("'metadata' key {key!r} must be text (quote it)").format(key=key))
        if not isinstance(item, str):
            problems.append(_("'metadata' value of {key!r} must be text, not {kind} (quote it)")
                            .format(key=str(key), kind=_kind(item)))
    return problems


def _words_problems(key: str, value: Any, expected: str) -> list[str]:
    if isinstance(value, str):
        return []
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return []
        return [_("'{key}' must list only text items").format(key=key)]
    return [_("'{key}' must be {expected}, not {kind}").format(key=key, expected=expected,
                                                              kind=_kind(value))]


def extension_problems(key: str, kind: str, value: Any) -> list[str]:
    if kind == "words":
        return _words_problems(key, value, _("text or a list of text"))
    if kind == "bool":
        return [] if isinstance(value, bool) else [
            _("'{key}' must be true or false, not {kind}").format(key=key, kind=_kind(value))]
    return [] if isinstance(value, str) and value.strip() else [
        _("'{key}' must be non-empty text, not {kind}").format(key=key, kind=_kind(value))]


def _kind(value: Any) -> str:
    """How a YAML value reads to a person: ``a number (1.0)``, ``a list``, ``nothing``."""
    if value is None:
        return _("nothing")
    if isinstance(value, bool):
        return _("a boolean ({value})").format(value=str(value).lower())
    if isinstance(value, (int, float)):
        return _("a number ({value})").format(value=value)
    if isinstance(value, str):
        return _("text")
    if isinstance(value, Mapping):
        return _("a map")
    if isinstance(value, list):
        return _("a list")
    return _("a {type}").format(type=type(value).__name__)
