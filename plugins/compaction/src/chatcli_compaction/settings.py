"""The ``[compaction]`` settings: read, checked, defaults filled in.

A wrong value is never fatal: :func:`read_config` reports it in one line (naming the key, what
it must be, and the command that fixes it) and the default is used. Values from the environment
(``CHATCLI_COMPACTION__AGE_AFTER=5``) arrive as text and are accepted when they spell a value
of the right kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from chatcli import translation

__all__ = ["STRATEGIES", "CompactionConfig", "read_config"]

_, ngettext = translation(__name__)

#: The strategies this plugin registers, in the order they run.
STRATEGIES = ("trim", "summarise", "truncate")


@dataclass(frozen=True)
class CompactionConfig:
    """What the strategies read from ``[compaction]``.

    - ``age_after``: tool results older than this many user turns shrink to head and tail.
    - ``age_one_line_after``: older than this many, to one line.
    - ``aged_chars``: the characters a head-and-tail copy keeps.
    - ``tool_output_max``: a tool result longer than this is cut to head and tail whatever its
      age (the recent messages excepted).
    - ``injected_min_chars``: a message repeating an earlier text at least this long is an
      injected copy and is replaced by a note.
    - ``summary_piece_tokens``: the most one summary call is given (0: half the context window,
      else the compaction's budget).
    - ``strategies``: which of trim, summarise and truncate run.
    """

    age_after: int = 3
    age_one_line_after: int = 8
    aged_chars: int = 1_500
    tool_output_max: int = 8_000
    injected_min_chars: int = 3_000
    summary_piece_tokens: int = 0
    strategies: tuple[str, ...] = STRATEGIES


#: (key, smallest value) of the whole-number settings.
_WHOLE = {"age_after": 1, "age_one_line_after": 1, "aged_chars": 200, "tool_output_max": 500,
          "injected_min_chars": 200, "summary_piece_tokens": 0}


def _whole(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _names(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        return None
    chosen = tuple(v.strip().lower() for v in value)
    return chosen if set(chosen) <= set(STRATEGIES) else None


def read_config(table: dict[str, Any], warn: Callable[[str], None] | None = None
                ) -> CompactionConfig:
    """``[compaction]`` as a :class:`CompactionConfig`; each wrong value is reported through
    ``warn`` (one line) and replaced by its default."""
    say = warn or (lambda line: None)
    defaults = CompactionConfig()
    values: dict[str, Any] = {}
    known = {f.name for f in fields(CompactionConfig)}
    for key, least in _WHOLE.items():
        if key not in table:
            continue
        value = _whole(table[key])
        if value is None or value < least:
            default = getattr(defaults, key)
            say(_("[compaction] {key} must be a whole number of at least {least}, not "
                  "{value!r:.40}; using {default} — fix it: chatcli config set "
                  "compaction.{key} {default}").format(key=key, least=least,
                                                       value=table[key], default=default))
            continue
        values[key] = value
    if "strategies" in table:
        names = _names(table["strategies"])
        if names is None:
            say(_("[compaction] strategies must be a list of {names}, not {value!r:.60}; "
                  "using all three — fix it: chatcli config set compaction.strategies "
                  "trim,summarise,truncate").format(names=", ".join(STRATEGIES),
                                                    value=table["strategies"]))
        else:
            values["strategies"] = names
    for key in sorted(set(table) - known):
        say(_("[compaction] has no setting {key!r} (known: {known}); it is ignored — remove "
              "it: chatcli config unset compaction.{key}").format(
                  key=key, known=", ".join(sorted(known))))
    config = CompactionConfig(**values)
    if config.age_one_line_after < config.age_after:
        say(_("[compaction] age_one_line_after ({one_line}) is below age_after ({after}); "
              "using {after} — fix it: chatcli config set compaction.age_one_line_after "
              "{fixed}").format(one_line=config.age_one_line_after, after=config.age_after,
                                fixed=max(config.age_after, 8)))
        config = CompactionConfig(**{**values, "age_one_line_after": config.age_after})
    return config
