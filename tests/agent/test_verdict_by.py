"""Who decided, as the permission policy says it in :attr:`chatcli.Verdict.by` (chatcli-audit's
``decided_by``, chatcli-otel's ``chatcli.tool.decided_by``): one call at a time, in every
language — the reasons are translated, ``by`` is not. A table: one line a variation."""

from __future__ import annotations

from typing import Any

import pytest
from agent_support import call
from chatcli import Decision

ALLOW, DENY, ASK = Decision.ALLOW, Decision.DENY, Decision.ASK

CASES = [
    # mode, rules, classes, (tool, arguments) → decision, by, rule
    ("default", (), (), ("read", {"path": "src/app.py"}), ALLOW, "policy", None),
    ("default", (), (), ("exec", {"command": "ls"}), ALLOW, "policy", None),
    ("auto", (), (), ("exec", {"command": "ls"}), ALLOW, "policy", None),  # read-only: no mode
    ("default", (("allow", "exec(npm test:*)"),), (), ("exec", {"command": "npm test"}),
     ALLOW, "rule", None),
    ("default", (), ("execute",), ("exec", {"command": "npm test"}), ALLOW, "rule", None),
    ("auto", (("allow", "exec(npm test:*)"),), (), ("exec", {"command": "npm test"}),
     ALLOW, "mode", None),  # the mode would have let it run anyway
    ("auto", (), (), ("exec", {"command": "npm test"}), ALLOW, "mode", None),
    ("accept-edits", (), (), ("edit", {"path": "src/app.py"}), ALLOW, "mode", None),
    ("default", (("allow", "edit(src/**)"),), (), ("edit", {"path": "src/app.py"}),
     ALLOW, "rule", None),
    ("default", (), ("write",), ("edit", {"path": "src/app.py"}), ALLOW, "rule", None),
    ("default", (("deny", "exec(rm:*)"),), (), ("exec", {"command": "rm x"}),
     DENY, "rule", "exec(rm:*)"),
    ("auto", (("deny", "read(secrets/**)"),), (), ("read", {"path": "secrets/key.txt"}),
     DENY, "rule", "read(secrets/**)"),
    ("plan", (), (), ("edit", {"path": "src/app.py"}), DENY, "mode", None),
    ("plan", (), (), ("exec", {"command": "npm test"}), DENY, "mode", None),
    ("default", (), (), ("exec", {"command": "npm test"}), ASK, "policy", "exec(npm test:*)"),
    ("auto", (("ask", "exec(npm:*)"),), (), ("exec", {"command": "npm test"}), ASK, "rule",
     None),
]


@pytest.mark.parametrize(("mode", "rules", "classes", "made", "decision", "by", "rule"), CASES)
def test_the_verdict_says_who_decided(policy: Any, mode: str, rules: Any, classes: Any,
                                      made: Any, decision: Decision, by: str,
                                      rule: str | None) -> None:
    name, arguments = made
    verdict = policy(mode=mode, rules=rules, classes=classes).judge(
        *call(name, **arguments)).verdict
    assert (verdict.decision, verdict.by, verdict.rule) == (decision, by, rule)


def test_what_would_ask_in_an_unattended_run_is_put_down_to_it(policy: Any) -> None:
    made = policy()
    verdict = made.unattended(made.judge(*call("exec", command="npm test")))
    assert (verdict.decision, verdict.by, verdict.rule) == (DENY, "unattended",
                                                            "exec(npm test:*)")


def test_a_managed_deny_rule_is_the_managed_policys(policy: Any, tmp_path: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    managed = tmp_path / "managed.toml"
    managed.write_text('[permissions]\ndeny = ["exec(curl:*)"]\n')
    monkeypatch.setenv("CHATCLI_MANAGED_CONFIG", str(managed))
    rules = (("deny", "exec(curl:*)"), ("deny", "exec(rm:*)"))
    made = policy(rules=rules)
    curl = made.judge(*call("exec", command="curl http://x/")).verdict
    assert (curl.decision, curl.by, curl.rule) == (DENY, "managed", "exec(curl:*)")
    rm = made.judge(*call("exec", command="rm x")).verdict
    assert (rm.by, rm.rule) == ("rule", "exec(rm:*)")
