"""A tmux terminal running the real chatcli REPL, for the Q provider's chat tests."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

CHATCLI = str(Path(sys.executable).with_name("chatcli"))


def have_tmux() -> bool:
    """Whether tmux is installed."""
    return shutil.which("tmux") is not None


class Terminal:
    """One tmux session (100x30) running ``command`` with ``env``."""

    def __init__(self, command: str, env: dict[str, str], cwd: Path) -> None:
        self.name = f"chatcli-q-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        script = (f"cd {shlex.quote(str(cwd))} && env -u COLUMNS -u LINES {exports} {command}; "
                  "echo EXIT=$?; sleep 30")
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "100", "-y", "30",
                        script], check=True)

    def type(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        time.sleep(0.2)
        self.send("Enter")

    def send(self, *keys: str) -> None:
        """Send tmux key names (``C-c``, ``C-d``, ``Enter``)."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        time.sleep(0.3)

    def screen(self) -> str:
        """The screen and its scrollback."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-500", "-t", self.name],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, condition: str | Callable[[str], bool], timeout: float = 20.0) -> str:
        """Poll the screen until ``condition`` (text or predicate) holds."""
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
