"""The ``[repomap]`` table: what the environment section and the repository map do.

```toml
[repomap]
map = true            # the repository map in the prompt
tokens = 1024         # its budget (tokens, estimated as characters / 4)
max_files = 1000      # source files parsed at most (the rest are named as left out)
max_file_kb = 256     # bigger files are skipped (generated code, bundles)
seconds = 3           # parsing time of one build at most (the rest waits for a later map)
environment = true    # the environment section
commits = 5           # recent commit subjects in it
```

A wrong value is reported once and its default used.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from chatcli import translation
from chatcli_records_lite import dataclass

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["RepomapOptions"]

TABLE = "repomap"

_, ngettext = translation(__name__)


@dataclass(frozen=True)
class RepomapOptions:
    """The ``[repomap]`` table, checked."""

    map: bool = True
    tokens: int = 1024
    max_files: int = 1000
    max_file_kb: int = 256
    seconds: int = 3
    environment: bool = True
    commits: int = 5

    @classmethod
    def from_settings(cls, settings: Settings | None) -> tuple[RepomapOptions, list[str]]:
        """The options of ``settings`` and one line per wrong value."""
        from chatcli import parse_bool

        table = settings.plugin_table(TABLE) if settings is not None else {}
        values: dict[str, Any] = {}
        problems: list[str] = []
        for field in fields(cls):
            if field.name not in table:
                continue
            raw = table[field.name]
            is_bool = field.type in ("bool", bool)
            parsed = parse_bool(raw) if is_bool else _whole(raw, zero=field.name == "commits")
            if parsed is None:
                message = (_("[{table}] {key} must be true or false, not {value!r:.40}; using "
                             "{default!r}") if is_bool else
                           _("[{table}] {key} must be a whole number, not {value!r:.40}; using "
                             "{default!r}"))
                problems.append(message.format(table=TABLE, key=field.name, value=raw,
                                               default=getattr(cls, field.name)))
            else:
                values[field.name] = parsed
        return cls(**values), problems


def _whole(value: Any, *, zero: bool = False) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and (value >= 1 or (zero and value == 0)):
        return value
    return None
