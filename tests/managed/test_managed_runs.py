"""The managed policy in real ``chatcli -p`` runs (the scripted wire server as the model): modes
that are off, deny rules, allowed providers and URLs, refused plugins, the spend limit and MCP
servers — each loosening attempt one line naming the managed file, each managed value in
force."""

from __future__ import annotations

import json

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from managed_support import World, one_line_error

pytestmark = pytest.mark.slow

RUN = ("-p", "go", "--provider", "openai", "--model", "gpt-test")


def _tools(server: OpenAIServer) -> set[str]:
    body = server.requests[0].json
    return {tool["function"]["name"] for tool in body.get("tools", [])}


def _results(server: OpenAIServer) -> str:
    """The tool results the model got back, as text."""
    return "\n".join(json.dumps(m) for r in server.requests for m in r.json["messages"]
                     if m.get("role") == "tool")


# ------------------------------------------------------------------ modes that are off

@pytest.mark.parametrize("how", ["flag", "user file", "variable", "slash command"])
def test_a_mode_that_is_off_cannot_be_chosen(world: World, server: OpenAIServer,
                                             how: str) -> None:
    world.write_managed('[permissions]\ndisabled_modes = ["auto"]\n')
    args, extra = list(RUN), {}
    if how == "flag":
        args += ["--permission-mode", "auto"]
    elif how == "user file":
        world.write_user('[permissions]\nmode = "auto"\n')
    elif how == "variable":
        extra["CHATCLI_PERMISSIONS__MODE"] = "auto"
    else:
        args[1] = "/permissions auto"
    error = one_line_error(world.chatcli(*args, url=server.url, **extra), world)
    assert "'auto' is turned off" in error
    assert server.requests == []  # nothing reached the model


def test_the_user_file_cannot_erase_the_disabled_modes(world: World, server: OpenAIServer
                                                       ) -> None:
    world.write_managed('[permissions]\ndisabled_modes = ["auto"]\n')
    world.write_user('[permissions]\ndisabled_modes = []\nmode = "auto"\n')
    one_line_error(world.chatcli(*RUN, url=server.url), world)


def test_other_modes_still_work(world: World, server: OpenAIServer) -> None:
    world.write_managed('[permissions]\ndisabled_modes = ["auto"]\n')
    server.script(Reply(text="fine"))
    done = world.chatcli(*RUN, "--permission-mode", "plan", url=server.url)
    assert done.returncode == 0, done.stderr
    assert "fine" in done.stdout


# ------------------------------------------------------------------ deny rules

def test_a_managed_deny_rule_denies_whatever_the_user_allows(world: World,
                                                             server: OpenAIServer) -> None:
    world.write_managed('[permissions]\ndeny = ["exec(curl:*)"]\n')
    world.write_user('[permissions]\ndeny = []\nallow = ["exec(echo:*)"]\n')
    server.script(Reply(tool_calls=[ToolCall("exec", {"command": "curl http://127.0.0.1:9/"})]),
                  Reply(text="done"))
    done = world.chatcli(*RUN, "--allow", "execute", url=server.url)
    assert done.returncode == 0, done.stderr
    assert "denied" in _results(server).lower()


@pytest.mark.parametrize("where", ["flag", "user file"])
def test_an_allow_rule_that_is_a_managed_deny_rule_is_refused(world: World,
                                                              server: OpenAIServer,
                                                              where: str) -> None:
    world.write_managed('[permissions]\ndeny = ["exec(curl:*)"]\n')
    args = list(RUN)
    if where == "flag":
        args += ["--allow", "exec(curl:*)"]
    else:
        world.write_user('[permissions]\nallow = ["exec(curl:*)"]\n')
    error = one_line_error(world.chatcli(*args, url=server.url), world)
    assert "exec(curl:*)" in error
    assert server.requests == []


# ------------------------------------------------------------------ providers and URLs

def test_a_provider_the_policy_does_not_allow_is_refused(world: World,
                                                         server: OpenAIServer) -> None:
    world.write_managed('[policy]\nproviders = ["openai"]\nbase_urls = ["http://127.0.0.1:*"]\n')
    error = one_line_error(world.chatcli("-p", "go", "--provider", "anthropic",
                                         url=server.url), world)
    assert "provider 'anthropic'" in error
    server.script(Reply(text="allowed"))
    done = world.chatcli(*RUN, url=server.url)
    assert done.returncode == 0 and "allowed" in done.stdout, done.stderr


@pytest.mark.parametrize("where", ["base_url variable", "user file"])
def test_a_url_the_policy_does_not_allow_is_refused(world: World, server: OpenAIServer,
                                                    where: str) -> None:
    world.write_managed('[policy]\nbase_urls = ["https://llm.example.com/*"]\n')
    if where == "user file":
        world.write_user(f'[providers.openai]\nbase_url = "{server.url}"\n')
    error = one_line_error(world.chatcli(*RUN, url=server.url), world)
    assert server.url in error
    assert server.requests == []


