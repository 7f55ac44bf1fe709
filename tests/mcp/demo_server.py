"""An MCP server written with the SDK for the chatcli-mcp tests (run as a script).

``python demo_server.py [--transport stdio|http|sse] [--port N] [--pages N]``

Tools: ``add`` (structured result), ``echo``, ``fail`` (an ``is_error`` result), ``crash`` (the
process exits in the middle of the call), ``slow`` (sleeps, for cancellation and timeouts),
``grow`` (adds the tool ``extra`` and announces that the tool list changed), ``picture`` (an
image). A prompt ``review`` and a resource ``notes://today``. ``--pages N`` serves the tool list
N tools a page (the low-level server, with ``next_cursor``); ``--many N`` serves N generated
tools shaped like a real service's.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import sys
import time

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Image

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def build() -> MCPServer:
    server = MCPServer("demo", instructions="A test server.")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two whole numbers."""
        return a + b

    @server.tool()
    def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    @server.tool()
    def fail(reason: str = "it went wrong") -> str:
        """Always fails."""
        raise ValueError(reason)

    @server.tool()
    def crash() -> str:
        """The server dies while answering."""
        sys.stderr.write("demo server: crashing now\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool()
    def slow(seconds: float = 30.0) -> str:
        """Sleep, then answer."""
        time.sleep(seconds)
        return "slept"

    @server.tool()
    def picture() -> Image:
        """A one-pixel image."""
        return Image(data=PNG, format="png")

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool 'extra' and announce the change."""
        def extra(word: str) -> str:
            """A tool that appeared later."""
            return word * 2

        server.add_tool(extra, name="extra")
        await ctx.notify_tools_changed()
        with contextlib.suppress(Exception):  # a 2026 connection has no legacy notifications
            await ctx.session.send_tool_list_changed()
        return "grown"

    @server.prompt()
    def review(topic: str) -> str:
        """Ask for a review of a topic."""
        return f"Please review {topic} carefully."

    @server.resource("notes://today")
    def today() -> str:
        """Today's notes."""
        return "Buy milk. Call Ada."

    return server


def paged(size: int):
    import mcp.types as types
    from mcp.server.lowlevel import Server

    names = [f"tool{i}" for i in range(7)]

    async def list_tools(_ctx, params):
        cursor = int(params.cursor) if params is not None and params.cursor else 0
        page = names[cursor:cursor + size]
        more = cursor + size < len(names)
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=f"tool number {n[4:]}",
                              input_schema={"type": "object", "properties": {}}) for n in page],
            next_cursor=str(cursor + size) if more else None)

    async def call_tool(_ctx, params):
        return types.CallToolResult(content=[types.TextContent(text=f"{params.name} ran")])

    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


TOPICS = ("issue", "branch", "release", "comment", "label", "milestone", "review", "build",
          "deployment", "secret")
VERBS = ("list", "get", "create", "update")


def many(count: int):
    """``count`` tools shaped like a real service's (names, descriptions, 3-4 arguments)."""
    import mcp.types as types
    from mcp.server.lowlevel import Server

    tools = []
    for index in range(count):
        topic, verb = TOPICS[index // len(VERBS) % len(TOPICS)], VERBS[index % len(VERBS)]
        name = f"{verb}_{topic}" + (f"_{index // 40}" if index >= 40 else "")
        tools.append(types.Tool(
            name=name,
            description=f"{verb.capitalize()} a {topic} of the project. Use it when the user "
                        f"asks about a {topic}; it returns the {topic} as JSON with its id, "
                        "title, state, author and dates.",
            input_schema={"type": "object", "properties": {
                "project": {"type": "string", "description": "owner/name of the project"},
                "id": {"type": "integer", "description": f"the {topic}'s number"},
                "state": {"type": "string", "enum": ["open", "closed", "all"],
                          "description": "which ones"},
                "limit": {"type": "integer", "description": "at most this many results",
                          "default": 20}}, "required": ["project"]}))

    async def list_tools(_ctx, _params):
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx, params):
        return types.CallToolResult(content=[types.TextContent(
            text=f"{params.name} ran with {sorted((params.arguments or {}).items())}")])

    return Server("many", on_list_tools=list_tools, on_call_tool=call_tool)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pages", type=int, default=0)
    parser.add_argument("--tag", default="", help="a word that makes the process findable")
    parser.add_argument("--many", type=int, default=0, help="serve this many generated tools")
    args = parser.parse_args()
    if args.pages or args.many:
        import anyio
        from mcp.server.stdio import stdio_server

        server = paged(args.pages) if args.pages else many(args.many)

        async def run() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run)
        return
    server = build()
    if args.transport == "stdio":
        server.run("stdio")
    elif args.transport == "sse":
        server.run("sse", port=args.port)
    else:
        server.run("streamable-http", port=args.port)


if __name__ == "__main__":
    main()
