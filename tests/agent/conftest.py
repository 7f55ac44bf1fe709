"""Shared set-up of the chatcli-agent tests.

Every test runs with chatcli's config and data folders in a temporary folder. The permission
tests also get a workspace and a home folder of their own (``ws`` fixture: ``HOME`` points into
the temporary folder, so ``~/.ssh`` and friends are the test's), stand-in tools named and shaped
like the coder's (they record what they were asked to do and never touch a file or run a
command), and :func:`drive`, which runs one real engine turn in which a scripted model makes the
calls.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_support import Recorder, Workspace, make_workspace, policy_for
from chatcli import (
    Message,
    PluginHost,
    Risk,
    Session,
    SessionOptions,
    Settings,
    Tool,
    ToolFinished,
    hookimpl,
)
from chatcli_agent.permissions.plugin import PermissionsPlugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin
from pydantic import BaseModel


@pytest.fixture(autouse=True)
def _isolated(home: Path) -> None:
    """Every test here in tests/conftest.py's ``home``: no keys or CHATCLI_* leak in."""


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    space = make_workspace(Path(os.path.realpath(tmp_path)))
    monkeypatch.setenv("HOME", str(space.home))
    monkeypatch.chdir(space.root)
    return space


# ------------------------------------------------------------------------------------ stand-ins


class PathArgs(BaseModel):
    path: str = "."


class WriteArgs(BaseModel):
    path: str
    content: str = ""


class EditArgs(BaseModel):
    path: str
    old: str = ""
    new: str = ""
    replace_all: bool = False


class OneEdit(BaseModel):
    path: str
    old: str = ""
    new: str = ""


class MultiEditArgs(BaseModel):
    edits: list[OneEdit]


class PatchArgs(BaseModel):
    patch: str


class SearchArgs(BaseModel):
    pattern: str
    path: str = "."


class ExecArgs(BaseModel):
    command: str
    cwd: str = "."
    timeout: float | None = None
    network: bool = False


class TestArgs(BaseModel):
    command: str | None = None
    cwd: str = "."


class GitArgs(BaseModel):
    action: str = "status"
    path: str | None = None


class StandInTools:
    """Tools named like the coder's, with the same argument names, risks and subjects. They
    record each call they run (``ran``) and do nothing else."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def _runner(self, name: str):
        def run(args: Any, context: Any) -> str:
            self.ran.append((name, args.model_dump()))
            return f"{name} ran"

        return run

    @hookimpl
    def register_tools(self, register: Any) -> None:
        specs = [
            ("read", PathArgs, Risk.READ, "path"),
            ("search", SearchArgs, Risk.READ, "path"),
            ("glob", SearchArgs, Risk.READ, "path"),
            ("tree", PathArgs, Risk.READ, "path"),
            ("write", WriteArgs, Risk.WRITE, "path"),
            ("edit", EditArgs, Risk.WRITE, "path"),
            ("multiedit", MultiEditArgs, Risk.WRITE, None),
            ("apply_patch", PatchArgs, Risk.WRITE, None),
            ("exec", ExecArgs, Risk.EXECUTE, "command"),
            ("test", TestArgs, Risk.EXECUTE, "command"),
            ("git", GitArgs, Risk.READ, None),
        ]
        for name, model, risk, subject in specs:
            register(Tool(name=name, description=f"stand-in {name}", args_model=model,
                          risk=risk, subject=subject, run=self._runner(name)))


@dataclass
class Outcome:
    """What one driven turn did."""

    results: list[Any]
    ran: list[tuple[str, dict[str, Any]]]
    approver: Recorder | None
    session: Session
    plugin: PermissionsPlugin

    @property
    def texts(self) -> list[str]:
        return [r.content for r in self.results]

    @property
    def errors(self) -> list[bool]:
        return [r.is_error for r in self.results]


class Driver:
    """Runs turns of one session: the policy plugin, the stand-in tools and a scripted model on
    a real PluginHost, Session and Engine."""

    def __init__(self, ws: Workspace, *, mode: str | None = None,
                 allow: frozenset[str] = frozenset(), interactive: bool = False,
                 approver: Recorder | None = None, settings: dict[str, Any] | None = None,
                 plugins: tuple[object, ...] = ()) -> None:
        self.provider = ScriptedProvider()
        self.tools = StandInTools()
        self.plugin = PermissionsPlugin()
        self.host = PluginHost(warn=lambda line: self.warnings.append(line))
        self.warnings: list[str] = []
        self.host.register(scripted_plugin(self.provider), "scripted")
        self.host.register(self.tools, "stand-in-tools")
        self.host.register(self.plugin, "permissions")
        for index, plugin in enumerate(plugins):
            self.host.register(plugin, f"extra{index}")
        self.approver = approver
        self.session = Session(
            self.host, Settings(provider="scripted", **(settings or {})),
            SessionOptions(allow=allow, permission_mode=mode), interactive=interactive,
            approver=approver, workspace=ws.root).open()

    def turn(self, *calls: tuple[str, dict[str, Any]]) -> Outcome:
        start = len(self.tools.ran)
        self.provider.script(Reply(tool_calls=[ToolCall(name, args) for name, args in calls]),
                             Reply(text="done"))
        events = list(self.session.run(Message.user("go")))
        results = [e.result for e in events if isinstance(e, ToolFinished)]
        return Outcome(results, self.tools.ran[start:], self.approver, self.session,
                       self.plugin)

    def close(self) -> None:
        self.session.close()


@pytest.fixture
def drive(ws: Workspace):
    """``drive(calls…, mode=…, allow=…, interactive=…, approver=…)`` → :class:`Outcome` of
    one turn in a fresh session."""
    opened: list[Driver] = []

    def run(*calls: tuple[str, dict[str, Any]], **options: Any) -> Outcome:
        driver = Driver(ws, **options)
        opened.append(driver)
        return driver.turn(*calls)

    yield run
    for driver in opened:
        driver.close()


@pytest.fixture
def driver(ws: Workspace):
    """A :class:`Driver` factory whose sessions last the whole test (several turns)."""
    opened: list[Driver] = []

    def make(**options: Any) -> Driver:
        made = Driver(ws, **options)
        opened.append(made)
        return made

    yield make
    for made in opened:
        made.close()


@pytest.fixture
def policy(ws: Workspace):
    """``policy(mode=…, rules=[(effect, text)…], allowed_dirs=…, classes=…)`` → a
    :class:`Policy` for the test's workspace."""
    return policy_for(ws)
