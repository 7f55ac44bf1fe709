"""The ``[fallback]`` table: the chain, named pools, and how failures are handled.

Plain data and standard library only: :func:`group_names` runs while providers are registered
(``chatcli models``, ``--help``), so it reads the raw settings and nothing else.

```toml
[fallback]
chain = ["anthropic/claude-sonnet-4-5", "openai/gpt-5.4-mini", "local"]
also_on = []              # auth, bad_request, context_too_long, model_not_found
cooldown = 30             # seconds a failed entry is skipped, doubled per failure in a row…
cooldown_factor = 2
cooldown_max = 600        # …up to this
unhealthy_after = 5       # pools: errors in a row that make an entry unavailable
recovery = 300            # pools: seconds before an unavailable entry is tried again
timeout = 60              # seconds an entry may stay silent before the chain moves on

[fallback.pools.fast]
entries = ["openai/gpt-5.4-mini", "groq/llama-3.3-70b-versatile"]
strategy = "round_robin"  # or "failover", or "chain"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chatcli import translation

from chatcli_fallback.names import CHAIN, group_names

__all__ = [
    "CHAIN",
    "DEFAULT_OPTIONS",
    "MOVE_ON",
    "STOP_KINDS",
    "STRATEGIES",
    "Entry",
    "Group",
    "Options",
    "base_options",
    "group_names",
    "load_groups",
    "parse_entries",
]

_, ngettext = translation(__name__)


#: How a group picks its entries.
STRATEGIES = ("chain", "round_robin", "failover")

#: Errors that move on to the next entry (the kernel's class names).
MOVE_ON = ("RateLimitError", "ServerError", "ProviderTimeoutError", "NetworkError",
           "StreamCutError", "ProviderError")

#: Errors that are the user's to fix and stop the chain, unless ``also_on`` names them.
STOP_KINDS = {
    "auth": "AuthError",
    "bad_request": "BadRequestError",
    "context_too_long": "ContextTooLongError",
    "model_not_found": "ModelNotFoundError",
}


@dataclass(frozen=True)
class Options:
    """How a group handles failures (``[fallback]``, overridden per pool)."""

    also_on: frozenset[str] = frozenset()
    cooldown: float = 30.0
    cooldown_factor: float = 2.0
    cooldown_max: float = 600.0
    unhealthy_after: int = 5
    recovery: float = 300.0
    timeout: float = 60.0

    def moves_on(self, kind: str) -> bool:
        """Whether an error of class ``kind`` sends the call to the next entry."""
        return kind in MOVE_ON or kind in self.also_on

    def cooldown_for(self, errors: int, retry_after: float | None = None) -> float:
        """Seconds an entry cools down after its ``errors``-th failure in a row."""
        delay = self.cooldown * self.cooldown_factor ** max(errors - 1, 0)
        if retry_after is not None and retry_after > delay:
            delay = retry_after
        return min(delay, self.cooldown_max)


DEFAULT_OPTIONS = Options()

_NUMBERS = {
    "cooldown": (0.0, 86_400.0),
    "cooldown_factor": (1.0, 100.0),
    "cooldown_max": (0.0, 86_400.0),
    "recovery": (0.0, 86_400.0),
    "timeout": (0.1, 86_400.0),
}
_OPTION_KEYS = ("also_on", "unhealthy_after", *_NUMBERS)


@dataclass(frozen=True)
class Entry:
    """One provider/model pair; ``model`` None means the provider's configured or default."""

    provider: str
    model: str | None = None

    @property
    def key(self) -> str:
        """``provider/model`` (``provider`` alone when no model is named): its health key."""
        return f"{self.provider}/{self.model}" if self.model else self.provider

    def shown(self, model: str | None = None) -> str:
        """The entry as the user reads it, with ``model`` when the default was resolved."""
        return f"{self.provider}/{self.model or model}" if (self.model or model) else self.provider


@dataclass(frozen=True)
class Group:
    """A chain or pool: its provider name, strategy, entries and options."""

    name: str
    strategy: str
    entries: tuple[Entry, ...]
    options: Options = DEFAULT_OPTIONS
    #: where it is configured, for error messages (``[fallback] chain``)
    where: str = "[fallback] chain"
    extra: Mapping[str, Any] = field(default_factory=dict)


def _config_error(message: str, hint: str) -> Exception:
    from chatcli import ConfigError

    return ConfigError(message, hint)


