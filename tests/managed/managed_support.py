"""Helpers of the managed-policy tests: a world with a managed file, a user file, a project, and
``chatcli`` run in it as a separate process (the scripted wire server as the model).

The world lives under ``/var/tmp`` (never ``/tmp``): ``managed.toml`` (named by
``CHATCLI_MANAGED_CONFIG``: the tests cannot write ``/etc``), ``ws/`` (the project, a git
repository), ``home/``, ``config/``, ``data/``, ``cache/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHATCLI = Path(sys.executable).parent / "chatcli"

#: the plugins of most runs (``print`` for ``-p``, ``admin`` for ``config`` and ``trust``)
PLUGINS = "openai,anthropic,coder,permissions,cost,mcp,admin,print"


@dataclass
class World:
    base: Path

    @property
    def ws(self) -> Path:
        return self.base / "ws"

    @property
    def managed(self) -> Path:
        return self.base / "managed.toml"

    @property
    def user_config(self) -> Path:
        return self.base / "config" / "config.toml"

    @property
    def project_config(self) -> Path:
        return self.ws / ".chatcli" / "config.toml"

    def write_managed(self, text: str) -> None:
        self.managed.write_text(text)

    def write_user(self, text: str) -> None:
        self.user_config.write_text(text)

    def write_project(self, text: str) -> None:
        self.project_config.parent.mkdir(parents=True, exist_ok=True)
        self.project_config.write_text(text)

    def env(self, url: str = "http://127.0.0.1:9/v1", plugins: str | None = PLUGINS,
            **extra: str) -> dict[str, str]:
        """Nothing of the test process's environment but PATH."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.base / "home"),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "CHATCLI_CONFIG_DIR": str(self.base / "config"),
               "CHATCLI_DATA_DIR": str(self.base / "data"),
               "CHATCLI_CACHE_DIR": str(self.base / "cache"),
               "CHATCLI_MANAGED_CONFIG": str(self.managed),
               "OPENAI_API_KEY": "sk-test-" + "k" * 20, "OPENAI_BASE_URL": url,
               "ANTHROPIC_API_KEY": "sk-ant-test", "GIT_CONFIG_NOSYSTEM": "1", **extra}
        if plugins is not None:
            env["CHATCLI_PLUGINS"] = plugins
        return env

    def chatcli(self, *args: str, url: str = "http://127.0.0.1:9/v1", stdin: str = "",
                plugins: str | None = PLUGINS, **extra: str) -> subprocess.CompletedProcess[str]:
        """``chatcli ARGS`` in the project (no terminal)."""
        return subprocess.run([str(CHATCLI), *args], cwd=self.ws,
                              env=self.env(url, plugins, **extra), input=stdin,
                              capture_output=True, text=True, timeout=120)

    def trust(self) -> None:
        done = self.chatcli("trust", "--yes")
        assert done.returncode == 0, done.stderr

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def make_world() -> World:
    base = Path(tempfile.mkdtemp(prefix="chatcli-managed-", dir="/var/tmp"))
    world = World(base)
    for folder in (world.ws, base / "home", base / "config", base / "data", base / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(world.ws)], check=True, capture_output=True,
                   env={"PATH": os.environ.get("PATH", ""), "HOME": str(base / "home")})
    (world.ws / "notes.txt").write_text("notes\n")
    world.write_user("")
    world.write_managed("")  # (named by the variable, so it must exist: a missing one is an error)
    return world


def one_line_error(done: subprocess.CompletedProcess[str], world: World) -> str:
    """The run's error: exit 2, one ``chatcli: error:`` line naming the managed file."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    errors = [line for line in lines if line.startswith("chatcli: error:")]
    assert len(errors) == 1, done.stderr
    assert str(world.managed) in errors[0], done.stderr
    return errors[0]
