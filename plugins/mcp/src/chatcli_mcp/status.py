"""``/mcp``: each server's state, its tools, prompts and resources, its last error; restart."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_mcp.connection import Connection
    from chatcli_mcp.manager import Manager
    from chatcli_mcp.plugin import McpPlugin

__all__ = ["mcp_command", "status_lines"]

_, ngettext = translation(__name__)

SUBCOMMANDS = ("status", "tools", "prompts", "resources", "restart", "log")
USAGE = _("use /mcp [status|tools [SERVER]|prompts|resources [SERVER]|restart NAME|log NAME]")


def _state(connection: Connection) -> str:
    state = connection.state
    if state == "ready":
        if connection.handshake:
            return _("running (handshake {seconds:.2f} s)").format(seconds=connection.handshake)
        return _("running")
    if state == "restarting" and connection.next_retry is not None:
        wait = max(0.0, connection.next_retry - time.monotonic())
        return _("down, restart in {seconds:.0f} s").format(seconds=wait)
    return {"idle": _("not started"), "starting": _("starting"), "failed": _("given up"),
            "stopped": _("stopped")}.get(state, state)


def status_lines(owner: Manager) -> list[str]:
    """One block per server: its state, what it offers, its last error and its log."""
    loaded = owner.load()
    lines: list[str] = []
    if not loaded.servers and not loaded.untrusted:
        lines.append(_("no MCP servers configured — add one with `chatcli mcp add NAME -- "
                       "COMMAND …` or a project .mcp.json"))
    for name, server in loaded.servers.items():
        connection = owner.connections.get(name)
        if connection is None:
            lines.append(_("{name} · disabled · {transport} {what}").format(
                name=name, transport=server.transport, what=server.where))
            continue
        listing = connection.listing
        lines.append(f"{name} · {_state(connection)} · {server.transport} {server.where}")
        offers = _("{tools} tools, {prompts} prompts, {resources} resources").format(
            tools=len(listing.tools), prompts=len(listing.prompts),
            resources=len(listing.resources))
        if listing.templates:
            offers = _("{offers}, {count} resource templates").format(
                offers=offers, count=len(listing.templates))
        if connection.version:
            offers = _("{offers} · protocol {version}").format(offers=offers,
                                                               version=connection.version)
        lines.append(f"  {offers}")
        if connection.error:
            lines.append("  " + _("last error: {error}").format(error=connection.error))
        if server.transport == "stdio":
            lines.append("  " + _("log: {path}").format(path=connection.log_path))
    for server in loaded.untrusted:
        lines.append(_("{name} · not started: the project is not trusted ({origin}; "
                       "`chatcli trust`)").format(name=server.name, origin=server.origin))
    for problem in loaded.problems:
        lines.append(_("config: {problem}").format(problem=problem))
    return lines


def _print(app: Any, lines: list[str]) -> None:
    for line in lines:
        app.console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)


def _tools(owner: Manager, server: str | None) -> list[str]:
    tools = [t for t in owner.mcp_tools().values() if server in (None, t.server)]
    if not tools:
        return [_("no MCP tools from {server}").format(server=server) if server
                else _("no MCP tools")]
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
            lines.append(f"@{name}:{template.uri_template}  " + _("(template)"))
    return lines or [_("no MCP resources from {server} — attach one to a message with "
                       "@SERVER:URI").format(server=server) if server else
                     _("no MCP resources — attach one to a message with @SERVER:URI")]


def _prompts(owner: Manager) -> list[str]:
    from chatcli_mcp.results import tool_name

    lines = []
    for name, connection in owner.connections.items():
        for prompt in connection.listing.prompts:
            args = " ".join(a.name + "=…" for a in (prompt.arguments or []))
            lines.append(f"/{tool_name(name, prompt.name)} {args}".rstrip())
    return lines or [_("no MCP prompts")]


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
        raise UsageError(_("unknown /mcp action '{action}'").format(action=action), USAGE)
    owner.load()
    if rest is not None and action != "status" and rest not in owner.connections:
        known = ", ".join(sorted(owner.connections)) or _("none")
        raise UsageError(_("no MCP server '{name}'").format(name=rest),
                         _("the servers are: {names}").format(names=known))
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
            raise UsageError(_("/mcp {action} needs a server's name").format(action=action),
                             USAGE)
        connection = owner.connections[rest]
        if action == "log":
            _print(app, [_("log: {path}").format(path=connection.log_path), *_tail(connection)])
            return
        connection.stop()
        connection.join(6.0)
        connection.start()
        ready = connection.wait(connection.config.init_timeout + 5)
        state = _("running") if ready else connection.unavailable()
        _print(app, [f"{rest}: {state}"])


def _tail(connection: Connection, count: int = 20) -> list[str]:
    try:
        lines = connection.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return [_("(no log yet)")]
    return [f"  {line}" for line in lines[-count:]]


def mcp_command(plugin: McpPlugin) -> SlashCommand:
    from chatcli import SlashCommand

    def complete(_app: Any, _text: str) -> list[str]:
        manager = plugin._manager
        return sorted(manager.connections) if manager is not None else []

    return SlashCommand(
        name="mcp", run=lambda app, text: run(plugin, app, text), subcommands=SUBCOMMANDS,
        complete=complete,
        help=_("MCP servers: status, tools [SERVER], prompts, resources [SERVER] (attach with "
               "@SERVER:URI), restart NAME, log NAME"))
