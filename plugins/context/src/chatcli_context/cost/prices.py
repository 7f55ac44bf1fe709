"""What tokens cost: the price table (built-in list prices, overridden by ``[cost.prices]`` and
by the prices of the model table, ``[models."provider/model"]``) and the money of one
response's usage.

Prices are USD per million tokens. The built-in ones are the vendors' published list prices as
we last read them: approximate, not a bill — a price in the config always wins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chatcli import Usage, translation
from chatcli_records_lite import NamedTuple

__all__ = ["BUILTIN_PRICES", "ModelTable", "Price", "PriceTable", "fresh_input",
           "matches_pattern", "money", "parse_price"]

_, ngettext = translation(__name__)

#: Anthropic's multipliers of the input price, used for what a price entry leaves out: a cache
#: read costs 0.1×, a write kept five minutes 1.25×, one kept an hour 2×.
READ, WRITE, WRITE_1H = 0.1, 1.25, 2.0


class Price(NamedTuple):
    """USD per million tokens: fresh input, output, cache reads, cache writes (five-minute
    and one-hour TTL)."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_write_1h: float

    @classmethod
    def of(cls, input: float, output: float, cache_read: float | None = None,
           cache_write: float | None = None, cache_write_1h: float | None = None) -> Price:
        """A price; what is left out follows from ``input`` (Anthropic's multipliers)."""
        def times(share: float) -> float:
            return round(input * share, 9)

        return cls(input, output,
                   times(READ) if cache_read is None else cache_read,
                   times(WRITE) if cache_write is None else cache_write,
                   times(WRITE_1H) if cache_write_1h is None else cache_write_1h)


FREE = Price(0.0, 0.0, 0.0, 0.0, 0.0)

#: Built-in list prices by ``provider/model`` pattern (``*`` matches anything; the pattern with
#: the most literal characters wins). Approximate: vendors change them; override in the config.
BUILTIN_PRICES: dict[str, Price] = {
    # Anthropic: cache reads 0.1×, writes 1.25× (5 min) or 2× (1 h) of the input price
    "anthropic/claude-opus-4-0*": Price.of(15.0, 75.0),
    "anthropic/claude-opus-4-1*": Price.of(15.0, 75.0),
    "anthropic/claude-opus-4-2025*": Price.of(15.0, 75.0),
    "anthropic/claude-3-opus*": Price.of(15.0, 75.0),
    "anthropic/claude-opus*": Price.of(5.0, 25.0),
    "anthropic/claude-sonnet*": Price.of(3.0, 15.0),
    "anthropic/claude-3-7-sonnet*": Price.of(3.0, 15.0),
    "anthropic/claude-3-5-sonnet*": Price.of(3.0, 15.0),
    "anthropic/claude-haiku*": Price.of(1.0, 5.0),
    "anthropic/claude-3-5-haiku*": Price.of(0.8, 4.0),
    "anthropic/claude-3-haiku*": Price.of(0.25, 1.25),
    # OpenAI: cached input at its own discount; nothing is charged for writing the cache
    "openai/gpt-5*": Price.of(1.25, 10.0, 0.125, 1.25, 1.25),
    "openai/gpt-5*-mini*": Price.of(0.25, 2.0, 0.025, 0.25, 0.25),
    "openai/gpt-5*-nano*": Price.of(0.05, 0.4, 0.005, 0.05, 0.05),
    "openai/gpt-4.1*": Price.of(2.0, 8.0, 0.5, 2.0, 2.0),
    "openai/gpt-4.1*-mini*": Price.of(0.4, 1.6, 0.1, 0.4, 0.4),
    "openai/gpt-4.1*-nano*": Price.of(0.1, 0.4, 0.025, 0.1, 0.1),
    "openai/gpt-4o*": Price.of(2.5, 10.0, 1.25, 2.5, 2.5),
    "openai/gpt-4o*-mini*": Price.of(0.15, 0.6, 0.075, 0.15, 0.15),
    "openai/o3*": Price.of(2.0, 8.0, 0.5, 2.0, 2.0),
    "openai/o4-mini*": Price.of(1.1, 4.4, 0.275, 1.1, 1.1),
    # models on this machine cost nothing
    "local/*": FREE,
    "ollama/*": FREE,
    "lmstudio/*": FREE,
    "vllm/*": FREE,
}

