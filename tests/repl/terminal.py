"""Drive the real chatcli REPL in a tmux terminal (send keys, read the screen).

Other folders' terminal tests use it too: ``from repl.terminal import Terminal`` (``tests/`` is
on ``sys.path``)."""

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
    closes, and a test starting a session at that moment gets "server exited unexpectedly"."""
    if _keepalive:
        return
    name = f"chatcli-keepalive-{uuid.uuid4().hex[:8]}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "sleep 86400"], check=True)
    _keepalive.append(name)
    atexit.register(subprocess.run, ["tmux", "kill-session", "-t", name], capture_output=True)


class Terminal:
    """A 100x30 tmux session running one command."""

    def __init__(self, command: str, env: dict[str, str], cwd: Path | None = None,
                 width: int = 100, height: int = 30):
        _keep_server_running()
        self.name = f"chatcli-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        # Report the exit code, then keep the pane alive a little so it can be read.
        script = f"env -u COLUMNS -u LINES {exports} {command}; echo EXIT=$?; sleep 30"
        if cwd is not None:
            script = f"cd {shlex.quote(str(cwd))} && {script}"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width),
                        "-y", str(height), script], check=True)

    def send(self, *keys: str, pause: float = 0.3) -> None:
        """Send keys (``'text'``, ``'Enter'``, ``'C-c'``…), then give the program a moment."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        time.sleep(pause)

    def type(self, text: str) -> None:
        """Type literal text and press Enter."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        self.send("Enter")

    def screen(self) -> str:
        """The visible screen plus scrollback."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-500", "-t",
                               self.name], capture_output=True, text=True, check=True).stdout

    def wait_for(self, condition: str | Callable[[str], bool], timeout: float = 20.0) -> str:
        """Poll the screen until ``condition`` (a substring or a predicate) holds."""
        check = condition if callable(condition) else (lambda screen: condition in screen)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {condition!r}; screen:\n{screen}")

    def program_pid(self) -> int:
        """The pid of the program running in the pane (the child of the pane's shell)."""
        shell = subprocess.run(["tmux", "display-message", "-p", "-t", self.name,
                                "#{pane_pid}"], capture_output=True, text=True,
                               check=True).stdout.strip()
        children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True
                                  ).stdout.split()
        if not children:
            raise AssertionError(f"no program runs in the pane (shell pid {shell})")
        return int(children[0])

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (bracketed paste)."""
        buffer = f"paste-{self.name}"
        subprocess.run(["tmux", "load-buffer", "-b", buffer, "-"], input=text, text=True,
                       check=True)
        subprocess.run(["tmux", "paste-buffer", "-p", "-d", "-b", buffer, "-t", self.name],
                       check=True)

    def close(self) -> None:
        """Kill the session."""
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def wait_until(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    """Poll ``predicate`` until true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def have_tmux() -> bool:
    """Whether tmux is installed."""
    return shutil.which("tmux") is not None
