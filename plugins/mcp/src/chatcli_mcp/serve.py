"""``chatcli mcp serve``: chatcli's own tools offered to other MCP clients over stdio.

The tools are the ones chatcli's plugins register (the coder's ``read``, ``search``, ``glob``,
``tree``, ``git`` …; never the MCP tools chatcli itself uses, nor ``context_pull`` and
``mcp_search``, which need a conversation), their JSON schemas as the model sees them. Only
reading tools are offered unless ``[mcp.serve] allow_writes = true`` (or ``--allow-writes``);
``[mcp.serve] tools = [...]`` narrows the list. Every call passes chatcli's permission policy
(``authorize_tool_call``) as in a run where nobody can be asked: what would ask is refused with
the reason, and so is what it denies. The server speaks the SDK's low-level ``Server`` (both the
handshake era and the 2026 protocol) on stdin/stdout; nothing else is written to stdout.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, TextIO

__all__ = ["ServedTools", "serve"]

#: Tools never served: they need a conversation or are MCP tools themselves.
NOT_SERVED = ("context_pull", "mcp_search")


class ServedTools:
    """The tools served and how one call runs (kept apart from the SDK so tests call it)."""

    def __init__(self, host: Any, settings: Any, workspace: Path, *, allow_writes: bool,
                 only: tuple[str, ...] = ()) -> None:
        from chatcli import Conversation, Risk

        self.host, self.settings, self.workspace = host, settings, workspace
        tools = {}
        for name, tool in host.tools().items():
            if name.startswith("mcp__") or name in NOT_SERVED:
                continue
            if only and name not in only:
                continue
            if tool.risk != Risk.READ and not allow_writes:
                continue
            tools[name] = tool
        self.tools = tools
        self.conversation = Conversation()

    def specs(self) -> list[Any]:
        return [tool.spec() for tool in self.tools.values()]

    def call(self, name: str, arguments: dict[str, Any], cancel: threading.Event
             ) -> tuple[str, bool]:
        """Run one call: (text, is_error)."""
        from chatcli import Decision, Risk, ToolCallPart, ToolContext, ToolResultPart, Verdict

        tool = self.tools.get(name)
        if tool is None:
            return (f"unknown tool '{name}'; the tools are: {', '.join(sorted(self.tools))}",
                    True)
        call = ToolCallPart(name=name, arguments=dict(arguments or {}))
        context = ToolContext(workspace=self.workspace, settings=self.settings,
                              interactive=False, conversation=self.conversation, cancel=cancel,
                              max_output=self.settings.tool_output_max)
        try:
            args = tool.parse_arguments(call.arguments)
        except ValueError as err:
            return f"invalid arguments for '{name}': {str(err).splitlines()[0]}", True
        spec = tool.spec()
        answer = self.host.hooks.authorize_tool_call(call=call, tool=spec, context=context)
        verdict = answer if isinstance(answer, Verdict) else Verdict(
            answer if answer is not None else
            Decision.ALLOW if tool.risk == Risk.READ else Decision.ASK)
        allowed = verdict.decision == Decision.ALLOW
        self.host.hooks.tool_call_decided(call=call, tool=spec, allowed=allowed, approval=None,
                                          verdict=verdict, conversation=self.conversation)
        if verdict.decision == Decision.DENY:
            return f"denied: {verdict.reason or 'by chatcli’s permission policy'}", True
        if not allowed:
            why = f" ({verdict.reason})" if verdict.reason else ""
            return (f"denied: {name} needs a person's approval{why}, and nobody can be asked "
                    "over MCP (allow it with a permission rule in chatcli's config)"), True
        try:
            output = tool.run(args, context)
            text, failed = (output if isinstance(output, str) else str(output)), False
        except Exception as err:  # a tool's failure is the caller's error result
            first = (str(err).splitlines() or [""])[0]
            text, failed = f"{name} failed: {type(err).__name__}: {first}", True
        limit = self.settings.tool_output_max
        if len(text) > limit:
            text = text[:limit] + f"\n[… {len(text) - limit:,} characters cut]"
        result = ToolResultPart(call_id=call.id, name=name, content=text, is_error=failed)
        self.host.hooks.after_tool_call(call=call, result=result, conversation=self.conversation)
        return text, failed


def _host() -> Any:
    import click

    context = click.get_current_context(silent=True)
    state = context.find_root().obj if context is not None else None
    host = getattr(state, "host", None)
    if host is None:
        from chatcli import PluginHost

        host = PluginHost()
    return host


def build(allow_writes: bool | None = None) -> ServedTools:
    """The served tools of this run (the settings on disk, the current folder)."""
    from chatcli import load_settings

    from chatcli_mcp import plugin
    from chatcli_mcp.settings import BadConfig, options

    settings = load_settings()
    workspace = Path.cwd().resolve()
    try:
        served = options(settings.plugin_table("mcp"))
    except BadConfig as err:
        from chatcli import ConfigError

        raise ConfigError(str(err), err.fix) from None
    plugin._PLUGIN.manager.serving = True  # this process serves tools; it starts no servers
    host = _host()
    host.configure(settings, workspace)
    writes = served.serve_allow_writes if allow_writes is None else allow_writes
    return ServedTools(host, settings, workspace, allow_writes=writes, only=served.serve_tools)


def server(tools: ServedTools) -> Any:
    """The SDK's low-level server for ``tools``."""
    import anyio
    import anyio.to_thread
    import chatcli
    import mcp.types as types
    from mcp.server.lowlevel import Server

    async def list_tools(_context: Any, _params: Any) -> Any:
        return types.ListToolsResult(tools=[
            types.Tool(name=spec.name, description=spec.description,
                       input_schema=dict(spec.parameters),
                       annotations=types.ToolAnnotations(read_only_hint=spec.risk == "read"))
            for spec in tools.specs()])

    async def call_tool(_context: Any, params: Any) -> Any:
        cancel = threading.Event()
        try:
            text, failed = await anyio.to_thread.run_sync(
                tools.call, params.name, dict(params.arguments or {}), cancel,
                abandon_on_cancel=True)
        finally:
            cancel.set()
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=failed)

    return Server("chatcli", version=chatcli.__version__,
                  instructions="chatcli's tools for the folder it was started in, under "
                               "chatcli's permission policy.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(allow_writes: bool | None = None, stream: TextIO | None = None) -> int:
    """Serve over stdio until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    tools = build(allow_writes)
    app = server(tools)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await app.run(read_stream, write_stream, app.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        return 130
    return 0
