"""``/mcp``: each server's state, its tools, prompts and resources, its last error; restart."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_mcp.connection import Connection
    from chatcli_mcp.manager import Manager
    from chatcli_mcp.plugin import McpPlugin

__all__ = ["mcp_command", "status_lines"]

SUBCOMMANDS = ("status", "tools", "prompts", "resources", "restart", "log")
USAGE = "use /mcp [status|tools [SERVER]|prompts|resources [SERVER]|restart NAME|log NAME]"


def _state(connection: Connection) -> str:
    state = connection.state
    if state == "ready":
        took = f" (handshake {connection.handshake:.2f} s)" if connection.handshake else ""
        return f"running{took}"
    if state == "restarting" and connection.next_retry is not None:
        wait = max(0.0, connection.next_retry - time.monotonic())
        return f"down, restart in {wait:.0f} s"
    return {"idle": "not started", "starting": "starting", "failed": "given up",
            "stopped": "stopped"}.get(state, state)


def status_lines(owner: Manager) -> list[str]:
    """One block per server: its state, what it offers, its last error and its log."""
    loaded = owner.load()
    lines: list[str] = []
    if not loaded.servers and not loaded.untrusted:
        lines.append("no MCP servers configured — add one with `chatcli mcp add NAME -- "
                     "COMMAND …` or a project .mcp.json")
    for name, server in loaded.servers.items():
        connection = owner.connections.get(name)
        if connection is None:
            lines.append(f"{name} · disabled · {server.transport} {server.where}")
            continue
        listing = connection.listing
        lines.append(f"{name} · {_state(connection)} · {server.transport} {server.where}")
        lines.append(f"  {len(listing.tools)} tools, {len(listing.prompts)} prompts, "
                     f"{len(listing.resources)} resources"
                     + (f", {len(listing.templates)} resource templates"
                        if listing.templates else "")
                     + (f" · protocol {connection.version}" if connection.version else ""))
        if connection.error:
            lines.append(f"  last error: {connection.error}")
        if server.transport == "stdio":
            lines.append(f"  log: {connection.log_path}")
    for server in loaded.untrusted:
        lines.append(f"{server.name} · not started: the project is not trusted "
                     f"({server.origin}; `chatcli trust`)")
    for problem in loaded.problems:
        lines.append(f"config: {problem}")
    return lines


def _print(app: Any, lines: list[str]) -> None:
    for line in lines:
        app.console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)


def _tools(owner: Manager, server: str | None) -> list[str]:
    tools = [t for t in owner.mcp_tools().values() if server in (None, t.server)]
    if not tools:
        return ["no MCP tools" + (f" from {server}" if server else "")]
    from chatcli_mcp.results import one_line

    return [f"{t.name}: {one_line(t.description, 100)}" for t in tools]


def _resources(owner: Manager, server: str | None) -> list[str]:
    lines = []
    for name, connection in owner.connections.items():
        if server not in (None, name):
            continue
        for resource in connection.listing.resources:
            title = getattr(resource, "name", "") or ""
            lines.append(f"@{name}:{resource.uri}" + (f"  {title}" if title else ""))
        for template in connection.listing.templates:
            lines.append(f"@{name}:{template.uri_template}  (template)")
    return lines or ["no MCP resources" + (f" from {server}" if server else "")
                     + " — attach one to a message with @SERVER:URI"]


def _prompts(owner: Manager) -> list[str]:
    from chatcli_mcp.results import tool_name

    lines = []
    for name, connection in owner.connections.items():
        for prompt in connection.listing.prompts:
            args = " ".join(a.name + "=…" for a in (prompt.arguments or []))
            lines.append(f"/{tool_name(name, prompt.name)} {args}".rstrip())
    return lines or ["no MCP prompts"]


def run(plugin: McpPlugin, app: Any, text: str) -> None:
    owner = plugin.manager
    try:
        _run(owner, app, text)
    finally:
        owner.flush()


def _run(owner: Manager, app: Any, text: str) -> None:
    from chatcli import UsageError

    owner.ensure_configured()
    words = text.split()
    action = words[0] if words else "status"
    rest = words[1] if len(words) > 1 else None
    if action not in SUBCOMMANDS:
        raise UsageError(f"unknown /mcp action '{action}'", USAGE)
    owner.load()
    if rest is not None and action != "status" and rest not in owner.connections:
        known = ", ".join(sorted(owner.connections)) or "none"
        raise UsageError(f"no MCP server '{rest}'", f"the servers are: {known}")
    if action == "status":
        owner.start(names=[rest] if rest in owner.connections else None,
                    wait=owner.options.prompt_wait)
        _print(app, status_lines(owner))
    elif action == "tools":
        owner.start(names=[rest] if rest else None)
        _print(app, _tools(owner, rest))
    elif action == "prompts":
        owner.start()
        _print(app, _prompts(owner))
    elif action == "resources":
        owner.start(names=[rest] if rest else None)
        _print(app, _resources(owner, rest))
    elif action in ("restart", "log"):
        if rest is None:
            raise UsageError(f"/mcp {action} needs a server's name", USAGE)
        connection = owner.connections[rest]
        if action == "log":
            _print(app, [f"log: {connection.log_path}", *_tail(connection)])
            return
        connection.stop()
        connection.join(6.0)
        connection.start()
        ready = connection.wait(connection.config.init_timeout + 5)
        _print(app, [f"{rest}: {'running' if ready else connection.unavailable()}"])


def _tail(connection: Connection, count: int = 20) -> list[str]:
    try:
        lines = connection.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ["(no log yet)"]
    return [f"  {line}" for line in lines[-count:]]


def mcp_command(plugin: McpPlugin) -> SlashCommand:
    from chatcli import SlashCommand

    def complete(_app: Any, _text: str) -> list[str]:
        manager = plugin._manager
        return sorted(manager.connections) if manager is not None else []

    return SlashCommand(
        name="mcp", run=lambda app, text: run(plugin, app, text), subcommands=SUBCOMMANDS,
        complete=complete,
        help="MCP servers: status, tools [SERVER], prompts, resources [SERVER] (attach with "
             "@SERVER:URI), restart NAME, log NAME")
