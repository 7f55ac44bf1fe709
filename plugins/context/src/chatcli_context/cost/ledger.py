"""What a conversation spent, per provider and model, from its messages' usage.

The totals come from the log (every answer ever appended, rewound branches included: they were
billed too) and from the side calls plugins made (compaction summaries, memory extraction: kept
beside the log, see :mod:`chatcli_context.cost.calls`), so they survive ``-c`` and ``--resume``.
Each call also counts under its purpose (chat, agent, coder, compaction, memory…). A root
conversation also counts its workers' calls (subagents' child conversations, every call once,
under the purpose "subagent"), per worker and per worker type.
One meaning of "input" for every provider: chatcli's ``input_tokens`` counts the whole prompt,
cache reads and writes included (the providers normalise Anthropic's count, which leaves them
out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from chatcli import Message, Usage
from chatcli_records_lite import dataclass

from chatcli_context.cost.prices import Price, PriceTable, fresh_input, money
from chatcli_context.cost.ttl import answers

if TYPE_CHECKING:
    from chatcli_context.cost.calls import SideCall, WorkerCall

__all__ = ["SUBAGENT", "Kind", "Ledger", "Line", "Purpose", "Worker", "answers", "ledger"]

#: The purpose a worker's calls count under in its root conversation's ledger.
SUBAGENT = "subagent"


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
class Worker(Purpose):
    """What one worker's calls used and cost (``name`` is the worker's id)."""

    type: str = "-"


@dataclass
class Kind(Purpose):
    """What the workers of one type used and cost (``name`` is the type)."""

    workers: int = 0


@dataclass
class Ledger:
    """Every line, in order of first use, and the totals; the same calls by purpose; the
    workers' calls by worker and by type (ids in their natural order: w2 before w10)."""

    lines: list[Line] = field(default_factory=list)
    purposes: list[Purpose] = field(default_factory=list)
    workers: list[Worker] = field(default_factory=list)
    types: list[Kind] = field(default_factory=list)

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
           purpose_of: Callable[[Message], str] = lambda message: "chat",
           workers: Sequence[WorkerCall] = ()) -> Ledger:
    """The ledger of ``messages``, the ``side`` calls and the ``workers``' calls at ``prices``;
    ``ttl_of(message)`` says which TTL its request asked for (cache writes kept an hour cost
    more), ``purpose_of(message)`` what the call was for."""
    lines: dict[tuple[str, str], Line] = {}
    purposes: dict[str, Purpose] = {}

    def count(provider: str | None, model: str | None, usage: Usage, ttl: str | None,
              purpose: str) -> float | None:
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
        return cost

    for message in answers(messages):
        assert message.usage is not None
        count(message.provider, message.model, message.usage, ttl_of(message),
              purpose_of(message))
    for call in side:
        count(call.provider, call.model, call.usage, None, call.purpose)
    by_worker: dict[str, Worker] = {}
    for work in workers:
        cost = count(work.provider, work.model, work.usage, work.ttl, SUBAGENT)
        worker = by_worker.setdefault(work.worker, Worker(work.worker, type=work.type))
        _add(worker, work.usage, cost)
    by_type: dict[str, Kind] = {}
    for worker in sorted(by_worker.values(), key=lambda w: _natural(w.name)):
        kind = by_type.setdefault(worker.type, Kind(worker.type))
        kind.workers += 1
        kind.usage, kind.calls = kind.usage + worker.usage, kind.calls + worker.calls
        kind.money = None if worker.money is None or kind.money is None \
            else kind.money + worker.money
    return Ledger(list(lines.values()), list(purposes.values()),
                  sorted(by_worker.values(), key=lambda w: _natural(w.name)),
                  sorted(by_type.values(), key=lambda k: _natural(k.name)))


def _add(group: Purpose, usage: Usage, cost: float | None) -> None:
    """Count one call of ``usage`` costing ``cost`` (None: no known price) in ``group``."""
    group.usage, group.calls = group.usage + usage, group.calls + 1
    group.money = None if cost is None or group.money is None else group.money + cost


def _natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key putting ``w2`` before ``w10``."""
    import re

    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"(\d+)", name) if part)