def test_a_url_password_is_not_in_the_error(world: World, server: OpenAIServer) -> None:
    world.write_managed('[policy]\nbase_urls = ["https://llm.example.com/*"]\n')
    url = server.url.replace("http://", "http://me:hunter2secret@")
    error = one_line_error(world.chatcli(*RUN, url=url), world)
    assert "hunter2secret" not in error


# ------------------------------------------------------------------ plugins

def test_a_refused_plugin_is_never_loaded(world: World, server: OpenAIServer) -> None:
    world.write_managed('[policy]\nrefused_plugins = ["coder"]\n')
    server.script(Reply(text="no tools"))
    done = world.chatcli(*RUN, url=server.url, plugins=None)  # every installed plugin
    assert done.returncode == 0, done.stderr
    assert not {"exec", "read", "edit"} & _tools(server)
    listed = world.chatcli("plugins", "list", plugins=None).stdout
    line = next(line for line in listed.splitlines() if line.startswith("coder "))
    assert f"refused by the managed policy {world.managed}" in line


def test_chatcli_plugins_cannot_load_a_refused_plugin(world: World) -> None:
    world.write_managed('[policy]\nrefused_plugins = ["coder"]\n')
    error = one_line_error(world.chatcli("config", "list"), world)  # PLUGINS names coder
    assert "CHATCLI_PLUGINS (coder)" in error


def test_an_allow_list_loads_only_its_plugins(world: World, server: OpenAIServer) -> None:
    world.write_managed('[policy]\nplugins = ["openai", "print", "permissions"]\n')
    server.script(Reply(text="few"))
    done = world.chatcli(*RUN, url=server.url, plugins=None)
    assert done.returncode == 0, done.stderr
    assert not _tools(server)  # no coder, no MCP
    error = one_line_error(world.chatcli(*RUN, url=server.url, plugins="openai,print,coder"),
                           world)
    assert "CHATCLI_PLUGINS (coder)" in error


# ------------------------------------------------------------------ the spend limit

def test_the_spend_limit_stops_the_session(world: World, server: OpenAIServer) -> None:
    world.write_managed('[cost]\nlimit = 0.01\n[models."openai/gpt-test"]\ninput = 1000.0\n'
                        "output = 1000.0\n")
    world.write_user("[cost]\nlimit = 0.5\n")  # higher: refused
    one_line_error(world.chatcli(*RUN, url=server.url), world)
    world.write_user("")
    server.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})],
                        usage={"input_tokens": 100, "output_tokens": 10}),
                  Reply(text="never asked"))
    error = one_line_error(world.chatcli(*RUN, url=server.url), world)
    assert "limit of $0.0100" in error
    assert len(server.requests) == 1  # the second call was refused


# ------------------------------------------------------------------ MCP servers

def test_an_mcp_server_not_allowed_never_starts(world: World) -> None:
    marker = world.base / "started"
    world.write_managed('[mcp]\nallowed_servers = ["time"]\n')
    world.write_user(f'[mcp.servers.evil]\ncommand = "touch"\nargs = ["{marker}"]\n')
    done = world.chatcli("mcp", "list")
    assert done.returncode == 0, done.stderr
    assert "MCP server 'evil'" in done.stdout + done.stderr
    assert str(world.managed) in done.stdout + done.stderr
    done = world.chatcli("mcp", "test", "evil")
    assert not marker.exists()
    error = one_line_error(world.chatcli("mcp", "add", "other", "--", "touch", str(marker)),
                           world)
    assert "'other'" in error
    assert "other" not in world.user_config.read_text()


@pytest.mark.parametrize("how", ["flag", "user file", "variable", "slash command"])
def test_a_managed_mode_is_the_only_one(world: World, server: OpenAIServer, how: str) -> None:
    world.write_managed('[permissions]\nmode = "plan"\n')
    args, extra = list(RUN), {}
    if how == "flag":
        args += ["--permission-mode", "auto"]
    elif how == "user file":
        world.write_user('[permissions]\nmode = "default"\n')
    elif how == "variable":
        extra["CHATCLI_PERMISSIONS__MODE"] = "accept-edits"
    else:
        args[1] = "/permissions default"
    error = one_line_error(world.chatcli(*args, url=server.url, **extra), world)
    assert "permissions.mode" in error
    world.write_user("")
    server.script(Reply(text="planned"))
    done = world.chatcli(*RUN, "--permission-mode", "plan", url=server.url)
    assert done.returncode == 0 and "planned" in done.stdout, done.stderr
