"""Helpers the chatcli-agent tests import: an approver that records its questions and a tool
call paired with its stand-in spec (the fixtures are in conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chatcli import Approval, Risk


@dataclass
class Recorder:
    """An approver that records each question and answers from a list (default: no)."""

    answers: list[Any] = field(default_factory=list)
    questions: list[tuple[str, dict[str, Any], str, str | None]] = field(default_factory=list)

    def __call__(self, call: Any, tool: Any, verdict: Any) -> Approval:
        self.questions.append((call.name, dict(call.arguments), verdict.reason, verdict.rule))
        answer = self.answers.pop(0) if self.answers else Approval(False, reason="no")
        return answer if isinstance(answer, Approval) else Approval(bool(answer))


def call(name: str, **arguments: Any) -> tuple[Any, Any]:
    """A tool call and the stand-in tool's spec, for :meth:`Policy.judge`."""
    from chatcli import ToolCallPart, ToolSpec

    risks = {"read": Risk.READ, "search": Risk.READ, "glob": Risk.READ, "tree": Risk.READ,
             "write": Risk.WRITE, "edit": Risk.WRITE, "multiedit": Risk.WRITE,
             "apply_patch": Risk.WRITE, "exec": Risk.EXECUTE, "test": Risk.EXECUTE,
             "git": Risk.READ}
    subjects = {"exec": "command", "test": "command", "multiedit": None, "apply_patch": None,
                "git": None}
    spec = ToolSpec(name, f"stand-in {name}", risk=risks.get(name, Risk.EXECUTE),
                    subject=subjects.get(name, "path") if name in risks else None)
    return ToolCallPart(name=name, arguments=arguments), spec
