"""``[cost] limit``: the money a session may spend; once spent, no model call is made.

Where ``[cost] budget`` warns, the limit stops: the next model call of the session (workers
included) is refused with a :class:`chatcli.ConfigError`, which ends the turn. When the managed
policy (``/etc/chatcli/managed.toml``) sets it, no other layer may raise it and the error names
that file.
"""

from __future__ import annotations

__all__ = ["check_limit"]


def check_limit(spent: float, limit: float) -> None:
    """Raise :class:`chatcli.ConfigError` when ``spent`` (USD) reached ``limit``."""
    if spent < limit:
        return
    from chatcli import ConfigError, managed_policy

    from chatcli_context.cost.command import usd

    policy = managed_policy()
    managed = policy is not None and (policy[1].get("cost") or {}).get("limit") is not None
    where = f"the managed policy {policy[0]}" if managed and policy else "[cost] limit"
    raise ConfigError(f"cost: this session spent {usd(spent)}, its limit of {usd(limit)} set by "
                      f"{where}; no more model calls", "start a new session"
                      + ("" if managed else ", or raise [cost] limit"))
