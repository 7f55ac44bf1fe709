"""The ``[agents]`` settings: read, checked, defaults filled in.

A wrong value is never fatal: :func:`read_config` reports it in one line (naming the key, what
it must be, and the command that fixes it) and the default is used. Values from the environment
(``CHATCLI_AGENTS__MAX_WORKERS=2``) arrive as text and are accepted when they spell a number.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost, Settings

__all__ = ["AgentsConfig", "agents_config", "read_config"]

_, ngettext = translation(__name__)


@dataclass(frozen=True)
class AgentsConfig:
    """What delegations read from ``[agents]``.

    - ``max_workers``: workers running at once (per level of nesting, per root conversation);
      more delegations wait for a free place.
    - ``max_depth``: how deep delegations nest: 1, workers cannot delegate; 2, a worker's
      worker may run, and so on.
    - ``max_turns``: model calls a worker may make (a type's own ``max_turns`` may lower it).
    - ``max_seconds``: how long a worker may run before it is stopped.
    - ``max_tokens``: tokens (input and output, summed over its calls) a worker may spend
      before it is stopped.
    - ``lock_wait``: seconds a worker waits for a file another worker is editing before its
      call fails (chatcli-workspace's file claims).
    """

    max_workers: int = 4
    max_depth: int = 1
    max_turns: int = 30
    max_seconds: float = 600.0
    max_tokens: int = 200_000
    lock_wait: float = 30.0


#: (key, smallest value, largest value) of the settings.
_LIMITS: dict[str, tuple[float, float]] = {
    "max_workers": (1, 64), "max_depth": (1, 8), "max_turns": (1, 500),
    "max_seconds": (1, 86_400), "max_tokens": (1_000, 100_000_000), "lock_wait": (0, 3_600)}
_WHOLE = {"max_workers", "max_depth", "max_turns", "max_tokens"}


def _number(value: Any, whole: bool) -> float | None:
    if isinstance(value, str):
        try:
            value = int(value.strip()) if whole else float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if whole and isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value


def read_config(table: dict[str, Any], warn: Callable[[str], None] | None = None
                ) -> AgentsConfig:
    """``[agents]`` as an :class:`AgentsConfig`; each wrong value is reported through ``warn``
    (one line naming the fix) and replaced by its default."""
    say = warn or (lambda line: None)
    defaults = AgentsConfig()
    values: dict[str, Any] = {}
    for key, (least, most) in _LIMITS.items():
        if key not in table:
            continue
        whole = key in _WHOLE
        value = _number(table[key], whole)
        if value is None or not least <= value <= most:
            default = getattr(defaults, key)
            message = (_("[agents] {key} must be a whole number from {least:,.0f} to "
                         "{most:,.0f}, not {value}; using {default:g} — fix it: chatcli config "
                         "set agents.{key} {default:g}") if whole else
                       _("[agents] {key} must be a number from {least:,.0f} to {most:,.0f}, "
                         "not {value}; using {default:g} — fix it: chatcli config set "
                         "agents.{key} {default:g}"))
            say(message.format(key=key, least=least, most=most, value=f"{table[key]!r:.40}",
                               default=default))
            continue
        values[key] = int(value) if whole else float(value)
    known = {f.name for f in fields(AgentsConfig)}
    for key in sorted(set(table) - known):
        say(_("[agents] has no setting {key!r} (known: {known}); it is ignored — remove it: "
              "chatcli config unset agents.{key}").format(key=key,
                                                         known=", ".join(sorted(known))))
    return AgentsConfig(**values)


_warned: set[str] = set()
_warn_lock = threading.Lock()


def agents_config(settings: Settings, host: PluginHost | None = None) -> AgentsConfig:
    """``[agents]`` of ``settings``; each wrong value reported once (through ``host``)."""

    def warn(line: str) -> None:
        with _warn_lock:
            if line in _warned:
                return
            _warned.add(line)
        if host is not None:
            host.warn(line)

    return read_config(settings.plugin_table("agents"), warn)
