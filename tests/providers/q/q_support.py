"""Helpers for the Q provider tests: the fake ``q`` on PATH, its log, process checks.

(A module of its own, imported by bare name: conftest modules of other folders would shadow a
conftest import.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from chatcli import ChatRequest, Message, PromptSection, ProviderConfig

FAKE_Q = Path(__file__).with_name("fake_q.py")
#: ``ps``, found once (some tests empty PATH).
PS = shutil.which("ps") or "/bin/ps"


class FakeQ:
    """The fake ``q`` installed in a folder put first on PATH."""

    def __init__(self, root: Path) -> None:
        self.bin = root / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.path = self.bin / "q"
        self.path.write_text(f"#!{sys.executable}\n" + FAKE_Q.read_text(encoding="utf-8"),
                             encoding="utf-8")
        self.path.chmod(0o755)
        self.log_path = root / "q-log.jsonl"
        self.state = root / "q-state"
        self.once = root / "q-once"

    def env(self, **extra: str) -> dict[str, str]:
        """The variables a process needs to find and drive this fake."""
        return {"PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
                "FAKE_Q_LOG": str(self.log_path), "FAKE_Q_STATE": str(self.state),
                "FAKE_Q_ONCE": str(self.once), **extra}

    def records(self) -> list[dict[str, Any]]:
        """Every line the fake logged."""
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line]

    def starts(self) -> list[dict[str, Any]]:
        """The logged starts (argv, cwd, pid)."""
        return [r for r in self.records() if "argv" in r]

    def inputs(self) -> list[str]:
        """The questions it received, in order."""
        return [r["input"] for r in self.records() if "input" in r]

    def pids(self) -> list[int]:
        """The pids of every fake q that ran."""
        return [r["pid"] for r in self.starts()]


def running(pid: int) -> bool:
    """Whether ``ps`` shows ``pid`` running (a zombie does not count)."""
    state = subprocess.run([PS, "-o", "stat=", "-p", str(pid)], capture_output=True,
                           text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


def running_fakes(fake: FakeQ) -> list[str]:
    """The lines of ``ps`` that show this fake q running."""
    table = subprocess.run([PS, "-eo", "pid=,stat=,args="], capture_output=True,
                           text=True).stdout
    return [line for line in table.splitlines()
            if str(fake.path) in line and line.split()[1][:1] != "Z"]


def assert_no_orphans(pids: list[int], wait: float = 10.0) -> None:
    """Every process in ``pids`` is gone (polls up to ``wait`` seconds; ``ps`` would show
    them otherwise)."""
    deadline = time.monotonic() + wait
    alive = [pid for pid in pids if running(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if running(pid)]
    assert not alive, f"fake q processes still running: {alive}"


def config(**options: Any) -> ProviderConfig:
    """A provider config for ``q`` with ``options`` (``timeout`` goes to the config itself)."""
    timeout = options.pop("timeout", 120.0)
    return ProviderConfig(name="q", model=options.pop("model", "default"), timeout=timeout,
                          options=options)


#: What the engine puts first in every request of the chat (a lean one: q uses no chatcli tools).
BASE = PromptSection(name="chatcli", text="You are chatcli, an AI assistant in a developer's "
                     "terminal. Answer concisely in markdown.", order=0, essential=True)


def request(*texts: str) -> ChatRequest:
    """A request of the chat whose messages alternate user / assistant, starting with the
    user."""
    messages = [Message.user(t) if i % 2 == 0 else Message.assistant(t)
                for i, t in enumerate(texts)]
    return ChatRequest(model="default", messages=messages,
                       system=[BASE, PromptSection(name="date", text="Today is 2026-12-01.",
                                                   stable=False)])


def answer_text(events: Any) -> str:
    """The text of a stream's events."""
    return "".join(getattr(e, "text", "") for e in events if getattr(e, "type", "") == "text")
