"""What a conversation spent, per provider and model, from its messages' usage.

The totals come from the log (every answer ever appended, rewound branches included: they were
billed too), so they survive ``-c`` and ``--resume``. One meaning of "input" for every
provider: chatcli's ``input_tokens`` counts the whole prompt, cache reads and writes included
(the providers normalise Anthropic's count, which leaves them out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from chatcli import Message, Usage

from chatcli_context.cost.prices import Price, PriceTable, fresh_input, money
from chatcli_context.cost.ttl import answers

__all__ = ["Ledger", "Line", "answers", "ledger"]


@dataclass
class Line:
    """One provider/model: its tokens, its money (None when no price is known) and the price's
    source."""

    provider: str
    model: str
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    money: float | None = 0.0
    price: Price | None = None
    source: str = "unknown"

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def fresh_input(self) -> int:
        return fresh_input(self.usage)


@dataclass
class Ledger:
    """Every line, in order of first use, and the totals."""

    lines: list[Line] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for line in self.lines:
            total = total + line.usage
        return total

    @property
    def money(self) -> float:
        """USD of every line with a known price."""
        return sum(line.money or 0.0 for line in self.lines)

    @property
    def unpriced(self) -> list[Line]:
        """Lines with tokens but no known price."""
        return [line for line in self.lines if line.money is None]


def ledger(messages: Iterable[Message], prices: PriceTable,
           ttl_of: Callable[[Message], str | None] = lambda message: None) -> Ledger:
    """The ledger of ``messages`` at ``prices``; ``ttl_of(message)`` says which TTL its request
    asked for (cache writes kept an hour cost more)."""
    lines: dict[tuple[str, str], Line] = {}
    for message in answers(messages):
        usage = message.usage
        assert usage is not None
        key = (message.provider or "unknown", message.model or "unknown")
        line = lines.get(key)
        if line is None:
            price, source = prices.price(*key)
            line = lines[key] = Line(*key, price=price, source=source,
                                     money=0.0 if price is not None else None)
        line.usage = line.usage + usage
        line.calls += 1
        if line.price is not None and line.money is not None:
            line.money += money(usage, line.price, ttl_of(message))
    return Ledger(list(lines.values()))
