"""Helpers of the cost tests: a host with real providers pointed at the wire servers and a cost
plugin with a clock of its own, a session, turns, and what ``/cost`` prints.

(A module of its own, imported by bare name: conftest modules of different test folders would
shadow each other.)
"""

from __future__ import annotations

import atexit
import io
import os
import shlex
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chatcli_provider_anthropic.plugin as anthropic_plugin
import chatcli_provider_openai.plugin as openai_plugin
from chatcli import (
    Conversation,
    Message,
    PluginHost,
    Session,
    SessionOptions,
    Settings,
    TurnFinished,
)
from chatcli_context.cost.plugin import CostPlugin
from rich.console import Console

ANTHROPIC_KEY = "sk-ant-cost-test-0123456789"
OPENAI_KEY = "sk-cost-test-0123456789abcdef"

#: Prices of the test models, USD per million tokens.
PRICES = {
    "anthropic/claude-test": {"input": 3.0, "output": 15.0, "cache_read": 0.3,
                              "cache_write": 3.75, "cache_write_1h": 6.0},
    "openai/gpt-test": {"input": 3.0, "output": 15.0, "cache_read": 0.3},
}


class FakeClock:
    """A clock that moves only when told: a pause is simulated, not slept."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Run:
    """A host with both providers pointed at the test servers, and its cost plugin."""

    host: PluginHost
    cost: CostPlugin
    clock: FakeClock
    warnings: list[str] = field(default_factory=list)


def make_run(monkeypatch: Any, *, anthropic: Any = None, openai: Any = None,
             plugins: tuple[Any, ...] = ()) -> Run:
    """Providers for the given servers (keys and URLs in the environment), the cost plugin."""
    clock = FakeClock()
    warnings: list[str] = []
    host = PluginHost(warn=warnings.append)
    if anthropic is not None:
        monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic.url)
        host.register(anthropic_plugin, "anthropic")
    if openai is not None:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.url)
        host.register(openai_plugin, "openai")
    for i, plugin in enumerate(plugins):
        host.register(plugin, f"test-plugin-{i}")
    cost = CostPlugin(clock=clock)
    host.register(cost, "cost")
    return Run(host, cost, clock, warnings)


def settings(provider: str, model: str, providers: dict[str, Any] | None = None,
             **cost: Any) -> Settings:
    """Settings answering with ``provider``/``model``, the test prices and ``[cost]`` keys
    (and ``[providers.NAME]`` tables)."""
    return Settings(provider=provider, model=model, providers=providers or {},
                    cost={"prices": PRICES, **cost})  # type: ignore[call-arg]


def open_session(run: Run, settings: Settings, tmp_path: Any,
                 options: SessionOptions | None = None, **kw: Any) -> Session:
    return Session(run.host, settings, options or SessionOptions(), workspace=tmp_path,
                   **kw).open()


def ask(session: Session, text: str) -> TurnFinished:
    """Run one turn; it must succeed."""
    *_, finished = session.run(Message.user(text))
    assert isinstance(finished, TurnFinished), finished
    assert finished.error is None, finished.error
    return finished


@dataclass
class App:
    """What a slash command gets from a front end (the parts ``/cost`` uses)."""

    session: Session
    host: PluginHost
    console: Console

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation


def cost_lines(run: Run, session: Session) -> list[str]:
    """What ``/cost`` prints for ``session``, line by line."""
    out = io.StringIO()
    app = App(session, run.host, Console(file=out, width=200, no_color=True))
    run.host.slash_commands()["cost"].run(app, "")
    return out.getvalue().splitlines()


def row(lines: list[str], name: str) -> list[str]:
    """The cells of the table row of ``name`` (a provider/model or "total") of the last table
    in ``lines``."""
    headers = [i for i, line in enumerate(lines) if line.startswith("provider/model")]
    for line in lines[headers[-1] if headers else 0:]:
        cells = line.split()
        if cells and cells[0] == name:
            return cells[1:]
    raise AssertionError(f"no row {name!r} in {lines}")


def ttl_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("cache TTL:"))


# ------------------------------------------------------------------ real processes

#: The environment running the tests: its chatcli.
CHATCLI = Path(sys.executable).with_name("chatcli")


def process_env(home: Path, **extra: str) -> dict[str, str]:
    """A chatcli process's environment: the test's own dirs, no keys or CHATCLI_* of ours."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "ANTHROPIC_", "OPENAI_")) and not k.endswith("_KEY")}
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"))
    env.update(extra)
    return env


def run_chatcli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS`` as a real process in ``home/work``."""
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=60,
                          env=process_env(home, **env), cwd=work, stdin=subprocess.DEVNULL)


_KEEPALIVE: list[str] = []


class Terminal:
    """chatcli in a 120x40 tmux session (keys in, screen out)."""

    def __init__(self, command: str, env: dict[str, str], cwd: Path) -> None:
        if not _KEEPALIVE:  # tmux's server ends with its last session: keep one idle
            name = f"chatcli-cost-keepalive-{uuid.uuid4().hex[:8]}"
            subprocess.run(["tmux", "new-session", "-d", "-s", name, "sleep 86400"], check=True)
            _KEEPALIVE.append(name)
            atexit.register(subprocess.run, ["tmux", "kill-session", "-t", name],
                            capture_output=True)
        self.name = f"chatcli-cost-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        script = f"env -u COLUMNS -u LINES {exports} {command}; echo EXIT=$?; sleep 30"
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "120", "-y", "40",
                        "-c", str(cwd), script], check=True)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        time.sleep(0.3)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)
        time.sleep(0.3)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-500", "-t",
                               self.name], capture_output=True, text=True, check=True).stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {text!r}; screen:\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
