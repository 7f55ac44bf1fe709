"""MCP tool characters in the prompt: a 40-tool server (written with the SDK, over stdio) in chat
mode — the tools listed by name in a stable section, their definitions fetched with
``context_pull`` when needed — against sending every definition in full, as agent runs do
under ``max_tool_share`` (and as ``[mcp] tool_mode = "full"`` does everywhere).

One model call is made per case through the real engine with chatcli-context and chatcli-mcp,
the model played by the OpenAI wire server; the request it receives is measured:

- **MCP characters**: the MCP section of the system prompt plus the MCP tool definitions (name,
  description, JSON schema) as sent;
- **prompt characters**: the whole system prompt plus every tool definition.

A third case is an agent run over a small context window (16,000 tokens, so 40 definitions are
more than ``max_tool_share`` = 10 % of it): only ``mcp_search`` is sent. The cost of reading
one tool back (``context_pull {"kind":"mcp_tools","name":…}``) is printed too. The goal is
deferred ≤ 20 % of full.

Run: .venv/bin/python bench/mcp.py        (``--serve`` runs the 40-tool server itself)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# This file is named like the SDK's package: run as a script, its folder is sys.path[0], where
# `import mcp` would find this file instead of the SDK.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != _HERE]

GOAL = 0.20
TOOLS = 40
TOPICS = ("issue", "pull_request", "branch", "release", "comment", "label", "milestone",
          "workflow_run", "deployment", "secret")
VERBS = ("list", "get", "create", "update")


def serve() -> None:
    """The 40-tool server: the shape of a code-hosting service's MCP server."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    tools = []
    for index in range(TOOLS):
        topic, verb = TOPICS[index // len(VERBS)], VERBS[index % len(VERBS)]
        words = topic.replace("_", " ")
        properties: dict[str, Any] = {
            "owner": {"type": "string", "description": "The account that owns the repository"},
            "repo": {"type": "string", "description": "The repository's name"},
        }
        if verb in ("get", "update"):
            properties["number"] = {"type": "integer", "description": f"The {words}'s number"}
        if verb == "list":
            properties.update({
                "state": {"type": "string", "enum": ["open", "closed", "all"],
                          "description": f"Which {words}s to list", "default": "open"},
                "per_page": {"type": "integer", "minimum": 1, "maximum": 100,
                             "description": "Results per page", "default": 30},
                "page": {"type": "integer", "minimum": 1, "description": "The page number"}})
        if verb in ("create", "update"):
            properties.update({
                "title": {"type": "string", "description": f"The {words}'s title"},
                "body": {"type": "string", "description": f"The {words}'s text (markdown)"}})
        tools.append(types.Tool(
            name=f"{verb}_{topic}{'s' if verb == 'list' else ''}",
            description=(f"{verb.capitalize()} {'the ' if verb == 'list' else 'a '}{words}"
                         f"{'s' if verb == 'list' else ''} of a repository. Returns the "
                         f"{words} as JSON: its number, title, state, author, labels and "
                         "timestamps. Requires read access (write access to change it)."),
            input_schema={"type": "object", "properties": properties,
                          "required": ["owner", "repo"] + (["number"] if verb in
                                                           ("get", "update") else [])}))

    async def list_tools(_context: Any, _params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_context: Any, params: Any) -> Any:
        return types.CallToolResult(content=[types.TextContent(text=f"{params.name}: []")])

    server = Server("forty", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def _request_chars(body: dict[str, Any]) -> tuple[int, int]:
    """(MCP characters, prompt characters) of an OpenAI request body."""
    system = "\n\n".join(m["content"] for m in body["messages"]
                         if m["role"] in ("system", "developer") and isinstance(m["content"],
                                                                                  str))
    tools = body.get("tools") or []
    mcp_tools = [t for t in tools if t["function"]["name"].startswith("mcp")]
    section = ""
    start = system.find("MCP tools:")
    if start >= 0:
        end = system.find("\n\n", start)
        section = system[start:] if end < 0 else system[start:end]
    mcp = len(section) + len(json.dumps(mcp_tools, ensure_ascii=False))
    return mcp, len(system) + len(json.dumps(tools, ensure_ascii=False))


def _run(case: str, workspace: Path) -> dict[str, Any]:
    import chatcli_provider_openai.plugin as openai_plugin
    from chatcli import (
        Message,
        PluginHost,
        PromptSection,
        ProviderSettings,
        Session,
        SessionOptions,
        Settings,
        ToolFinished,
        hookimpl,
    )
    from chatcli_context.plugin import ContextPlugin
    from chatcli_mcp.plugin import McpPlugin
    from chatcli_testing import OpenAIServer, Reply, ToolCall

    class AgentRun:
        @hookimpl
        def prompt_sections(self) -> list[PromptSection]:
            return [PromptSection(name="agent-mode", text="Work on the task alone.")]

    mcp: dict[str, Any] = {"servers": {"forty": {
        "command": sys.executable, "args": [str(Path(__file__).resolve()), "--serve"]}}}
    extra: dict[str, Any] = {}
    if case == "full":
        mcp["tool_mode"] = "full"
    if case == "search":
        extra["context_window"] = 16_000
    with OpenAIServer() as model:
        host = PluginHost(warn=lambda line: None)
        host.register(openai_plugin, "openai")
        host.register(ContextPlugin(), "context")
        plugin = McpPlugin()
        host.register(plugin, "mcp")
        if case == "search":
            host.register(AgentRun(), "agent")
        settings = Settings(provider="openai", model="m", mcp=mcp,
                            providers={"openai": ProviderSettings(base_url=model.url)}, **extra)
        session = Session(host, settings, SessionOptions(), workspace=workspace).open()
        started = time.perf_counter()
        try:
            if case == "deferred":
                model.script(Reply(tool_calls=[ToolCall("context_pull", {
                    "kind": "mcp_tools", "name": "mcp__forty__list_issues"})]),
                    Reply(text="ok"))
            else:
                model.script(Reply(text="ok"))
            events = list(session.run(Message.user("What is open?")))
            took = time.perf_counter() - started
            pulled = [e.result.content for e in events if isinstance(e, ToolFinished)]
            mcp_chars, prompt_chars = _request_chars(model.requests[0].json)
            names = [t["function"]["name"] for t in model.requests[0].json.get("tools") or []]
        finally:
            session.close()
            plugin.manager.shutdown()
    return {"mcp": mcp_chars, "prompt": prompt_chars, "pulled": pulled, "seconds": took,
            "tools": [n for n in names if n.startswith("mcp")]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="run the 40-tool server")
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        for name in ("config", "data", "cache"):
            (base / name).mkdir()
        os.environ.update(CHATCLI_CONFIG_DIR=str(base / "config"),
                          CHATCLI_DATA_DIR=str(base / "data"),
                          CHATCLI_CACHE_DIR=str(base / "cache"), OPENAI_API_KEY="sk-bench")
        workspace = base / "project"
        workspace.mkdir()
        results = {case: _run(case, workspace) for case in ("deferred", "full", "search")}
    full = results["full"]
    print(f"MCP tool characters in the prompt: a {TOOLS}-tool server, one model call each")
    print(f"{'case':<34}{'MCP chars':>11}{'prompt chars':>14}{'of full':>9}")
    labels = {"deferred": "chat: listed by name (deferred)",
              "full": "full schemas (agent runs, or full)",
              "search": "agent run over 10 %: mcp_search"}
    for case, result in results.items():
        share = result["mcp"] / full["mcp"]
        print(f"{labels[case]:<34}{result['mcp']:>11,}{result['prompt']:>14,}{share:>9.1%}")
    pulled = results["deferred"]["pulled"]
    if pulled:
        print(f"reading one tool back (context_pull mcp_tools): {len(pulled[0]):,} characters")
    print(f"tools sent natively: deferred {len(results['deferred']['tools'])}, full "
          f"{len(full['tools'])}, search {results['search']['tools']}")
    ratio = results["deferred"]["mcp"] / full["mcp"]
    verdict = "met" if ratio <= GOAL else "MISSED"
    print(f"deferred/full MCP characters: {ratio:.1%} (goal ≤ {GOAL:.0%}: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
