"""Helpers of the repomap tests: small real git repositories, the real command line against the
scripted OpenAI wire server, and readers of what it received (imported by bare name)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
PLUGINS = "openai,sessions,context,environment,repomap"

#: a little project whose reference graph has an obvious centre: models.py is used everywhere
PROJECT = {
    "app/models.py": (
        "class UserAccount:\n"
        "    def save_account(self) -> None:\n"
        "        pass\n\n\n"
        "def load_account(name: str) -> UserAccount:\n"
        "    return UserAccount()\n"),
    "app/views.py": (
        "from app.models import UserAccount, load_account\n\n\n"
        "def show_account(name):\n"
        "    account = load_account(name)\n"
        "    account.save_account()\n"
        "    return UserAccount\n"),
    "app/api.py": (
        "from app.models import load_account\n"
        "from app.views import show_account\n\n\n"
        "def account_endpoint(name):\n"
        "    return show_account(name) or load_account(name)\n"),
    "app/lonely.py": "def lonely_helper_function():\n    return 1\n",
    "web/client.ts": (
        "export interface AccountRecord { name: string }\n"
        "export function fetchAccount(name: string): AccountRecord {\n"
        "  return { name };\n}\n"),
    "README.md": "# demo\n",
}


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (a test's own repository: its config is the test's)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=30, check=True)
    return done.stdout


def make_repo(root: Path, files: dict[str, str] | None = None, *,
              commits: tuple[str, ...] = ("first commit",)) -> Path:
    """A git repository at ``root`` on branch ``main`` holding ``files`` (PROJECT by default),
    committed as ``commits`` (the first holds the files, the others are empty)."""
    root.mkdir(parents=True, exist_ok=True)
    if (root / ".git").is_dir() and not any((root / ".git").iterdir()):
        (root / ".git").rmdir()  # the suite's workspace fixture makes an empty one
    git(root, "init", "-q", "-b", "main")
    write_files(root, PROJECT if files is None else files)
    git(root, "add", "-A")
    for index, subject in enumerate(commits):
        git(root, "commit", "-q", "--allow-empty", "-m", subject)
        if index == 0:
            continue
    return root


def write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def cli(home: Path, workspace: Path, server: Any, *args: str, plugins: str = PLUGINS,
        config: str = "", importtime: bool = False, **env: str
        ) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS --provider openai --model m`` as a real process in ``workspace``, with
    chatcli's folders under ``home`` (and ``config`` as its config.toml); ``importtime``: under
    ``python -X importtime`` (see :func:`imported`)."""
    if config:
        (home / "config").mkdir(parents=True, exist_ok=True)
        (home / "config" / "config.toml").write_text(config)
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_"))}
    environ.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
                   OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url,
                   CHATCLI_PLUGINS=f"{plugins},print", **env)
    front = [sys.executable, "-X", "importtime", CHATCLI] if importtime else [CHATCLI]
    return subprocess.run([*front, *args, "--provider", "openai", "--model", "m"],
                          capture_output=True, text=True, env=environ, cwd=workspace,
                          timeout=120, stdin=subprocess.DEVNULL)


def system_of(request: Any) -> str:
    """The system message of a recorded OpenAI request, with the volatile sections that
    follow the history (session_harness.system_of)."""
    from session_harness import system_of as read

    return read(request)


def section(system: str, start: str) -> str:
    """The section of ``system`` that begins with ``start`` (sections are joined by a blank
    line; a section may hold blank lines of its own, so it ends where the next known one
    starts)."""
    begin = system.index(start)
    ends = [system.find(mark, begin + 1) for mark in
            ("\n\nToday is ", "\n\nRepository map", "\n\nEnvironment (", "\n\nContents of ")]
    ends = [e for e in ends if e > begin]
    return system[begin:min(ends)] if ends else system[begin:]


def tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


def imported(done: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules a run under ``-X importtime`` imported."""
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}
