"""``[cost] limit``: the money a session may spend; once spent, no model call is made.

Where ``[cost] budget`` warns, the limit stops: the next model call of the session (workers
included) is refused with a :class:`chatcli.ConfigError`, which ends the turn. When the managed
policy (``/etc/chatcli/managed.toml``) sets it, no other layer may raise it and the error names
that file.
"""

from __future__ import annotations

from chatcli import translation

__all__ = ["check_limit"]

_, ngettext = translation(__name__)


def check_limit(spent: float, limit: float) -> None:
    """Raise :class:`chatcli.ConfigError` when ``spent`` (USD) reached ``limit``."""
    if spent < limit:
        return
    from chatcli import ConfigError, managed_policy

    from chatcli_context.cost.command import usd

    policy = managed_policy()
    managed = policy is not None and (policy[1].get("cost") or {}).get("limit") is not None
    if managed and policy:
        message = _("cost: this session spent {spent}, its limit of {limit} set by the managed "
                    "policy {path}; no more model calls")
    else:
        message = _("cost: this session spent {spent}, its limit of {limit} set by [cost] "
                    "limit; no more model calls")
    raise ConfigError(message.format(spent=usd(spent), limit=usd(limit),
                                     path=policy[0] if policy else ""),
                      _("start a new session") if managed
                      else _("start a new session, or raise [cost] limit"))
