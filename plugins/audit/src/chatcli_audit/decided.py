"""Who or what decided a tool call, from what the engine passes to ``tool_call_decided``.

The values of ``decided_by``:

- ``user``: a person was asked and answered (``approval`` is set);
- ``managed``: the administrator's managed policy — the managed file holds the deny rule that
  refused the call or fixes the mode that decided it (:func:`managed`), or the verdict's rule or
  reason names the managed policy;
- ``rule``: a permission rule — a ``deny`` rule named in the refusal, or (for an allowed call
  that is not a read) an ``allow`` rule or ``--allow``;
- ``mode``: the permission mode — plan mode refusing a change, ``auto`` or ``accept-edits``
  letting it run;
- ``unattended``: the call would have asked, and nobody could be asked (``chatcli -p``), so it
  was refused;
- ``hook``: a user hook (``PreToolUse``) refused it;
- ``policy``: the policy's own judgement (reads inside the workspace run; a tool the policy
  refuses for another reason).

chatcli-agent's permission policy says who decided in the verdict (``Verdict.by``), whatever the
language of its reasons. Other policies' verdicts are read from their English reasons; an
allowed one carries no reason, so the mode and the tool's risk class tell ``mode`` from
``rule``: the same way the permission policy decides
(:mod:`chatcli_agent.permissions.policy`: reads run in every mode but plan's refusals;
``accept-edits`` runs edits, ``auto`` everything but what is dangerous).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chatcli_records_lite import NamedTuple

__all__ = ["Decided", "decided_by", "managed"]

#: "… is denied by the rule exec(rm:*) (~/.config/chatcli/config.toml)"
_DENY_RULE = re.compile(r"denied by the rule (?P<rule>\S+?(?:\([^)]*\))?) \((?P<source>[^)]*)\)")
_MANAGED = re.compile(r"\bmanaged\b", re.IGNORECASE)


class Decided(NamedTuple):
    """Who decided, and the rule involved (None when no rule was)."""

    by: str
    rule: str | None


def decided_by(decision: str, reason: str, rule: str | None, approved: bool | None,
               risk: str, mode: str, tool: str = "",
               allow_rules: Iterable[str] | None = None, by: str | None = None) -> Decided:
    """Who decided a call: a person's answer, else the verdict's ``by`` when the policy says
    (:attr:`chatcli.Verdict.by`, in every language), else what its English reason tells.

    :param decision: the verdict's decision (``allow``, ``deny``, ``ask``).
    :param reason: the verdict's reason.
    :param rule: the verdict's rule (for an ask: the rule an "always" answer would save).
    :param approved: the person's answer when they were asked, else None.
    :param risk: the tool's risk class (``read``, ``write``, ``execute``, ``network``…).
    :param mode: the session's permission mode.
    :param tool: the tool's name.
    :param allow_rules: the session's allow rules and ``--allow`` values, when known: an
        allowed call that is not a read is put down to a rule only when one of them could
        cover it (it names the tool, ``exec`` for a command, the risk class or ``all``), else
        to the policy (a read-only command, ``ls``, runs without a rule).
    :param by: the verdict's ``by`` (for an allowed or denied call).
    """
    if approved is not None:
        return Decided("user", rule)
    if by is not None and decision != "ask":  # (an ask nobody answered: refused unasked)
        return Decided(by, rule)
    found = _DENY_RULE.search(reason)
    if (rule is not None and rule.lower().startswith("managed")) or _MANAGED.search(reason):
        return Decided("managed", found.group("rule") if found else rule)
    if decision == "deny":
        if found is not None:
            return Decided("rule", found.group("rule"))
        if reason.startswith("plan mode"):
            return Decided("mode", None)
        if "nobody can be asked" in reason:
            return Decided("unattended", rule)
        if "hook" in reason.lower():
            return Decided("hook", None)
        return Decided("policy", rule)
    if decision == "allow":
        if risk == "read":
            return Decided("policy", None)
        if mode == "auto" or (mode == "accept-edits" and risk == "write"):
            return Decided("mode", None)
        if allow_rules is not None and not _could_allow(allow_rules, tool, risk):
            return Decided("policy", None)
        return Decided("rule", rule)
    return Decided("policy", rule)


def managed(who: Decided) -> tuple[Decided, str | None]:
    """``who`` made the managed policy's when the managed file (:func:`chatcli.managed_list`)
    holds the deny rule that refused the call, or fixes the permission mode that decided it;
    with the file's path (None when the managed policy had no part)."""
    if who.by not in ("rule", "mode", "managed"):
        return who, None
    from chatcli import managed_list, managed_policy

    try:
        if who.by in ("rule", "managed") and who.rule:
            denied = managed_list("permissions.deny")
            if denied is not None and who.rule in denied[1]:
                return Decided("managed", who.rule), denied[0]
        policy = managed_policy()
        if who.by == "mode" and policy is not None:
            permissions = policy[1].get("permissions")
            if isinstance(permissions, dict) and "mode" in permissions:
                return Decided("managed", None), policy[0]
        if who.by == "managed" and policy is not None:
            return who, policy[0]
    except Exception:  # (a broken managed file stops the run elsewhere, with its error)
        return who, None
    return who, None


def _could_allow(rules: Iterable[str], tool: str, risk: str) -> bool:
    """Whether one of ``rules`` could allow a call of ``tool`` (of class ``risk``)."""
    names = {tool, risk, "all", "*"} | ({"exec"} if risk == "execute" else set())
    return any(text.strip().split("(", 1)[0].strip() in names for text in rules)
