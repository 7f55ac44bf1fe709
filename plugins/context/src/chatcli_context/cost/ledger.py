"""What a conversation spent, per provider and model, from its messages' usage.

The totals come from the log (every answer ever appended, rewound branches included: they were
billed too) and from the side calls plugins made (compaction summaries, memory extraction: kept
beside the log, see :mod:`chatcli_context.cost.calls`), so they survive ``-c`` and ``--resume``.
Each call also counts under its purpose (chat, agent, coder, compaction, memory…).
One meaning of "input" for every provider: chatcli's ``input_tokens`` counts the whole prompt,
cache reads and writes included (the providers normalise Anthropic's count, which leaves them
out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chatcli import Message, Usage

from chatcli_context.cost.prices import Price, PriceTable, fresh_input, money
from chatcli_context.cost.ttl import answers

if TYPE_CHECKING:
    from chatcli_context.cost.calls import SideCall

__all__ = ["Ledger", "Line", "Purpose", "answers", "ledger"]


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
class Purpose:
    """What the calls made for one purpose used and cost (None: some had no known price)."""

    name: str
    usage: Usage = field(default_factory=Usage)
    calls: int = 0
    money: float | None = 0.0


@dataclass
class Ledger:
    """Every line, in order of first use, and the totals; the same calls by purpose."""

    lines: list[Line] = field(default_factory=list)
    purposes: list[Purpose] = field(default_factory=list)

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
           ttl_of: Callable[[Message], str | None] = lambda message: None, *,
           side: Sequence[SideCall] = (),
           purpose_of: Callable[[Message], str] = lambda message: "chat") -> Ledger:
    """The ledger of ``messages`` and the ``side`` calls at ``prices``; ``ttl_of(message)``
    says which TTL its request asked for (cache writes kept an hour cost more),
    ``purpose_of(message)`` what the call was for."""
    lines: dict[tuple[str, str], Line] = {}
    purposes: dict[str, Purpose] = {}

    def count(provider: str | None, model: str | None, usage: Usage, ttl: str | None,
              purpose: str) -> None:
        key = (provider or "unknown", model or "unknown")
        line = lines.get(key)
        if line is None:
            price, source = prices.price(*key)
            line = lines[key] = Line(*key, price=price, source=source,
                                     money=0.0 if price is not None else None)
        line.usage = line.usage + usage
        line.calls += 1
        cost = money(usage, line.price, ttl) if line.price is not None else None
        if line.money is not None and cost is not None:
            line.money += cost
        kind = purposes.setdefault(purpose, Purpose(purpose))
        kind.usage, kind.calls = kind.usage + usage, kind.calls + 1
        kind.money = None if cost is None or kind.money is None else kind.money + cost

    for message in answers(messages):
        assert message.usage is not None
        count(message.provider, message.model, message.usage, ttl_of(message),
              purpose_of(message))
    for call in side:
        count(call.provider, call.model, call.usage, None, call.purpose)
    return Ledger(list(lines.values()), list(purposes.values()))
