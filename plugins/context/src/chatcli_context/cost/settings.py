"""The ``[cost]`` table: the session budget, an explicit cache TTL, the price entries.

```toml
[cost]
budget = 5.0            # USD per session: a warning at 80 % and at 100 %
limit = 20.0            # USD per session: no model call once it is spent (managed: only lower)
cache_ttl = "1h"        # "5m" or "1h": fixed; absent (or "auto"): chosen by evidence

[cost.prices."anthropic/claude-sonnet-5-5"]   # USD per million tokens; * patterns work too
# (the model table, [models."provider/model"] input/output/…, prices models too; these win)
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75      # five-minute writes; cache_write_1h for one-hour ones
```

``CHATCLI_PROMPT_CACHE_TTL`` (``5m``/``1h``) fixes the TTL too, over the file.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any

from chatcli import Settings, translation
from chatcli_records_lite import NamedTuple

from chatcli_context.cost.prices import ModelTable, Price, PriceTable, parse_price

__all__ = ["ENV_TTL", "CostConfig", "read_config"]

_, ngettext = translation(__name__)

#: The variable that fixes the prompt cache's TTL.
ENV_TTL = "CHATCLI_PROMPT_CACHE_TTL"
_TTLS = ("5m", "1h")
_NOT_FIXED = ("", "auto")
_KEYS = ("budget", "cache_ttl", "limit", "prices")


class CostConfig(NamedTuple):
    """What ``[cost]`` (and ``CHATCLI_PROMPT_CACHE_TTL``) say, and what was wrong in them."""

    budget: float | None = None
    #: ``(ttl, where it was set)`` when the TTL is fixed
    cache_ttl: tuple[str, str] | None = None
    prices: PriceTable = PriceTable()
    problems: tuple[str, ...] = ()
    #: USD a session may spend: no model call once it is spent (``[cost] limit``)
    limit: float | None = None


def _ttl(value: Any, where: str, problems: list[str]) -> tuple[str, str] | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in _NOT_FIXED:
        return None
    if text in _TTLS:
        return text, where
    problems.append(_('{where} = {value!r} is not a cache TTL: use "5m" or "1h" (or leave it '
                      "out: chosen by evidence)").format(where=where, value=value))
    return None


def read_config(settings: Settings, environ: Mapping[str, str] | None = None) -> CostConfig:
    """The cost settings of ``settings``; wrong values are left out and described."""
    environ = os.environ if environ is None else environ
    table = settings.plugin_table("cost")
    problems: list[str] = [_("[cost]: unknown key {key!r} (use {keys})").format(
        key=key, keys=", ".join(_KEYS)) for key in sorted(set(table) - set(_KEYS))]
    budget, limit = (_usd(table.get(key), key, problems) for key in ("budget", "limit"))
    # CHATCLI_PROMPT_CACHE_TTL reaches the settings as a top-level key; read the variable too
    # for settings built without the environment
    extra = (settings.model_extra or {}).get("prompt_cache_ttl", environ.get(ENV_TTL))
    ttl = _ttl(extra, ENV_TTL, problems) or _ttl(table.get("cache_ttl"), "[cost] cache_ttl",
                                                 problems)
    prices: dict[str, Price] = {}
    raw = table.get("prices") or {}
    if not isinstance(raw, Mapping):
        problems.append(_('[cost] prices must be tables: [cost.prices."provider/model"]'))
        raw = {}
    for key, value in raw.items():
        price, problem = parse_price(str(key), value)
        if price is not None:
            prices[str(key)] = price
        else:
            problems.append(str(problem))
    models = _model_table(settings, problems)
    return CostConfig(budget, ttl, PriceTable(prices, models), tuple(problems), limit)


def _usd(value: Any, key: str, problems: list[str]) -> float | None:
    """A positive amount of USD (a variable's text too), else None and a problem."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                              or not 0 < value < float("inf")):
        problems.append(_("[cost] {key} = {value!r} must be a positive number of USD").format(
            key=key, value=value))
        return None
    return float(value) if value is not None else None


def _model_table(settings: Settings, problems: list[str]) -> ModelTable | None:
    """The lookup of prices in the kernel's model table (``[models."PATTERN"] input, output,
    cache_read…``); an entry with only one of input and output is described as a problem."""
    entries = getattr(settings, "models", None) or {}
    for pattern, entry in entries.items():
        if (entry.input is None) != (entry.output is None):
            problems.append(_('[models."{pattern}"] needs both input and output (USD per '
                              "million tokens) to price the model").format(pattern=pattern))
    if not entries:
        return None

    def lookup(provider: str, model: str) -> Price | None:
        found = settings.model_settings(provider, model, having="input")
        if found is None:
            return None
        entry = found[1]
        if entry.output is None or entry.input is None:
            return None
        return Price.of(entry.input, entry.output, entry.cache_read, entry.cache_write,
                        entry.cache_write_1h)

    return lookup
