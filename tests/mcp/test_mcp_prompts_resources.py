"""MCP prompts as slash commands and resources attached with ``@server:uri``, through the real
command line; and ``/mcp``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from chatcli_testing import OpenAIServer, Reply
from mcp_support import (
    HANG,
    chatcli,
    demo,
    environment,
    last_user_text,
    servers_toml,
    write_config,
)


def _config(home: Path, model: OpenAIServer, **servers: dict) -> None:
    write_config(home, f'provider = "openai"\nmodel = "m"\n[providers.openai]\n'
                       f'base_url = "{model.url}"\n' + servers_toml(servers))


def test_a_prompt_is_a_slash_command(home: Path, workspace: Path) -> None:
    with OpenAIServer() as model:
        _config(home, model, demo=demo())
        model.script(Reply(text="Reviewed."))
        done = chatcli(workspace, environment(home), "-p", "/mcp__demo__review the parser")
        assert done.returncode == 0, done.stderr
        assert "Reviewed." in done.stdout
        assert last_user_text(model.requests[0]) == "Please review the parser carefully."
        log = (home / "cache" / "mcp" / "logs" / "demo.log").read_text()
        assert log.count("--- chatcli starts") == 1  # the turn that followed used the same one
        # a missing argument is one line with the usage
        done = chatcli(workspace, environment(home), "-p", "/mcp__demo__review")
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [
            "chatcli: error: /mcp__demo__review: missing topic — use /mcp__demo__review topic=…"]


def test_the_chat_lists_prompt_commands_from_the_catalog_while_a_server_starts(
        home: Path, workspace: Path) -> None:
    """The chat waits prompt_wait seconds for the servers; one that is not up by then brings
    the commands it offered last time (the catalog is written whenever a server lists them)."""
    from chatcli import Settings
    from chatcli_mcp.plugin import McpPlugin

    with OpenAIServer() as model:
        _config(home, model, demo=demo())
        model.script(Reply(text="a"))
        assert chatcli(workspace, environment(home), "-p", "/mcp__demo__review x").returncode \
            == 0
        assert last_user_text(model.requests[0]) == "Please review x carefully."
    catalog = home / "cache" / "mcp" / "prompts.json"
    assert '"review"' in catalog.read_text()
    plugin = McpPlugin()
    slow = {"command": sys.executable, "args": [str(HANG)], "init_timeout": 1}
    settings = Settings(mcp={"prompt_wait": 0.001, "max_restarts": 0,
                             "servers": {"demo": slow}})
    plugin.configure(None, settings, workspace)  # a chat's session opened
    try:
        found: list = []
        plugin.register_slash_commands(found.append)
        assert [c.name for c in found] == ["mcp"]  # no catalog entry for this command line
        entries = json.loads(catalog.read_text())
        entries[f"demo {sys.executable} {HANG}"] = entries.popitem()[1]
        catalog.write_text(json.dumps(entries))
        found.clear()
        plugin.register_slash_commands(found.append)
        review = next(c for c in found if c.name == "mcp__demo__review")
        assert review.help == "MCP prompt of demo: Ask for a review of a topic. — topic=…"
    finally:
        plugin.manager.shutdown()


def test_a_resource_is_attached_to_the_message(home: Path, workspace: Path) -> None:
    with OpenAIServer() as model:
        _config(home, model, demo=demo())
        model.script(Reply(text="Milk."), Reply(text="Nothing."))
        done = chatcli(workspace, environment(home), "-p", "what is in @demo:notes://today?")
        assert done.returncode == 0, done.stderr
        sent = last_user_text(model.requests[0])
        assert sent.startswith("what is in @demo:notes://today?")
        assert '<resource server="demo" uri="notes://today">\nBuy milk. Call Ada.\n</resource>' \
            in sent
        done = chatcli(workspace, environment(home), "-p", "read @demo:notes://nowhere")
        assert done.returncode == 0, done.stderr
        assert "@demo:notes://nowhere was not attached" in done.stderr
        assert "[not attached:" in last_user_text(model.requests[1])


def test_an_unknown_server_word_is_left_alone(home: Path, workspace: Path) -> None:
    with OpenAIServer() as model:
        _config(home, model, demo=demo())
        model.script(Reply(text="ok"))
        done = chatcli(workspace, environment(home), "-p", "mail @bob:example please")
        assert done.returncode == 0, done.stderr
        assert last_user_text(model.requests[0]) == "mail @bob:example please"


def test_slash_mcp_shows_each_server(home: Path, workspace: Path) -> None:
    with OpenAIServer() as model:
        _config(home, model, demo=demo(), broken={"command": "/nonexistent/server"})
        done = chatcli(workspace, environment(home), "-p", "/mcp")
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert "demo · running (handshake" in out
        assert "7 tools, 1 prompts, 1 resources" in out
        assert "broken ·" in out and "last error: cannot run it: No such file or directory: " \
            "/nonexistent/server" in out
        tools = chatcli(workspace, environment(home), "-p", "/mcp tools demo").stdout
        assert "mcp__demo__add: Add two whole numbers." in tools
        resources = chatcli(workspace, environment(home), "-p", "/mcp resources").stdout
        assert "@demo:notes://today" in resources
        prompts = chatcli(workspace, environment(home), "-p", "/mcp prompts").stdout
        assert "/mcp__demo__review topic=…" in prompts
