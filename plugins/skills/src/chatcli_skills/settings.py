"""The ``[skills]`` settings table.

::

    [skills]
    budget = 12000          # bytes of skill bodies injected per turn; more become pointers
    auto = true             # activate skills by trigger words and paths (false: only when asked)
    pinned = ["house-style"]  # skills whose bodies live in the cached system prompt
    disabled = ["pdf"]      # skills never offered nor activated
    age_after = 6           # in a long turn (an agent run), a body injected this many model
                            # calls ago is shortened to a stub (0: never)

A wrong value is reported once (one line naming the key) and its default is used.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from chatcli import translation
from chatcli_records_lite import dataclass

__all__ = ["DEFAULT_BUDGET", "Options", "read_options"]

DEFAULT_BUDGET = 12_000
DEFAULT_AGE_AFTER = 6


@dataclass(frozen=True)
class Options:
    """The effective ``[skills]`` settings."""

    budget: int = DEFAULT_BUDGET
    auto: bool = True
    pinned: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    age_after: int = DEFAULT_AGE_AFTER
    problems: tuple[str, ...] = field(default=(), compare=False)


_, ngettext = translation(__name__)


def _names(value: Any, key: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(dict.fromkeys(v.strip() for v in value if v.strip()))
    problems.append(_("skills.{key} must be a list of skill names; ignored").format(key=key))
    return ()


def _count(value: Any, key: str, default: int, problems: list[str]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        problems.append(_("skills.{key} must be a whole number ≥ 0, not {value!r}; using "
                          "{default:,}").format(key=key, value=value, default=default))
        return default
    return value


def read_options(settings: Any) -> Options:
    """The ``[skills]`` table of ``settings`` (a :class:`chatcli.Settings`, or None)."""
    table = settings.plugin_table("skills") if settings is not None else {}
    problems: list[str] = []
    budget = _count(table.get("budget", DEFAULT_BUDGET), "budget", DEFAULT_BUDGET, problems)
    auto = table.get("auto", True)
    if not isinstance(auto, bool):
        problems.append(_("skills.auto must be true or false, not {value!r}; using true")
                        .format(value=auto))
        auto = True
    age = _count(table.get("age_after", DEFAULT_AGE_AFTER), "age_after", DEFAULT_AGE_AFTER,
                 problems)
    return Options(
        budget=budget, auto=auto, age_after=age,
        pinned=_names(table.get("pinned", []), "pinned", problems),
        disabled=_names(table.get("disabled", []), "disabled", problems),
        problems=tuple(problems),
    )
