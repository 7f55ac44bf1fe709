"""What a plain ``chatcli -p`` run (no hook, no permission rule, no MCP server, no tool call)
never imports: the modules that read hooks, parse rules, read MCP servers, run tools, record
checkpoints or list sessions are imported when something needs them, not at every start (each
costs start-up time: a dataclass made, a regex compiled, a TOML reader loaded). The run still
answers and stores its session; once the user configures a hook and a rule, their modules load.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

#: module -> why a plain ``-p`` run has no use for it
NOT_IMPORTED = {
    "chatcli_agent.user_hooks.settings": "no hook configured: no hook file to read",
    "chatcli_agent.user_hooks.events": "no hook configured: nothing runs hooks",
    "chatcli_agent.permissions.rules": "no permission rule to parse",
    "chatcli_agent.permissions.policy": "no tool call to judge",
    "chatcli_mcp.settings": "no MCP server configured",
    "chatcli_mcp.manager": "no MCP server to start",
    "chatcli_coder._common": "no tool called: what the tools share",
    "chatcli_coder._run": "no command run",
    "chatcli_coder._shell": "no command run (the test tool's command is detected apart)",
    "chatcli_coder._walk": "no file walked",
    "chatcli_checkpoints._store": "nothing recorded for a checkpoint",
    "chatcli_checkpoints._limits": "no [checkpoints] setting, nothing recorded",
    "chatcli_sessions.info": "no session listed or searched",
    "chatcli_sessions.migrate": "no migration",
    "chatcli_sessions_api.protocol": "no store checked against the protocol",
    "chatcli_sessions_api.records": "no session listed or searched",
    "tomllib": "no TOML file to read (no config file, no project file)",
    "tree_sitter": "no source file for the repository map to parse (an empty folder)",
    "chatcli_repomap.rank": "no source file: nothing for the repository map to rank",
}


def _run(tmp_path: Path, server: OpenAIServer) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if key not in ("CHATCLI_PLUGINS", "CHATCLI_DISABLE_PLUGINS", "CHATCLI_EAGER_PLUGINS")}
    env.update(HOME=str(tmp_path / "home"), CHATCLI_CONFIG_DIR=str(tmp_path / "config"),
               CHATCLI_DATA_DIR=str(tmp_path / "data"), CHATCLI_CACHE_DIR=str(tmp_path / "cache"),
               OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test-0123456789abcdef",
               CHATCLI_PROVIDER="openai", CHATCLI_MODEL="gpt-test")
    done = subprocess.run([sys.executable, "-X", "importtime", CHATCLI, "-p", "Say ok."],
                          env=env, cwd=workspace, capture_output=True, text=True, timeout=120)
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:") and line.count("|") == 2}
    return done, imported


@pytest.fixture(scope="module")
def server():
    with OpenAIServer() as running:
        yield running


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory, server: OpenAIServer
          ) -> tuple[Path, subprocess.CompletedProcess[str], set[str]]:
    """One plain run (in a folder of its own), shared by the tests below."""
    folder = tmp_path_factory.mktemp("plain")
    return (folder, *_run(folder, server))


@pytest.mark.parametrize(("module", "why"), sorted(NOT_IMPORTED.items()))
def test_a_plain_run_does_not_import(module: str, why: str, plain) -> None:
    _, done, imported = plain
    assert done.returncode == 0, done.stderr[-2000:]
    assert "chatcli_print.oneshot" in imported  # (the import list was read)
    assert module not in imported, why


def test_a_plain_run_still_answers_and_stores_its_session(plain) -> None:
    folder, done, _ = plain
    assert done.returncode == 0 and done.stdout.strip(), done.stderr[-2000:]
    with sqlite3.connect(folder / "data" / "sessions.db") as db:
        roles = [row[0] for row in db.execute("SELECT role FROM messages ORDER BY seq")]
    assert roles == ["user", "assistant"]


def test_a_configured_hook_and_rule_load_their_modules(tmp_path: Path,
                                                       server: OpenAIServer) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(
        '[permissions]\nallow = ["exec(make:*)"]\n\n'
        '[[hooks.SessionStart]]\ncommand = "true"\n')
    done, imported = _run(tmp_path, server)
    assert done.returncode == 0, done.stderr[-2000:]
    for module in ("chatcli_agent.user_hooks.settings", "chatcli_agent.user_hooks.events",
                   "chatcli_agent.permissions.rules", "tomllib"):
        assert module in imported, module
