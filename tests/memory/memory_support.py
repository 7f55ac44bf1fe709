"""Helpers of the chatcli-memory tests: a clock tests move, a real Session against the OpenAI
wire server with the memory plugin (the same server plays the extraction model), a ChatApp for
``/memory``, the real command line, and readers of what the server received (a module of its
own: tests import it by its bare name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from chatcli_memory.plugin import MemoryPlugin
from session_harness import HarnessChat

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
#: how every extraction request's system prompt begins
EXTRACTION_MARK = "You maintain the long-term memory of a coding assistant."
DAY = 86_400.0


class Clock:
    """The time as memory sees it: real time at the start, moved by :meth:`advance`."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, *, days: float = 0.0, seconds: float = 0.0) -> None:
        self.now += days * DAY + seconds


def extraction(**fields: Any) -> str:
    """A scripted extraction answer (JSON)."""
    return json.dumps(fields)


class Chat(HarnessChat):
    """A session with the memory plugin answering through ``server`` and a ChatApp for
    ``/memory``; ``interactive`` sessions extract after answers, one-shot ones do not."""

    def __init__(self, server: Any, workspace: Path, clock: Clock, *,
                 memory: dict[str, Any] | None = None, interactive: bool = True,
                 extra_plugins: tuple[Any, ...] = (), approver: Any = None,
                 **settings: Any) -> None:
        self.plugin = MemoryPlugin(clock=clock)
        super().__init__(server, workspace, plugins=[("memory", self.plugin)],
                         extra_plugins=extra_plugins, interactive=interactive,
                         approver=approver, memory={"cooldown": 120, **(memory or {})},
                         **settings)

    @property
    def runtime(self) -> Any:
        return self.plugin.current()

    def command(self, text: str) -> str:
        """Run ``/memory TEXT``; what it printed."""
        return self.slash(f"/memory {text}")

    def wait(self) -> None:
        """Until the extraction in flight (if any) and the maintenance finished."""
        worker = self.runtime.worker
        if worker is not None:
            assert worker.wait(30), "the extraction did not finish"
        self.runtime.wait_maintenance()


# ------------------------------------------------------------------------ what was received


def is_extraction(request: Any) -> bool:
    return EXTRACTION_MARK in system_of(request)


def system_of(request: Any) -> str:
    """The system prompt, with the volatile sections that follow the history (recall, the
    date: session_harness.system_of); "" without one."""
    from session_harness import system_of as read

    return read(request)


def chat_requests(server: Any) -> list[Any]:
    """The requests of conversation turns (extraction requests left out)."""
    return [r for r in server.requests if r.json and not is_extraction(r)]


def extraction_requests(server: Any) -> list[Any]:
    return [r for r in server.requests if r.json and is_extraction(r)]


def stable_prefix(request: Any) -> str:
    """The system text up to the first volatile section (the kernel's date)."""
    system = system_of(request)
    return system[:system.index("\n\nToday is ")]


def wait_for(condition: Any, timeout: float = 30.0) -> None:
    """Poll ``condition()`` until it holds (an ordering wait, not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


# ------------------------------------------------------------------------ the command line


def cli(home: Path, workspace: Path, server: Any, *args: str, plugins: str =
        "openai,sessions,memory", model_flags: bool = True,
        **env: str) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS`` as a real process in ``workspace`` (``--provider openai --model m``
    added for chat runs)."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_"))}
    environ["CHATCLI_LANG"] = "en"  # another language: CHATCLI_LANG="pt_BR"
    environ.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
                   OPENAI_API_KEY="sk-test", CHATCLI_PLUGINS=f"{plugins},print", **env)
    if server is not None:
        environ["OPENAI_BASE_URL"] = server.url
    flags = ["--provider", "openai", "--model", "m"] if model_flags else []
    return subprocess.run([CHATCLI, *args, *flags], capture_output=True, text=True,
                          env=environ, cwd=workspace, timeout=60, stdin=subprocess.DEVNULL)
