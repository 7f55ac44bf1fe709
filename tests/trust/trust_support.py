"""Helpers of the workspace-trust tests: a project someone else wrote, and ``chatcli`` run in it
as a separate process with a scripted model (the user's wire server) and an attacker's server.

The world lives under ``/var/tmp`` (never ``/tmp``: the sandbox gives commands a private
``/tmp``, so the tests put a marker there to tell whether a command ran inside it):

- ``ws/``: the project (a git repository) with ``.chatcli/config.toml`` written by each test;
- ``outside/``: a folder next to it holding a canary;
- ``home/``: the run's ``HOME``; ``config/``, ``data/``, ``cache/``: chatcli's folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli_testing import Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"

#: The user's API key: it may reach the user's server only.
USER_KEY = "sk-user-" + "k" * 24


@dataclass
class World:
    base: Path
    token: str

    @property
    def ws(self) -> Path:
        return self.base / "ws"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    @property
    def home(self) -> Path:
        return self.base / "home"

    @property
    def user_config(self) -> Path:
        return self.base / "config" / "config.toml"

    @property
    def project_config(self) -> Path:
        return self.ws / ".chatcli" / "config.toml"

    @property
    def trust_file(self) -> Path:
        return self.base / "data" / "trusted-projects.json"

    @property
    def canary(self) -> str:
        return f"CANARY-{self.token}"

    def fill(self, text: str, **values: str) -> str:
        text = text.replace("{ws}", str(self.ws)).replace("{out}", str(self.outside))
        text = text.replace("{home}", str(self.home)).replace("{token}", self.token)
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
        return text

    def env(self, user_url: str, plugins: str = "openai,coder,permissions",
            **extra: str) -> dict[str, str]:
        """Nothing of the test process's environment but PATH: the user's key and server."""
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                "CHATCLI_CONFIG_DIR": str(self.base / "config"),
                "CHATCLI_DATA_DIR": str(self.base / "data"),
                "CHATCLI_CACHE_DIR": str(self.base / "cache"),
                "CHATCLI_PLUGINS": f"{plugins},admin,print",  # admin: `chatcli trust`; print: -p
                "OPENAI_API_KEY": USER_KEY, "OPENAI_BASE_URL": user_url,
                "GIT_CONFIG_NOSYSTEM": "1", **extra}

    def write_project(self, text: str) -> None:
        self.project_config.parent.mkdir(parents=True, exist_ok=True)
        self.project_config.write_text(text)

    def write_user(self, text: str) -> None:
        self.user_config.write_text(text)

    def chatcli(self, *args: str, url: str = "http://127.0.0.1:9/v1", stdin: str = "",
                cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
        """Run ``chatcli ARGS`` in the project (no terminal)."""
        return subprocess.run([str(CHATCLI), *args], cwd=cwd or self.ws,
                              env=self.env(url, **extra), input=stdin, capture_output=True,
                              text=True, timeout=120)


def make_world() -> World:
    base = Path(tempfile.mkdtemp(prefix="chatcli-trust-", dir="/var/tmp"))
    world = World(base, uuid.uuid4().hex[:12])
    for folder in (world.ws, world.outside, world.home, base / "config", base / "data",
                   base / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(world.ws)], check=True, capture_output=True,
                   env={"PATH": os.environ.get("PATH", ""), "HOME": str(world.home)})
    (world.outside / "canary.txt").write_text(world.canary + "\n")
    (world.ws / "notes.txt").write_text("notes\n")
    world.write_user("")
    return world


@dataclass
class Run:
    """What one ``chatcli -p`` run did."""

    returncode: int
    stdout: str
    stderr: str
    requests: list[Any]

    def chats(self) -> list[dict[str, Any]]:
        return [r.json for r in self.requests
                if r.path.split("?")[0].endswith("/chat/completions")]

    def seen_by_the_model(self) -> str:
        """Every message of every request, as text."""
        return "\n".join(repr(body.get("messages")) for body in self.chats())

    def system(self) -> str:
        bodies = self.chats()
        assert bodies, f"the model was never asked; stderr:\n{self.stderr}"
        return "\n".join(str(m.get("content")) for m in bodies[0]["messages"]
                         if m.get("role") == "system")

    def notices(self) -> list[str]:
        return [line for line in self.stderr.splitlines()
                if "project is not trusted" in line or "project cannot set" in line
                or "changed since you trusted it" in line]


def ask(world: World, server: Any, *calls: tuple[str, dict[str, Any]], flags: tuple[str, ...] = (),
        **extra: str) -> Run:
    """``chatcli -p`` in the project: the scripted model makes each call in turn, then answers."""
    replies = [Reply(tool_calls=[ToolCall(name, args, id=f"call_{index}")])
               for index, (name, args) in enumerate(calls)]
    server.script(*replies, Reply(text="done."))
    done = subprocess.run(
        [str(CHATCLI), "--provider", "openai", "--model", "m", "-p", "do it", *flags],
        cwd=world.ws, env=world.env(server.url, **extra), capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=150)
    return Run(done.returncode, done.stdout, done.stderr, list(server.requests))
