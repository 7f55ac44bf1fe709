"""How the permission policy words why it asks about a tool of its own risk class: "an execute
tool", "a write tool" (issue 18 found "is a execute tool")."""

from __future__ import annotations

import pytest
from chatcli import Decision, Risk, ToolCallPart, ToolSpec

#: (risk class, the article before it)
WORDING = [
    (Risk.EXECUTE, "an"),
    (Risk.WRITE, "a"),
]


@pytest.mark.parametrize(("risk", "article"), WORDING, ids=[r.value for r, _ in WORDING])
def test_the_reason_uses_the_right_article(policy, risk: Risk, article: str) -> None:
    spec = ToolSpec("deploy", "a plugin's tool", risk=risk)
    verdict = policy().judge(ToolCallPart(name="deploy", arguments={}), spec).verdict
    assert verdict.decision == Decision.ASK
    assert f"deploy is {article} {risk.value} tool (it asks in default mode)" in verdict.reason
    assert " a execute" not in verdict.reason
