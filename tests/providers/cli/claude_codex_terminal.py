"""A small tmux driver for the REPL tests of the CLI providers (tests/repl has the full one;
test folders do not import each other's helpers)."""

from __future__ import annotations

import atexit
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

_keepalive: list[str] = []


def _keep_server_running() -> None:
    """One idle session for the whole test process: tmux's server exits when its last session
    closes, and a session started at that moment fails with "server exited unexpectedly"."""
    if _keepalive:
        return
    name = f"chatcli-cli-keepalive-{uuid.uuid4().hex[:8]}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "sleep 86400"], check=True)
    _keepalive.append(name)
    atexit.register(subprocess.run, ["tmux", "kill-session", "-t", name], capture_output=True)


class Terminal:
    """A tmux session of 100x30 running one command; closed with :meth:`close`."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        _keep_server_running()
        self.name = f"chatcli-cli-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        script = f"env -u COLUMNS -u LINES {exports} {command}; echo EXIT=$?; sleep 30"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "100", "-y", "30",
                        script], check=True)

    def send(self, *keys: str) -> None:
        """Send keys (``Enter``, ``C-c``…)."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        time.sleep(0.3)

    def type(self, text: str) -> None:
        """Type literal text and press Enter."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        self.send("Enter")

    def screen(self) -> str:
        """The screen and its scrollback."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-500", "-t",
                               self.name], capture_output=True, text=True).stdout

    def wait_for(self, condition: str | Callable[[str], bool], timeout: float = 20.0) -> str:
        """Poll the screen until ``condition`` (text, or a predicate) holds."""
        check = condition if callable(condition) else (lambda screen: condition in screen)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {condition!r}; screen:\n{screen}")

    def close(self) -> None:
        """Kill the session."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def have_tmux() -> bool:
    """Whether tmux is installed."""
    return shutil.which("tmux") is not None
