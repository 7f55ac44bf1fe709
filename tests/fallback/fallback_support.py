"""Helpers of the fallback tests: the real ``chatcli`` as a process (or in-process through its
command line), pointed at the wire servers of ``chatcli_testing``, with a config file.

(A module of its own, not conftest.py: test modules import these names by bare name.)
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CHATCLI = Path(sys.executable).parent / "chatcli"

ANTHROPIC_KEY = "sk-ant-fallback-test-0123456789"
OPENAI_KEY = "sk-fallback-test-0123456789abcd"

#: The plugins a run loads (the chain's own and the providers the tests use).
PLUGINS = "fallback,openai,anthropic,sessions,admin,print"  # admin: `chatcli models`; print: -p


def write_config(home: Path, text: str) -> None:
    """The user's config.toml."""
    (home / "config" / "config.toml").write_text(text)


def server_env(anthropic: Any = None, openai: Any = None, **others: Any) -> dict[str, str]:
    """Variables pointing providers at servers: ``anthropic``, ``openai`` and OpenAI-compatible
    presets by name (``groq=server``)."""
    env: dict[str, str] = {}
    if anthropic is not None:
        env |= {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": anthropic.url}
    if openai is not None:
        env |= {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": openai.url}
    for name, server in others.items():
        env[f"{name.upper()}_API_KEY"] = OPENAI_KEY
        env[f"CHATCLI_PROVIDERS__{name.upper()}__BASE_URL"] = server.url
    return env


def run_chatcli(home: Path, *args: str, env: dict[str, str] | None = None,
                timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS`` as a real process in ``home``'s isolated dirs."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")
            and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")}
    full |= {"CHATCLI_CONFIG_DIR": str(home / "config"), "CHATCLI_DATA_DIR": str(home / "data"),
             "CHATCLI_CACHE_DIR": str(home / "cache"), "CHATCLI_PLUGINS": PLUGINS,
             "CHATCLI_LANG": "en"}  # another language: env={"CHATCLI_LANG": "pt_BR"}
    full |= env or {}
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=timeout,
                          env=full, cwd=home, stdin=subprocess.DEVNULL)


def run_inprocess(capsys: Any, monkeypatch: Any, *args: str, env: dict[str, str] | None = None,
                  plugins: str = "fallback,openai,anthropic,print") -> tuple[int, str, str]:
    """The same command line in this process (the real plugins, loaded from their entry
    points): for loops of many requests, without a process start each."""
    from chatcli_cli.root import run

    monkeypatch.setenv("CHATCLI_PLUGINS", plugins)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    capsys.readouterr()
    code = run(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def state(home: Path) -> dict[str, Any]:
    """The plugin's shared state file."""
    path = home / "data" / "fallback" / "state.json"
    return json.loads(path.read_text()) if path.exists() else {"entries": {}, "cursors": {}}


def wait_for_cooldown(home: Path, key: str) -> None:
    """Sleep until the entry ``key``'s cooldown is over (no longer)."""
    until = state(home)["entries"][key]["cooldown_until"]
    left = until - time.time()
    if left > 0:
        time.sleep(left + 0.05)
