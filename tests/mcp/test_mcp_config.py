"""Where MCP servers come from: ``[mcp.servers.NAME]``, a project's ``.mcp.json``, imported
``mcpServers`` files, ``${VAR}`` expansion, trust, and one line naming the key for a bad one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chatcli import PluginHost, Settings
from chatcli_mcp.settings import BadConfig, expand, load, options, parse_server, server_name
from chatcli_workspace import trust_project
from mcp_support import write_config


def _settings(**mcp: object) -> Settings:
    return Settings(mcp=mcp)


def test_a_stdio_server_with_everything() -> None:
    server = parse_server("time", {
        "command": "mcp-server-time", "args": ["--local-timezone", "${TZ_NAME:-UTC}"],
        "env": {"TOKEN": "${TOKEN}", "DEBUG": 1}, "cwd": "/tmp", "init_timeout": 5,
        "call_timeout": "7", "enabled": True, "allow": ["get_*"], "deny": "convert_time"},
        environ={"TOKEN": "s3cret"})
    assert server.transport == "stdio"
    assert server.args == ("--local-timezone", "UTC")
    assert dict(server.env) == {"TOKEN": "s3cret", "DEBUG": "1"}
    assert (server.cwd, server.init_timeout, server.call_timeout) == ("/tmp", 5.0, 7.0)
    assert server.allows("get_current_time") and not server.allows("convert_time")
    assert server.denies("convert_time")


def test_http_and_sse_servers() -> None:
    http = parse_server("docs", {"url": "https://example.com/mcp",
                                 "headers": {"Authorization": "Bearer ${KEY}"}},
                        environ={"KEY": "k"})
    assert http.transport == "http" and dict(http.headers) == {"Authorization": "Bearer k"}
    sse = parse_server("old", {"type": "sse", "url": "http://127.0.0.1:9/sse"})
    assert sse.transport == "sse"
    assert parse_server("x", {"type": "streamable-http", "url": "http://h/mcp"}).transport == \
        "http"


def test_expansion() -> None:
    env = {"A": "1", "EMPTY": ""}
    assert expand("${A}-${B:-two}-${EMPTY:-dflt}-${EMPTY}", "k", env) == "1-two-dflt-"
    with pytest.raises(BadConfig) as caught:
        expand("Bearer ${MISSING_TOKEN}", "mcp.servers.docs.headers.Authorization", env)
    assert caught.value.line == (
        "mcp.servers.docs.headers.Authorization: ${MISSING_TOKEN} is not set; set "
        "MISSING_TOKEN in the environment or write ${MISSING_TOKEN:-default}")


@pytest.mark.parametrize("table, line", [
    ({}, "mcp.servers.s.command: is missing; write mcp.servers.s.command = \"the server's "
         "program\" (or url = \"…\")"),
    ({"command": "x", "argz": []}, "mcp.servers.s.argz: is not a server setting; did you mean "
                                   "'args'?"),
    ({"command": "x", "args": "a b", "init_timeout": -1},
     "mcp.servers.s.init_timeout: must be a number of seconds above 0, not -1; write "
     "mcp.servers.s.init_timeout = 30"),
    ({"url": "ftp://x"}, "mcp.servers.s.url: 'ftp://x' is not an http(s) URL; write the "
                         "server's address, e.g. http://127.0.0.1:8000/mcp"),
    ({"command": "x", "transport": "pigeon"},
     "mcp.servers.s.transport: unknown transport 'pigeon'; use stdio (command), http (url: "
     "streamable HTTP) or sse (url)"),
    ({"command": ["x"]}, "mcp.servers.s.command: must be text, not list ['x']; write "
                         "mcp.servers.s.command = \"…\""),
])
def test_a_bad_entry_is_one_line_naming_the_key_and_the_fix(table: dict, line: str) -> None:
    with pytest.raises(BadConfig) as caught:
        parse_server("s", table)
    assert caught.value.line == line


def test_names() -> None:
    with pytest.raises(BadConfig, match="without '__'"):
        parse_server("a__b", {"command": "x"})
    assert server_name("my.server") == "my-server"
    assert server_name("a__b") == "a_b"


def test_options() -> None:
    found = options({"tool_mode": "full", "max_tool_share": "0.2", "serve": {
        "allow_writes": True, "tools": ["read"]}})
    assert (found.tool_mode, found.max_tool_share, found.serve_allow_writes,
            found.serve_tools) == ("full", 0.2, True, ("read",))
    with pytest.raises(BadConfig, match=r"mcp\.tool_mod: is not an"):
        options({"tool_mod": "full"})


def _host() -> PluginHost:
    """A plugin host with chatcli-mcp: workspace trust counts its ``.mcp.json``."""
    from chatcli_mcp import plugin

    host = PluginHost()
    assert host.register(plugin, "mcp")
    return host


def test_project_servers_wait_for_trust(workspace: Path, home: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host()
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-fs", "${DOCS_DIR}"],
               "env": {"X": "${HOME}"}, "allow": ["*"]},
        "remote": {"type": "http", "url": "https://example.com/mcp",
                   "headers": {"A": "b"}, "somethingElse": 1}}}))
    write_config(home, '[mcp.servers.time]\ncommand = "mcp-server-time"\n')
    loaded = load(_settings(servers={"time": {"command": "mcp-server-time"}}), workspace,
                  host=host)
    assert list(loaded.servers) == ["time"]
    assert [s.name for s in loaded.untrusted] == ["fs", "remote"]
    # shown as written: nothing of the environment goes into an untrusted file's servers
    assert loaded.untrusted[0].args == ("-y", "server-fs", "${DOCS_DIR}")
    assert not loaded.problems
    # the project cannot trust itself; the settings that trusted folders before trust nothing
    (workspace / ".chatcli").mkdir()
    (workspace / ".chatcli" / "config.toml").write_text("[mcp]\ntrust_project = true\n")
    write_config(home, f"[mcp]\ntrust_project = [{json.dumps(str(workspace))}]\n")
    monkeypatch.setenv("CHATCLI_MCP__TRUST_PROJECT", "true")
    assert [s.name for s in load(_settings(trust_project=True), workspace,
                                 host=host).untrusted] == ["fs", "remote"]
    # the user trusts it (chatcli trust)
    trust_project(workspace, host)
    monkeypatch.setenv("DOCS_DIR", "/srv/docs")
    trusted = load(_settings(), workspace, host=host)
    assert set(trusted.servers) == {"fs", "remote"} and not trusted.untrusted
    fs = trusted.servers["fs"]
    assert fs.args[-1] == "/srv/docs"
    assert fs.project and fs.origin == str(workspace / ".mcp.json")
    assert dict(fs.env) == {"X": str(home)}
    assert fs.allow == ()  # a project never allows its own tools
    # a change asks again
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"fs": {"command": "sh"}}}))
    assert [s.name for s in load(_settings(), workspace, host=host).untrusted] == ["fs"]


#: Ways a trusted project's server could carry one of the user's keys to a program or an
#: address of the project's choosing — each refused; the user's own table may.
SECRET_EXPANSIONS = [
    ("arg", {"command": "x", "args": ["${OPENAI_API_KEY}"]}),
    ("env", {"command": "x", "env": {"K": "${ANTHROPIC_API_KEY}"}}),
    ("header", {"type": "http", "url": "https://example.com/mcp",
                "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}),
    ("url", {"type": "http", "url": "https://example.com/${DB_PASSWORD}"}),
    ("value looks like a key", {"command": "x", "args": ["${INNOCENT}"]}),
    ("default after a secret", {"command": "x", "args": ["${AWS_SECRET_ACCESS_KEY:-none}"]}),
]


@pytest.mark.parametrize(("name", "entry"), SECRET_EXPANSIONS,
                         ids=[case[0] for case in SECRET_EXPANSIONS])
def test_a_trusted_projects_server_cannot_expand_a_secret(
        workspace: Path, monkeypatch: pytest.MonkeyPatch, name: str, entry: dict) -> None:
    secrets = {"OPENAI_API_KEY": "sk-proj-" + "a" * 40, "ANTHROPIC_API_KEY": "sk-ant-x",
               "GITHUB_TOKEN": "ghp_" + "b" * 36, "DB_PASSWORD": "hunter2",
               "INNOCENT": "sk-" + "c" * 48, "AWS_SECRET_ACCESS_KEY": "aws-secret"}
    for variable, value in secrets.items():
        monkeypatch.setenv(variable, value)
    host = _host()
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"leak": entry}}))
    trust_project(workspace, host)
    loaded = load(_settings(), workspace, host=host)
    assert "leak" not in loaded.servers
    assert len(loaded.problems) == 1 and "holds a secret" in loaded.problems[0]
    assert "chatcli mcp add" in loaded.problems[0]
    assert not any(value in " ".join(loaded.problems) for value in secrets.values())
    # the same table in the user's own config expands the variable
    (workspace / ".mcp.json").unlink()
    mine = load(_settings(servers={"leak": entry}), workspace, host=host)
    assert "leak" in mine.servers and not mine.problems


def test_without_the_plugin_host_a_project_file_is_never_trusted(workspace: Path) -> None:
    """Trust recorded by a host without chatcli-mcp did not cover .mcp.json: not trusted."""
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"fs": {"command": "x"}}}))
    (workspace / ".chatcli").mkdir()
    (workspace / ".chatcli" / "config.toml").write_text("max_turns = 5\n")
    bare = PluginHost()
    trust_project(workspace, bare)
    assert [s.name for s in load(_settings(), workspace, host=bare).untrusted] == ["fs"]


def test_only_the_project_roots_mcp_json_is_the_projects(workspace: Path) -> None:
    host = _host()
    (workspace.parent / ".mcp.json").write_text(json.dumps({"mcpServers": {"up": {
        "command": "x"}}}))
    sub = workspace / "sub"
    sub.mkdir()
    loaded = load(_settings(), sub, host=host)
    assert not loaded.servers and not loaded.untrusted


def test_a_projects_toml_servers_are_the_projects(workspace: Path) -> None:
    host = _host()
    (workspace / ".chatcli").mkdir()
    (workspace / ".chatcli" / "config.toml").write_text(
        '[mcp.servers.tool]\ncommand = "x"\n')
    # untrusted, the kernel leaves the project's tables out of the settings: listed, waiting
    loaded = load(_settings(servers={"mine": {"command": "y"}}), workspace, host=host)
    assert list(loaded.servers) == ["mine"]
    assert [s.name for s in loaded.untrusted] == ["tool"]
    trust_project(workspace, host)
    loaded = load(_settings(servers={"tool": {"command": "x"}, "mine": {"command": "y"}}),
                  workspace, host=host)
    assert list(loaded.servers) == ["tool", "mine"] and loaded.servers["tool"].project


def test_imported_files_and_bad_entries(workspace: Path, tmp_path: Path) -> None:
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(json.dumps({"mcpServers": {"git": {"command": "uvx",
                                                          "args": ["mcp-server-git"]},
                                                  "broken": {"args": []}}}))
    loaded = load(_settings(**{"import": [str(desktop), str(tmp_path / "nope.json")],
                               "servers": {"bad": {"command": 3}}}), workspace)
    assert list(loaded.servers) == ["git"]
    assert loaded.servers["git"].origin == str(desktop)
    assert loaded.problems == [
        "mcp.servers.bad.command: must be text, not int 3; write mcp.servers.bad.command = "
        "\"…\"",
        f"{desktop}: mcpServers.broken.command: is missing; write {desktop}: "
        "mcpServers.broken.command = \"the server's program\" (or url = \"…\")",
        f"{tmp_path / 'nope.json'}: does not exist; fix the path in [mcp] import, or remove it"]