def parse_entries(value: Any, where: str) -> tuple[Entry, ...]:
    """Entries from a TOML array (``"provider/model"`` strings or ``{provider, model}``
    tables) or a text list (``"a/x, b/y"`` — a variable or ``--model``)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            import tomllib

            try:
                value = tomllib.loads(f"v = {text}")["v"]
            except tomllib.TOMLDecodeError:
                raise _config_error(
                    _("{where} is not a TOML array: {text!r}").format(where=where,
                                                                       text=text[:60]),
                    _('write it as ["provider/model", …] or a/x,b/y')) from None
        else:
            value = [part for part in (p.strip() for p in text.split(",")) if part]
    if not isinstance(value, list) or not value:
        raise _config_error(
            _("{where} must be a non-empty list of provider/model entries").format(where=where),
            _('e.g. ["anthropic/claude-sonnet-4-5", "openai/gpt-5.4-mini"]'))
    entries = []
    for item in value:
        if isinstance(item, dict):
            provider, model = item.get("provider"), item.get("model")
            if not isinstance(provider, str) or not (model is None or isinstance(model, str)):
                raise _config_error(_("{where}: an entry table needs provider (and optionally "
                                      "model) as text, not {item:.60}").format(
                                          where=where, item=repr(item)),
                                    '{provider = "openai", model = "gpt-5.4-mini"}')
        elif isinstance(item, str):
            provider, _sep, model = item.strip().partition("/")
            model = model.strip() or None
        else:
            raise _config_error(_("{where}: {item:.40} is not a provider/model entry").format(
                                    where=where, item=repr(item)),
                                _('write entries as "provider/model" or "provider"'))
        provider = provider.strip()
        if not provider:
            raise _config_error(_("{where}: an entry has no provider name: {item:.60}").format(
                                    where=where, item=repr(item)),
                                _('write entries as "provider/model" or "provider"'))
        entries.append(Entry(provider, model))
    return tuple(entries)


def _options(table: Mapping[str, Any], base: Options, where: str) -> Options:
    changes: dict[str, Any] = {}
    for key, (low, high) in _NUMBERS.items():
        if key not in table:
            continue
        value = _number(table[key])
        if value is None or not low <= value <= high:
            raise _config_error(_("{where}: '{key}' must be a number from {low:g} to {high:g}, "
                                  "not {value:.40}").format(where=where, key=key, low=low,
                                                            high=high, value=repr(table[key])),
                                _("fix {key} in the [fallback] table").format(key=key))
        changes[key] = value
    if "unhealthy_after" in table:
        value = _number(table["unhealthy_after"])
        if value is None or value != int(value) or not 1 <= value <= 1000:
            raise _config_error(_("{where}: 'unhealthy_after' must be a whole number from 1 to "
                                  "1000, not {value:.40}").format(
                                      where=where, value=repr(table["unhealthy_after"])),
                                _("fix {key} in the [fallback] table").format(
                                    key="unhealthy_after"))
        changes["unhealthy_after"] = int(value)
    if "also_on" in table:
        changes["also_on"] = _also_on(table["also_on"], where)
    if not changes:
        return base
    from dataclasses import replace

    return replace(base, **changes)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):  # a CHATCLI_FALLBACK__… variable
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _also_on(value: Any, where: str) -> frozenset[str]:
    if isinstance(value, str):
        value = [v.strip() for v in value.strip("[]").replace('"', "").split(",") if v.strip()]
    if not isinstance(value, list):
        raise _config_error(_("{where}: 'also_on' must be a list of error kinds").format(
                                where=where),
                            _("choose from {names}").format(names=", ".join(STOP_KINDS)))
    kinds = set()
    for item in value:
        name = str(item).strip().lower()
        kind = STOP_KINDS.get(name) or next(
            (k for k in STOP_KINDS.values() if k.lower() == name), None)
        if kind is None:
            import difflib

            close = difflib.get_close_matches(name, list(STOP_KINDS), n=1)
            raise _config_error(_("{where}: 'also_on' names an unknown error kind {item:.40}")
                                .format(where=where, item=repr(item)),
                                _("did you mean '{name}'?").format(name=close[0]) if close else
                                _("choose from {names}").format(names=", ".join(STOP_KINDS)))
        kinds.add(kind)
    return frozenset(kinds)


def _table(raw: Mapping[str, Any]) -> dict[str, Any]:
    table = raw.get("fallback")
    return table if isinstance(table, dict) else {}


def base_options(raw: Mapping[str, Any]) -> Options:
    """The options of the ``[fallback]`` table itself (what every pool starts from)."""
    return _options(_table(raw), DEFAULT_OPTIONS, "[fallback]")


def load_groups(raw: Mapping[str, Any]) -> dict[str, Group]:
    """Every group of the ``[fallback]`` table, checked; raises ConfigError naming the key.

    The chain appears only when ``chain`` is set."""
    table = _table(raw)
    known = {"chain", "pools", *_OPTION_KEYS}
    for key in table:
        if key not in known:
            import difflib

            close = difflib.get_close_matches(key, sorted(known), n=1)
            raise _config_error(_("[fallback]: unknown setting '{key}'").format(key=key),
                                _("did you mean '{name}'?").format(name=close[0]) if close else
                                _("[fallback] accepts: {names}").format(
                                    names=", ".join(sorted(known))))
    base = _options(table, DEFAULT_OPTIONS, "[fallback]")
    groups: dict[str, Group] = {}
    if table.get("chain") is not None:
        groups[CHAIN] = Group(CHAIN, "chain", parse_entries(table["chain"], "[fallback] chain"),
                              base)
    pools = table.get("pools") or {}
    if not isinstance(pools, dict):
        raise _config_error(_("[fallback] pools must be a table of named pools"),
                            '[fallback.pools.NAME] entries = ["provider/model", …]')
    for name, pool in pools.items():
        where = f"[fallback.pools.{name}]"
        if name == CHAIN:
            raise _config_error(_("{where}: '{name}' is the chain's name").format(
                                    where=where, name=CHAIN),
                                _("give the pool another name"))
        if not isinstance(pool, dict):
            raise _config_error(_("{where} must be a table").format(where=where),
                                'entries = ["provider/model", …]')
        for key in pool:
            if key not in {"entries", "strategy", *_OPTION_KEYS}:
                raise _config_error(_("{where}: unknown setting '{key}'").format(
                                        where=where, key=key),
                                    _("a pool accepts entries, strategy, {names}").format(
                                        names=", ".join(_OPTION_KEYS)))
        strategy = str(pool.get("strategy", "round_robin"))
        if strategy not in STRATEGIES:
            raise _config_error(_("{where}: strategy must be one of {names}, not {value:.40}")
                                .format(where=where, names=", ".join(STRATEGIES),
                                        value=repr(strategy)),
                                _('e.g. strategy = "failover"'))
        if "entries" not in pool:
            raise _config_error(_("{where} has no entries").format(where=where),
                                _('add entries = ["provider/model", …]'))
        groups[name] = Group(name, strategy, parse_entries(pool["entries"], f"{where} entries"),
                             _options(pool, base, where), where=f"{where} entries")
    return groups
