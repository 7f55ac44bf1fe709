"""The ``[memory]`` settings, checked: a wrong value is one line and its default is used."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from chatcli import parse_bool, translation
from chatcli_records_lite import dataclass

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["MemoryOptions"]

_, ngettext = translation(__name__)


def _number(value: Any, kind: type[int] | type[float], minimum: float) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = kind(value.strip())
        except ValueError:
            return None
    if kind is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind) or value < minimum:
        return None
    return value


@dataclass(frozen=True)
class MemoryOptions:
    """The ``[memory]`` table. Times are in seconds unless the name says days."""

    #: memory at all (off: no recall, no extraction, no tools; ``chatcli memory`` still works)
    enabled: bool = True
    #: which registered backend stores memory
    backend: str = "sqlite"
    #: the SQLite file (default: ``<data dir>/memory/memory.db``)
    path: str = ""
    #: the project scope's key (default: the project folder's name and a hash of its path);
    #: a team sharing a PostgreSQL memory sets the same key in the project's config
    project: str = ""
    #: background extraction after answers
    extract: bool = True
    #: extraction in one-shot runs (``chatcli -p``), once at the end of the run
    extract_oneshot: bool = False
    #: the provider and model extraction uses (default: the session's)
    provider: str = ""
    model: str = ""
    #: new messages needed before an extraction, and the pause between two
    min_messages: int = 4
    cooldown: float = 120.0
    #: how often a long session checks for messages nobody extracted yet
    interval: float = 180.0
    #: the longest an extraction may take, and how long exit waits for one in flight
    timeout: float = 60.0
    exit_wait: float = 2.0
    #: characters of conversation one extraction reads
    extract_chars: int = 12_000
    #: the stable index: characters and facts
    index_chars: int = 1_500
    index_items: int = 20
    #: the volatile recall: characters and items per message
    recall_chars: int = 1_200
    recall_items: int = 5
    #: daily notes are kept (recalled) this many days, then archived
    daily_days: int = 7
    #: decay: a fact's strength halves after this many days unused; below ``archive_below`` it
    #: is archived (kept, never recalled)
    half_life_days: float = 30.0
    archive_below: float = 0.15
    #: similarity (0–1, token sets) above which two facts are one
    merge_similarity: float = 0.8
    #: import MEMORY.md (project root, config dir) when it changed
    import_markdown: bool = True

    @classmethod
    def from_settings(cls, settings: Settings | None) -> tuple[MemoryOptions, list[str]]:
        """The options of ``settings``, and one line per wrong value."""
        table = settings.plugin_table("memory") if settings is not None else {}
        return cls.from_table(table)

    @classmethod
    def from_table(cls, table: dict[str, Any]) -> tuple[MemoryOptions, list[str]]:
        values: dict[str, Any] = {}
        problems: list[str] = []
        known = {f.name: f for f in fields(cls)}
        backend = table.get("backend", cls.backend)
        for name, raw in table.items():
            field = known.get(name)
            if field is None and isinstance(backend, str) and name.startswith(f"{backend}_"):
                continue  # the backend's own key (postgres_url): the backend checks it
            if field is None:
                import difflib

                close = difflib.get_close_matches(name, list(known), n=1)
                problems.append(
                    _("[memory] has no setting {name!r}; did you mean {close!r}?").format(
                        name=name, close=close[0]) if close else
                    _("[memory] has no setting {name!r}").format(name=name))
                continue
            default = getattr(cls, name)
            parsed: bool | int | float | str | None
            if isinstance(default, bool):
                parsed, want = parse_bool(raw), _("true or false")
            elif isinstance(default, int):
                parsed, want = _number(raw, int, 0), _("a whole number ≥ 0")
            elif isinstance(default, float):
                parsed, want = _number(raw, float, 0.0), _("a number ≥ 0")
                if name in ("archive_below", "merge_similarity") and parsed is not None \
                        and parsed > 1:
                    parsed, want = None, _("a number from 0 to 1")
            else:
                parsed = raw.strip() if isinstance(raw, str) else None
                want = _("text")
            if parsed is None:
                problems.append(_("[memory] {name} must be {want}, not {value:.40}; using "
                                  "{default!r}").format(name=name, want=want, value=repr(raw),
                                                        default=default))
            else:
                values[name] = parsed
        return cls(**values), problems
