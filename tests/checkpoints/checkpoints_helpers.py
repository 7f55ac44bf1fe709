"""Helpers for the checkpoint tests: stand-in tools, an agent-like turn, a chat app, git state.

(A module of its own, not conftest.py, so that its names do not clash with other folders'.)
The tools stand in for the coder plugin's: ``put_file`` (risk write: ``path`` and ``text``),
``multi_put`` (risk write: ``edits[].path``/``text``), ``patch`` (risk write: a patch naming its
files; the test gives the final contents separately, as ``files``) and ``shell`` (risk execute:
``bash -c`` in the workspace).
"""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Message,
    PluginHost,
    Risk,
    Session,
    SessionOptions,
    Settings,
    Tool,
    ToolContext,
    hookimpl,
)
from chatcli_checkpoints.plugin import CheckpointsPlugin
from chatcli_sessions import plugin as sessions_plugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin
from pydantic import BaseModel
from rich.console import Console

__all__ = ["App", "GitState", "StandInTools", "git", "make_repo", "read_tree", "shell", "snapshots",
           "write_call"]


class _Put(BaseModel):
    path: str
    text: str


class _Edit(BaseModel):
    path: str
    text: str


class _Multi(BaseModel):
    edits: list[_Edit]


class _Patch(BaseModel):
    patch: str
    files: dict[str, str | None]


class _Shell(BaseModel):
    command: str


def _put(args: _Put, context: ToolContext) -> str:
    target = Path(context.workspace) / args.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(args.text)
    return f"wrote {args.path}"


def _multi(args: _Multi, context: ToolContext) -> str:
    for edit in args.edits:
        _put(_Put(path=edit.path, text=edit.text), context)
    return f"wrote {len(args.edits)} files"


def _patch(args: _Patch, context: ToolContext) -> str:
    for name, text in args.files.items():
        target = Path(context.workspace) / name
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    return "patched"


def _shell(args: _Shell, context: ToolContext) -> str:
    done = subprocess.run(["bash", "-c", args.command], cwd=context.workspace,
                          capture_output=True, text=True, timeout=60)
    return f"exit {done.returncode}\n{done.stdout}{done.stderr}"


def _read(args: _Shell, context: ToolContext) -> str:
    return (Path(context.workspace) / args.command).read_text()


class StandInTools:
    """Registers the stand-in tools."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(Tool(name="put_file", description="Write a file.", args_model=_Put, run=_put,
                      risk=Risk.WRITE))
        register(Tool(name="multi_put", description="Write files.", args_model=_Multi,
                      run=_multi, risk=Risk.WRITE))
        register(Tool(name="patch", description="Apply a patch.", args_model=_Patch,
                      run=_patch, risk=Risk.WRITE))
        register(Tool(name="shell", description="Run a command.", args_model=_Shell,
                      run=_shell, risk=Risk.EXECUTE))
        register(Tool(name="look", description="Read a file.", args_model=_Shell, run=_read,
                      risk=Risk.READ))


def write_call(path: str, text: str) -> Reply:
    """A model reply calling ``put_file``."""
    return Reply(tool_calls=[ToolCall(name="put_file", arguments={"path": path, "text": text})])


def shell(command: str) -> Reply:
    """A model reply calling ``shell``."""
    return Reply(tool_calls=[ToolCall(name="shell", arguments={"command": command})])


class App:
    """A ChatApp for ``/rewind``: a real session (scripted provider, stand-in tools, the
    sessions plugin and a fresh checkpoints plugin) in ``workspace``; menu answers are queued in
    ``picks`` and the questions kept in ``pick_calls``. A plugin failure fails the test, unless
    ``strict`` is False: then it is kept in ``warnings``."""

    def __init__(self, workspace: Path, settings: Settings | None = None,
                 interactive: bool = False, checkpoints: CheckpointsPlugin | None = None,
                 strict: bool = True) -> None:
        self.warnings: list[str] = []

        def warn(line: str) -> None:
            if strict:
                raise AssertionError(f"plugin failure: {line}")
            self.warnings.append(line)

        self.host = PluginHost(warn=warn)
        self.provider = ScriptedProvider()
        self.host.register(scripted_plugin(self.provider), "scripted")
        self.host.register(StandInTools(), "tools")
        self.host.register(sessions_plugin, "sessions")
        self.checkpoints = checkpoints or CheckpointsPlugin()
        self.host.register(self.checkpoints, "checkpoints")
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=400, color_system=None, no_color=True)
        self.session = Session(self.host, settings or Settings(provider="scripted"),
                               SessionOptions(allow=frozenset({"write", "execute"})),
                               interactive=interactive, workspace=workspace,
                               approver=lambda *a: True).open()
        self.picks: list[int | None] = []
        self.pick_calls: list[tuple[str, list[str]]] = []
        self.prefilled: list[str] = []

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        self.session.set_conversation(conversation)

    def turn(self, prompt: str, *replies: Any) -> None:
        """One agent-like turn: the model's scripted replies (tool calls, then text)."""
        self.provider.script(*replies, f"done: {prompt}")
        events = list(self.session.run(Message.user(prompt)))
        assert events[-1].error is None, events[-1].error

    def run(self, line: str) -> str:
        name, _, args = line.lstrip("/").partition(" ")
        self.host.slash_commands()[name].run(self, args)
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text

    def texts(self) -> list[str]:
        return [m.text for m in self.conversation.messages()]

    def ask(self, text: str) -> None:
        raise NotImplementedError

    def submit(self, text: str) -> None:
        raise NotImplementedError

    def retry(self) -> None:
        raise NotImplementedError

    def pick(self, title: str, options: list[str]) -> int | None:
        self.pick_calls.append((title, options))
        return self.picks.pop(0) if self.picks else None

    def prefill(self, text: str) -> None:
        self.prefilled.append(text)

    def exit(self) -> None:
        pass

    def close(self) -> None:
        self.session.close()
        sessions_plugin.close_stores()


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its stdout."""
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})
    return done.stdout


def snapshots(repo: Path, *args: str) -> str:
    """Run git on the store chatcli keeps ``repo``'s snapshots in (not the repository); its
    stdout."""
    from chatcli_checkpoints._git import store_dir

    store = store_dir(os.path.realpath(repo))
    if not (store / "HEAD").is_file():
        return ""  # nothing recorded yet
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_DIR": str(store)})
    return done.stdout


def make_repo(path: Path, files: dict[str, str]) -> Path:
    """A git repository at ``path`` whose first commit holds ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "first")
    return path


class GitState:
    """What a snapshot must never touch: the index, stash, HEAD, branches, status."""

    def __init__(self, repo: Path) -> None:
        self.status = git(repo, "status", "--porcelain", "--untracked-files=all")
        self.stash = git(repo, "stash", "list")
        self.head = git(repo, "rev-parse", "HEAD")
        self.symbolic = git(repo, "symbolic-ref", "HEAD")
        self.cached = git(repo, "diff", "--cached")
        self.index = git(repo, "ls-files", "--stage")
        self.branches = git(repo, "for-each-ref", "refs/heads", "refs/tags", "refs/stash")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitState) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"GitState({vars(self)!r})"

    def same_but_status(self, other: GitState) -> bool:
        mine = {k: v for k, v in vars(self).items() if k != "status"}
        theirs = {k: v for k, v in vars(other).items() if k != "status"}
        return mine == theirs


def read_tree(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, str]:
    """Every file under ``root`` (outside ``skip``) and its text."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in skip or not path.is_file():
            continue
        found[rel] = path.read_text()
    return found