_FIELDS = ("input", "output", "cache_read", "cache_write", "cache_write_1h")


def parse_price(key: str, value: Any) -> tuple[Price | None, str | None]:
    """A ``[cost.prices."KEY"]`` table as a :class:`Price`, or None and what is wrong."""
    where = f'[cost.prices."{key}"]'
    if not isinstance(value, Mapping):
        return None, _("{where} must be a table: input = 3.0, output = 15.0 (USD per "
                       "million)").format(where=where)
    unknown = sorted(set(value) - set(_FIELDS))
    if unknown:
        return None, _("{where}: unknown key {key!r} (use {keys})").format(
            where=where, key=unknown[0], keys=", ".join(_FIELDS))
    numbers: dict[str, float] = {}
    for name in _FIELDS:
        if name not in value:
            continue
        item = value[name]
        if isinstance(item, bool) or not isinstance(item, int | float) or item < 0:
            return None, _("{where}: {key} must be a number of USD per million tokens, "
                           "≥ 0").format(where=where, key=name)
        numbers[name] = float(item)
    if "input" not in numbers or "output" not in numbers:
        return None, _("{where} needs input and output (USD per million tokens)").format(
            where=where)
    return Price.of(**numbers), None


def _literal(pattern: str) -> int:
    return sum(ch not in "*?[]" for ch in pattern)


def _best(table: Mapping[str, Price], name: str) -> Price | None:
    if name in table:
        return table[name]
    matches = [p for p in table if matches_pattern(name, p)]
    return table[max(matches, key=_literal)] if matches else None


def matches_pattern(name: str, pattern: str) -> bool:
    """``fnmatch.fnmatchcase(name, pattern)``, without compiling a regular expression for a
    pattern whose only wildcard is ``*`` (every built-in one: a run prices its model without
    compiling the whole list)."""
    if "?" in pattern or "[" in pattern:
        from fnmatch import fnmatchcase

        return fnmatchcase(name, pattern)
    if "*" not in pattern:
        return name == pattern
    first, *middle, last = pattern.split("*")
    if len(name) < len(first) + len(last) or not name.startswith(first) \
            or not name.endswith(last):
        return False
    start, end = len(first), len(name) - len(last)
    for part in middle:  # each piece at its leftmost place: what is left is the most room
        found = name.find(part, start, end)
        if found < 0:
            return False
        start = found + len(part)
    return True


#: Looks a model up in the kernel's model table (``[models."provider/model"]``): its price, or
#: None when no entry prices it.
ModelTable = Callable[[str, str], "Price | None"]


class PriceTable:
    """The prices in force: ``[cost.prices]`` entries first (a key may be a pattern, like the
    built-in ones), then the model table's (``[models."PATTERN"] input/output``, looked up by
    ``models``), then the built-in list."""

    def __init__(self, configured: Mapping[str, Price] | None = None,
                 models: ModelTable | None = None) -> None:
        self.configured = dict(configured or {})
        self.models = models

    def price(self, provider: str, model: str) -> tuple[Price | None, str]:
        """The price of ``provider/model`` and where it comes from ("config", "built-in"),
        or None and "unknown"."""
        name = f"{provider}/{model}"
        found = _best(self.configured, name)
        if found is None and self.models is not None:
            found = self.models(provider, model)
        if found is not None:
            return found, "config"
        found = _best(BUILTIN_PRICES, name)
        return (found, "built-in") if found is not None else (None, "unknown")


def fresh_input(usage: Usage) -> int:
    """Input tokens neither read from nor written to the cache (chatcli's ``input_tokens``
    counts both, whatever the provider)."""
    return max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens)


def money(usage: Usage, price: Price, ttl: str | None = None) -> float:
    """USD for ``usage`` at ``price``; cache writes at the one-hour price when ``ttl`` is
    ``"1h"``."""
    write = price.cache_write_1h if ttl == "1h" else price.cache_write
    return (fresh_input(usage) * price.input + usage.cache_read_tokens * price.cache_read
            + usage.cache_write_tokens * write + usage.output_tokens * price.output) / 1e6
