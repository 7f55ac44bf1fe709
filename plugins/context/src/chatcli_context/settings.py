"""The plugin's settings (the ``[context]`` table) and whether ``context_pull`` is on.

Whether pull is on is read the same way by every plugin that defers material behind
``context_pull`` (:func:`pull_enabled`): the top-level ``chat_context_pull`` setting first
(``CHATCLI_CHAT_CONTEXT_PULL`` sets it, and so does ``/context pull on|off`` for the rest of a
session), then ``[context] pull``, then on.
"""

from __future__ import annotations

import os
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from chatcli import parse_bool, translation
from chatcli_records_lite import dataclass

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["PULL_ENV", "PULL_SETTING", "ContextOptions", "pull_enabled"]

_, ngettext = translation(__name__)

#: The top-level setting (and its variable) that switches pull for a run or a session.
PULL_SETTING = "chat_context_pull"
PULL_ENV = "CHATCLI_CHAT_CONTEXT_PULL"


def pull_enabled(settings: Settings | None) -> bool:
    """Whether ``context_pull`` is on for ``settings`` (see the module's docstring)."""
    extra = (settings.model_extra or {}) if settings is not None else {}
    for value in (extra.get(PULL_SETTING), os.environ.get(PULL_ENV)):
        parsed = parse_bool(value)
        if parsed is not None:
            return parsed
    table = settings.plugin_table("context") if settings is not None else {}
    parsed = parse_bool(table.get("pull"))
    return True if parsed is None else parsed


@dataclass(frozen=True)
class ContextOptions:
    """The ``[context]`` table, checked (a wrong value is reported and its default used)."""

    #: bootstrap files (AGENTS.md, CLAUDE.md, …) in the prompt
    bootstrap: bool = True
    #: characters of one bootstrap or rule file in the prompt, and of all bootstrap files
    bootstrap_max_chars: int = 20_000
    bootstrap_total_max_chars: int = 60_000
    #: path-scoped rules (.chatcli/rules/*.md)
    rules: bool = True
    rule_max_chars: int = 8_000
    #: characters of attached contexts shown whole in the prompt; beyond it (pull on) a context
    #: is shown as a digest and read back with context_pull
    prompt_budget: int = 24_000
    #: what /context create takes: characters per file and per context, files per context
    file_max_chars: int = 100_000
    context_max_chars: int = 400_000
    context_max_files: int = 2_000

    @classmethod
    def from_settings(cls, settings: Settings | None) -> tuple[ContextOptions, list[str]]:
        """The options of ``settings``, and one line per value that was wrong."""
        table = settings.plugin_table("context") if settings is not None else {}
        values: dict[str, Any] = {}
        problems: list[str] = []
        for field in fields(cls):
            if field.name not in table:
                continue
            raw = table[field.name]
            parsed: bool | int | None
            if field.type in ("bool", bool):
                parsed = parse_bool(raw)
                ok = parsed is not None
            else:
                parsed = _positive_int(raw)
                ok = parsed is not None
            if ok:
                values[field.name] = parsed
            else:
                message = (_("[context] {key} must be true or false, not {value!r:.40}; using "
                             "{default!r}") if field.type in ("bool", bool) else
                           _("[context] {key} must be a whole number ≥ 1, not {value!r:.40}; "
                             "using {default!r}"))
                problems.append(message.format(key=field.name, value=raw,
                                               default=getattr(cls, field.name)))
        return cls(**values), problems


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and value >= 1 else None
