"""What a model call cost, as chatcli's cost plugin (``/cost``, entry point ``cost``) counts it.

The audit log does not price tokens itself: prices live in the cost plugin (its built-in list,
``[cost.prices]`` and the model table), which this plugin must not import. It asks the cost
plugin's object, found by its entry-point name through the plugin host (duck typing: an object
``plugin`` with a method ``ledger(conversation)`` whose result has ``money`` and ``unpriced``),
what the conversation has spent, and records the difference since the previous call of the same
conversation. The audit's ``after_response`` runs after the cost plugin's (``trylast``), so the
ledger already counts the call.

A call's cost is None when the cost plugin is not installed, when the model has no known price,
or for a conversation's first call seen without a baseline (a side call made before any turn).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli import Conversation, PluginHost

__all__ = ["CostReader"]

#: What the conversation had spent at the last call the audit saw (USD).
SPENT: StashKey[float] = StashKey()


class CostReader:
    """Reads the cost plugin's ledger; one per audit plugin."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @staticmethod
    def _ledger(host: PluginHost | None, conversation: Conversation) -> Any:
        if host is None:
            return None
        cost = host.pm.get_plugin("cost")
        owner = getattr(cost, "plugin", None)
        ledger = getattr(owner, "ledger", None)
        if not callable(ledger):
            return None
        return ledger(conversation)

    def baseline(self, host: PluginHost | None, conversation: Conversation) -> None:
        """Note what ``conversation`` spent so far, when not noted yet (before its first call
        the audit sees)."""
        if SPENT in conversation.stash:
            return
        with self._lock:
            ledger = self._ledger(host, conversation)
            if ledger is not None:
                conversation.stash[SPENT] = float(ledger.money)

    def call_cost(self, host: PluginHost | None, conversation: Conversation,
                  provider: str | None, model: str | None) -> float | None:
        """The cost of the call just made on ``conversation`` by ``provider``/``model``, in
        USD, or None when it is not known."""
        with self._lock:
            ledger = self._ledger(host, conversation)
            if ledger is None:
                return None
            spent = float(ledger.money)
            before = conversation.stash.get(SPENT, None)
            conversation.stash[SPENT] = spent
        key = (provider or "unknown", model or "unknown")
        if before is None or any((line.provider, line.model) == key
                                 for line in ledger.unpriced):
            return None
        return round(max(spent - before, 0.0), 10)
