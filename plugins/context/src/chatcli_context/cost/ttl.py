"""The prompt cache's TTL, chosen by evidence.

Anthropic keeps a cached prefix five minutes by default, or an hour for a dearer write (2× the
input price instead of 1.25×). Asking for the hour up front is a bet: pure loss in a session
that never pauses, a large gain in one that does. So a session starts with the short TTL and
watches: when a call comes after a pause longer than the short TTL and shorter than the long
one, and its usage shows the prefix written again (cache writes about the size of what the
previous call read or wrote, cache reads about nothing), the cache expired in a pause the hour
would have covered. Then the session asks for the hour — once, for the rest of the session,
never back. Never over an explicit setting, and never on a provider that does not offer it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from chatcli import Message, Role, Usage
from chatcli_records_lite import NamedTuple, dataclass

__all__ = ["LONG", "SHORT", "Call", "Switch", "TtlState", "answers", "prefix_expired"]

SHORT, LONG = "5m", "1h"
#: How long each TTL keeps the prefix, in seconds.
LIFETIMES = {SHORT: 300.0, LONG: 3600.0}
#: Cache reads at most this share of the previous prefix count as "about nothing"; cache
#: writes at least this share as "the prefix written again".
READ_SHARE, WRITE_SHARE = 0.1, 0.8


def answers(messages: Iterable[Message]) -> list[Message]:
    """The assistant messages that carry usage (one per model call): what the evidence is
    replayed from, and what the ledger counts."""
    return [m for m in messages if m.role == Role.ASSISTANT and m.usage is not None]


class Call(NamedTuple):
    """One model call as the rule sees it: when it was sent, what its usage said, and which
    provider answered."""

    started: float
    usage: Usage
    provider: str | None = None


class Switch(NamedTuple):
    """When the session moved to the long TTL: the pause that expired the short one."""

    at: float
    pause: float


def prefix_expired(previous: Call, current: Call) -> bool:
    """Whether ``current`` shows the prefix ``previous`` cached expired in a pause the long TTL
    would have covered."""
    pause = current.started - previous.started
    if not LIFETIMES[SHORT] < pause < LIFETIMES[LONG]:
        return False
    prefix = previous.usage.cache_read_tokens + previous.usage.cache_write_tokens
    if prefix <= 0:
        return False
    usage = current.usage
    return (usage.cache_read_tokens <= READ_SHARE * prefix
            and usage.cache_write_tokens >= WRITE_SHARE * prefix)


@dataclass
class TtlState:
    """What the evidence says about one conversation's TTL (an explicit setting is the
    plugin's business: it simply never lets the evidence act)."""

    switch: Switch | None = None
    last: Call | None = None
    #: the TTL each answer's request asked for, by message id (what its cache writes cost)
    used: dict[str, str] = field(default_factory=dict)

    @property
    def by_evidence(self) -> str:
        """The TTL the evidence chose: the short one until a pause proved it too short."""
        return LONG if self.switch is not None else SHORT

    def observe(self, call: Call, may_switch: bool, message_id: str | None = None,
                asked: str | None = None) -> bool:
        """Take one finished call into account; True when it made the session switch to the
        long TTL. ``may_switch``: the provider that answered offers the long TTL and nothing
        fixed its TTL. ``asked``: the TTL the call's request asked for (kept under
        ``message_id``)."""
        if message_id is not None and asked is not None:
            self.used[message_id] = asked
        previous, self.last = self.last, call
        if (previous is None or self.switch is not None or not may_switch
                or previous.provider != call.provider or not prefix_expired(previous, call)):
            return False
        self.switch = Switch(at=call.started, pause=call.started - previous.started)
        return True
