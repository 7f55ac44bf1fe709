"""chatcli as a real process, for the tests of any folder: where its script is, the environment of
a run in a test's home, runs with text or raw bytes, and throwaway plugin distributions.

(A module of the suite's root, imported by its bare name — ``tests/`` is on ``sys.path``
through ``pythonpath`` in pyproject.toml; tests/cli's ``cli_support`` re-exports these names.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "CHATCLI",
    "PYTHON",
    "VENV_BIN",
    "openai_env",
    "plugin_distribution",
    "process_env",
    "run_bytes",
    "run_process",
]

#: The environment running the tests (any venv, wherever it is): its chatcli and python.
VENV_BIN = Path(sys.executable).parent
CHATCLI = VENV_BIN / "chatcli"
PYTHON = VENV_BIN / "python"

_KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST",
             "XAI_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY")


def process_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a chatcli subprocess: the test's isolated dirs, no keys."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and k not in _KEY_VARS
           and not k.endswith("_API_KEY")}
    env["CHATCLI_CONFIG_DIR"] = str(home / "config")
    env["CHATCLI_DATA_DIR"] = str(home / "data")
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env["CHATCLI_LANG"] = "en"  # another language: CHATCLI_LANG="pt_BR" (or "" and LANG=…)
    env.update(extra)
    return env


def run_process(args: list[Any], home: Path, *, input: str | None = "", timeout: float = 60,
                **env: str) -> subprocess.CompletedProcess[str]:
    """Run a command (``[CHATCLI, ...]`` or the scripted app) as a real process, in
    ``home/work`` when that folder exists."""
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


def openai_env(server: Any, key: str = "sk-test-key-123456") -> dict[str, str]:
    """The variables that point chatcli's OpenAI provider at ``server``."""
    return {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": server.url}
