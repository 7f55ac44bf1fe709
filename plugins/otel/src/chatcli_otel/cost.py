"""What a model call cost, as chatcli's cost plugin (``cost``, in chatcli-context) prices it: this
plugin computes no money of its own.

The cost plugin keeps a ledger of each conversation (its log, its side calls, its workers'
calls) with the prices in force (``[cost.prices]``, the model table, the built-in list) and the
cache TTL each request asked for. A call's cost is what the conversation's own spending grew by
since the last call this plugin saw — its own purposes only: a root conversation's ledger also
counts its workers' calls (purpose ``subagent``), and those are counted in their own
conversations. Reached by duck typing through the plugin host (plugins never import each
other); without the cost plugin, calls have no cost and none is exported.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import Conversation, PluginHost

__all__ = ["CostReader"]

#: The purpose under which a root conversation's ledger counts its workers' calls.
_WORKERS = "subagent"


class CostReader:
    """Reads the cost plugin's ledgers.

    :param host: the plugin host, where the ``cost`` plugin is registered (if installed).
    """

    def __init__(self, host: PluginHost | None) -> None:
        self.host = host
        #: the conversation's own spending when its last call was seen, by conversation id
        self._spent: dict[str, float] = {}
        self._lock = threading.Lock()

    def _ledger_of(self) -> Any:
        """The cost plugin's ``ledger(conversation)``, or None."""
        if self.host is None:
            return None
        module = self.host.pm.get_plugin("cost")
        owner = getattr(module, "plugin", None)
        ledger = getattr(owner, "ledger", None)
        return ledger if callable(ledger) else None

    def spent(self, conversation: Conversation) -> float | None:
        """USD the conversation's own calls (not its workers') cost so far, or None."""
        ledger = self._ledger_of()
        if ledger is None:
            return None
        try:
            purposes = ledger(conversation).purposes
            return float(sum(p.money or 0.0 for p in purposes if p.name != _WORKERS))
        except Exception:  # an older or changed cost plugin: no cost, never a failed turn
            return None

    def baseline(self, conversation: Conversation) -> None:
        """Remember what ``conversation`` spent before its next call (once)."""
        if conversation.id in self._spent:
            return
        spent = self.spent(conversation)
        if spent is not None:
            with self._lock:
                self._spent.setdefault(conversation.id, spent)

    def call_cost(self, conversation: Conversation) -> float | None:
        """What the conversation spent since the last call seen (this call's cost), or None
        when no price is known."""
        spent = self.spent(conversation)
        if spent is None:
            return None
        with self._lock:
            before = self._spent.get(conversation.id, 0.0)
            self._spent[conversation.id] = spent
        return max(spent - before, 0.0)

    def forget(self, conversation: Conversation) -> None:
        """Drop what is kept of ``conversation`` (it ended)."""
        with self._lock:
            self._spent.pop(conversation.id, None)
