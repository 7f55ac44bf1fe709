"""Helpers shared by the command-line tests: paths, fake terminals, in-process and real runs.

(A module of its own, not conftest.py: test modules import these names, and conftest modules
of different test folders would shadow each other.)
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli._cli import run
from chatcli_agent.permissions import cli_options
from chatcli_testing import ScriptedProvider, scripted_plugin
from scripted_app import ToolPlugin

ROOT = Path(__file__).resolve().parents[2]
#: The environment running the tests (any venv, wherever it is): its chatcli and python.
VENV_BIN = Path(sys.executable).parent
CHATCLI = VENV_BIN / "chatcli"
PYTHON = VENV_BIN / "python"
SCRIPTED_APP = Path(__file__).parent / "scripted_app.py"

_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST",
             "XAI_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY")


class TtyInput(io.StringIO):
    """A stdin that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@dataclass
class Result:
    """What one chatcli run produced."""

    code: int
    out: str
    err: str


class Cli:
    """Runs chatcli in-process with a host holding a scripted provider."""

    def __init__(self, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.provider = ScriptedProvider()
        self.host = PluginHost(warn=lambda line: print(f"chatcli: warning: {line}",
                                                       file=sys.stderr))
        self.host.register(scripted_plugin(self.provider), "scripted")
        self.host.register(ToolPlugin(), "tools")
        self.host.register(cli_options, "agent-options")  # --allow, as chatcli-agent adds it

    def script(self, *replies) -> None:
        """Queue the provider's replies (chatcli_testing Reply / Fault / exceptions)."""
        self.provider.script(*replies)

    def __call__(self, *argv: str, stdin: str | io.StringIO = "") -> Result:
        self.capsys.readouterr()
        source = stdin if isinstance(stdin, io.StringIO) else io.StringIO(stdin)
        self.monkeypatch.setattr(sys, "stdin", source)
        code = run(list(argv), host=self.host)
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)


def process_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a chatcli subprocess: the test's isolated dirs, no keys."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and k not in _KEY_VARS
           and not k.endswith("_API_KEY")}
    env["CHATCLI_CONFIG_DIR"] = str(home / "config")
    env["CHATCLI_DATA_DIR"] = str(home / "data")
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env.update(extra)
    return env


def run_process(args: list[str], home: Path, *, input: str | None = "", timeout: float = 60,
                **env: str) -> subprocess.CompletedProcess[str]:
    """Run a command (``[CHATCLI, ...]`` or the scripted app) as a real process."""
    return subprocess.run(
        [str(a) for a in args], input=input, capture_output=True, text=True, timeout=timeout,
        env=process_env(home, **env), cwd=home / "work" if (home / "work").is_dir() else home,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


def run_bytes(home: Path, args: list[bytes | str], stdin: bytes = b"",
              **env: str) -> subprocess.CompletedProcess[bytes]:
    """chatcli as a real process with raw bytes on stdin and in argv."""
    return subprocess.run([str(CHATCLI), *args], input=stdin, capture_output=True, timeout=60,
                          env=process_env(home, **env), cwd=home)


def plugin_distribution(home: Path, name: str, body: str) -> dict[str, str]:
    """A throwaway distribution under ``home/site`` whose ``chatcli.plugins`` entry point
    ``name`` is a module with ``body``; returns the variables that put it on ``sys.path``."""
    site = home / "site"
    (site / f"{name}_plugin").mkdir(parents=True, exist_ok=True)
    (site / f"{name}_plugin" / "__init__.py").write_text(body)
    info = site / f"{name}_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")
    existing = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": str(site) + (os.pathsep + existing if existing else "")}


def openai_env(server, key: str = "sk-test-key-123456") -> dict[str, str]:
    """The variables that point chatcli's OpenAI provider at ``server``."""
    return {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": server.url}
