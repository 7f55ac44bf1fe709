"""Helpers the chatcli-agent tests import: an approver that records its questions, a tool
call paired with its stand-in spec, and the permission tests' workspace (the fixtures are in
conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
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


@dataclass
class Workspace:
    """A workspace folder, a home folder, and something outside both."""

    root: Path
    home: Path
    outside: Path

    def file(self, relative: str, text: str = "x\n") -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    @property
    def user_config(self) -> Path:
        from chatcli import user_config_path

        return user_config_path()


def make_workspace(base: Path) -> Workspace:
    """The ``ws`` fixture's folders under ``base`` (``ws``, ``home``, ``outside``) with their
    files: sources, a secret, ``.env``, a README, a file outside, ``~/.ssh/id_rsa`` and
    ``~/.bashrc``. ``HOME`` and the current folder are the caller's to set."""
    root, home, outside = base / "ws", base / "home", base / "outside"
    for folder in (root, home, outside):
        folder.mkdir()
    space = Workspace(root, home, outside)
    space.file("src/app.py", "print('hi')\n")
    space.file("secrets/key.txt", "top secret\n")
    space.file(".env", "TOKEN=abc\n")
    space.file("README.md", "# demo\n")
    (outside / "data.txt").write_text("outside\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE\n")
    (home / ".bashrc").write_text("# rc\n")
    return space


def policy_for(space: Workspace) -> Any:
    """``make(mode=…, rules=[(effect, text)…], allowed_dirs=…, classes=…)`` → a
    :class:`Policy` for ``space`` (the ``policy`` fixture)."""
    from chatcli_agent.permissions.policy import Policy
    from chatcli_agent.permissions.rules import parse_rule

    def make(mode: str = "default", rules: tuple[tuple[str, str], ...] = (),
             allowed_dirs: tuple[str, ...] = (), classes: tuple[str, ...] = ()) -> Policy:
        return Policy(space.root, mode=mode, home=space.home, allowed_dirs=allowed_dirs,
                      classes=classes,
                      rules=[parse_rule(text, effect, "test") for effect, text in rules])

    return make
