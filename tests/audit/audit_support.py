"""Helpers of the audit tests: real ``chatcli`` processes pointed at a wire server, and the
records they leave."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

CHATCLI = Path(sys.executable).parent / "chatcli"

#: The plugins of a scripted agent run (the audit and the cost plugin included).
PLUGINS = "openai,sessions,checkpoints,coder,agent,permissions,audit,cost,print"

#: A key-shaped canary: the run's API key, also typed by the model into a command.
CANARY = "sk-auditcanary0123456789abcdefABCDEF"


def environment(home: Path, server_url: str, plugins: str = PLUGINS,
                **extra: str) -> dict[str, str]:
    """The environment of a run whose chatcli home is ``home`` and whose model is the wire
    server at ``server_url`` (the canary is its key)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    for folder in ("config", "data", "cache"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"), CHATCLI_PLUGINS=plugins,
               OPENAI_API_KEY=CANARY, OPENAI_BASE_URL=server_url, **extra)
    return env


def chatcli(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``chatcli ARGS`` in ``cwd``."""
    return subprocess.run([str(CHATCLI), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


def log_file(home: Path) -> Path:
    """The default log of the chatcli home ``home``."""
    return home / "data" / "audit" / "audit.jsonl"


def records(file: Path) -> list[dict[str, Any]]:
    """Every record of ``file``, in order (each line must be one JSON object)."""
    found = []
    for line in file.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        assert isinstance(record, dict), line
        found.append(record)
    return found


def git_repo(root: Path) -> Path:
    """``root`` made a git repository holding ``notes.txt``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("hello\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root
