"""``chatcli.tool.decided_by`` of a tool call's span: a person's answer (``user``), else who the
permission policy says decided (:attr:`chatcli.Verdict.by`, the same in every language), else
``policy`` — and ``policy`` for a question nobody answered."""

from __future__ import annotations

import pytest
from chatcli import Approval, Decision, Risk, ToolCallPart, ToolSpec, Verdict
from chatcli_otel.attributes import tool_start


@pytest.mark.parametrize(("verdict", "approval", "expected"), [
    (Verdict(Decision.DENY, "`rm x` é negado pela regra exec(rm:*)", "exec(rm:*)", by="rule"),
     None, "rule"),
    (Verdict(Decision.DENY, "o modo de planejamento é somente leitura", by="mode"), None, "mode"),
    (Verdict(Decision.DENY, "ninguém pode ser perguntado", by="unattended"), None, "unattended"),
    (Verdict(Decision.ALLOW, by="mode"), None, "mode"),
    (Verdict(Decision.ALLOW), None, "policy"),  # another policy's verdict, saying nothing
    (Verdict(Decision.ASK, "runs `npm test`", by="rule"), None, "policy"),  # nobody answered
    (Verdict(Decision.ASK, "runs `npm test`", by="rule"), Approval(True), "user"),
])
def test_who_decided(verdict: Verdict, approval: Approval | None, expected: str) -> None:
    call = ToolCallPart(name="exec", arguments={"command": "x"})
    spec = ToolSpec("exec", "run", risk=Risk.EXECUTE)
    attributes = tool_start(call, spec, verdict.decision == Decision.ALLOW, approval, verdict,
                            "s_1", capture=False)
    assert attributes["chatcli.tool.decided_by"] == expected
