"""``chatcli mcp list|add|remove|test|trust`` from the shell."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

from mcp_support import DEMO, HANG, TIME_SERVER, chatcli, environment


def _user_config(home: Path) -> dict:
    path = home / "config" / "config.toml"
    return tomllib.loads(path.read_text()) if path.exists() else {}


def test_add_list_test_remove(home: Path, workspace: Path) -> None:
    env = environment(home)
    assert "no MCP servers configured" in chatcli(workspace, env, "mcp", "list").stdout
    done = chatcli(workspace, env, "mcp", "add", "time", "--allow", "get_current_time", "--",
                   TIME_SERVER, "--local-timezone", "UTC")
    assert done.returncode == 0, done.stderr
    assert _user_config(home)["mcp"]["servers"]["time"] == {
        "command": TIME_SERVER, "args": ["--local-timezone", "UTC"],
        "allow": ["get_current_time"]}
    done = chatcli(workspace, env, "mcp", "add", "docs", "--url", "https://example.com/mcp",
                   "--header", "Authorization: Bearer ${DOCS_TOKEN}")
    assert done.returncode == 0, done.stderr
    assert _user_config(home)["mcp"]["servers"]["docs"]["headers"] == {
        "Authorization": "Bearer ${DOCS_TOKEN}"}
    again = chatcli(workspace, env, "mcp", "add", "time", "--", "other")
    assert again.returncode == 2 and "already in" in again.stderr and "--force" in again.stderr
    listed = chatcli(workspace, env | {"DOCS_TOKEN": "t"}, "mcp", "list").stdout
    assert "time  stdio" in listed and "docs  http       https://example.com/mcp" in listed
    tested = chatcli(workspace, env, "mcp", "test", "time")
    assert tested.returncode == 0, tested.stderr
    assert tested.stdout.startswith("time: connected in ")
    assert "2 tools" in tested.stdout and "  get_current_time — " in tested.stdout
    removed = chatcli(workspace, env, "mcp", "remove", "docs")
    assert removed.returncode == 0, removed.stderr
    assert set(_user_config(home)["mcp"]["servers"]) == {"time"}
    missing = chatcli(workspace, env, "mcp", "remove", "docs")
    assert missing.returncode == 2 and "no MCP server named docs" in missing.stderr


def test_a_variable_that_is_not_set_is_one_line(home: Path, workspace: Path) -> None:
    env = environment(home)
    chatcli(workspace, env, "mcp", "add", "docs", "--url", "https://example.com/mcp",
            "--header", "Authorization: Bearer ${DOCS_TOKEN}")
    listed = chatcli(workspace, env, "mcp", "list")
    assert listed.stderr.strip() == (
        "chatcli: warning: mcp: mcp.servers.docs.headers.Authorization: ${DOCS_TOKEN} is not "
        "set; set DOCS_TOKEN in the environment or write ${DOCS_TOKEN:-default}")


def test_test_reports_a_server_that_does_not_answer(home: Path, workspace: Path) -> None:
    env = environment(home)
    (home / "config" / "config.toml").write_text(
        f'[mcp.servers.hang]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(HANG))}]\ninit_timeout = 1\n')
    done = chatcli(workspace, env, "mcp", "test", "hang")
    assert done.returncode == 1
    assert "hang: it did not finish the MCP handshake within 1 s (init_timeout)" in done.stderr
    assert "hang.log" in done.stderr


def test_a_projects_servers_wait_for_trust(home: Path, workspace: Path) -> None:
    env = environment(home)
    done = chatcli(workspace, env, "mcp", "add", "demo", "--project", "--", sys.executable,
                   str(DEMO))
    assert done.returncode == 0, done.stderr
    data = json.loads((workspace / ".mcp.json").read_text())
    assert data == {"mcpServers": {"demo": {"command": sys.executable, "args": [str(DEMO)]}}}
    # a project with no other file that changes chatcli: the user's own server is trusted
    assert "enabled" in chatcli(workspace, env, "mcp", "list").stdout
    # someone else's edit is not
    data["mcpServers"]["demo"]["args"].append("--pages")
    data["mcpServers"]["demo"]["args"].append("2")
    (workspace / ".mcp.json").write_text(json.dumps(data))
    listed = chatcli(workspace, env, "mcp", "list").stdout
    assert "untrusted (`chatcli trust`)" in listed
    status = chatcli(workspace, env, "-p", "/mcp")
    assert "demo · not started: the project is not trusted" in status.stdout
    notices = [line for line in status.stderr.splitlines() if "trust" in line]
    assert notices == ["chatcli: this project is changed since you trusted it: ignored "
                       ".mcp.json — run `chatcli trust` to use them"], status.stderr
    trusted = chatcli(workspace, env, "mcp", "trust", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    assert (f"MCP server demo (.mcp.json) runs: stdio {sys.executable}"
            in trusted.stdout), trusted.stdout
    assert f"trusted {workspace}" in trusted.stdout
    assert "trust_project" not in _user_config(home).get("mcp", {})  # not the old setting
    assert "enabled" in chatcli(workspace, env, "mcp", "list").stdout
    removed = chatcli(workspace, env, "mcp", "trust", "--remove")
    assert f"no longer trusting {workspace}" in removed.stdout
    assert "untrusted" in chatcli(workspace, env, "mcp", "list").stdout
    assert chatcli(workspace, env, "mcp", "remove", "demo").returncode == 0
    assert json.loads((workspace / ".mcp.json").read_text()) == {"mcpServers": {}}


def test_help_does_not_import_the_sdk(home: Path, workspace: Path) -> None:
    env = environment(home) | {"PYTHONPROFILEIMPORTTIME": "1"}
    done = chatcli(workspace, env, "--help")
    assert done.returncode == 0 and "mcp " in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert imported and "mcp" not in imported and "chatcli_mcp.settings" not in imported
    assert not [m for m in imported if m.startswith(("mcp.", "httpx2", "anyio"))]
