"""``chatcli mcp list|add|remove|test|trust|serve``: MCP servers from the shell.

Imported only when one of these commands runs (the root command line names the group through
``LazyGroup``).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from chatcli import translation

__all__ = ["mcp"]

_, ngettext = translation(__name__)


def _settings() -> Any:
    from chatcli import load_settings

    return load_settings()


def _workspace() -> Path:
    return Path.cwd().resolve()


def _loaded(settings: Any) -> Any:
    from chatcli_mcp.settings import load

    return load(settings, _workspace())


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths,
                                                                          strict=True)).rstrip()
                     for row in rows)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


@click.group("mcp", help=_(
    "MCP servers: list, add, remove and test them; serve chatcli's tools over MCP."))
def mcp() -> None:
    """MCP servers: list, add, remove and test them; serve chatcli's tools over MCP."""


def _warn(problem: str) -> None:
    click.echo(_("chatcli: warning: mcp: {message}").format(message=problem), err=True)


@mcp.command("list", help=_(
    "The configured MCP servers: transport, what runs, where it is configured, state."))
def list_command() -> int:
    """The configured MCP servers: transport, what runs, where it is configured, state."""
    loaded = _loaded(_settings())
    rows = [[_("NAME"), _("TRANSPORT"), _("RUNS"), _("FROM"), _("STATE")]]
    for server in loaded.servers.values():
        rows.append([server.name, server.transport, _short(server.where), _short(server.origin,
                                                                                   40),
                     _("enabled") if server.enabled else _("disabled")])
    for server in loaded.untrusted:
        rows.append([server.name, server.transport, _short(server.where),
                     _short(server.origin, 40), _("untrusted (`chatcli trust`)")])
    for problem in loaded.problems:
        _warn(problem)
    if len(rows) == 1:
        click.echo(_("no MCP servers configured; add one with `chatcli mcp add NAME -- COMMAND "
                     "ARGS…` or `chatcli mcp add NAME --url URL`"))
        return 0
    click.echo(_table(rows))
    return 0


def _pairs(values: tuple[str, ...], what: str) -> dict[str, str]:
    from chatcli import UsageError

    out = {}
    for value in values:
        key, sep, item = value.partition("=" if what == "env" else ":")
        if what != "env" and not sep:
            key, sep, item = value.partition("=")
        if not sep or not key.strip():
            raise UsageError(_("--{option} {value!r} is not KEY=VALUE").format(option=what,
                                                                               value=value),
                             _("write --{option} {example}").format(
                                 option=what,
                                 example="NAME=value" if what == "env" else "Name: value"))
        out[key.strip()] = item.strip() if what != "env" else item
    return out


@mcp.command("add", context_settings={"ignore_unknown_options": True}, help=_(
    "Add a server: `chatcli mcp add NAME -- COMMAND ARGS…` or `--url URL`."))
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", help=_(
    "A streamable HTTP (or, with --transport sse, SSE) server's URL."))
@click.option("--transport", type=click.Choice(["stdio", "http", "sse"]), default=None)
@click.option("--env", "envs", multiple=True, metavar="NAME=VALUE",
              help=_("An environment variable for the server (${VAR} expands when it "
                     "starts)."))
@click.option("--header", "headers", multiple=True, metavar="NAME: VALUE",
              help=_("An HTTP header (${VAR} expands when it connects)."))
@click.option("--allow", "allow", multiple=True, metavar="TOOL",
              help=_("A tool that runs without asking ('*': all of the server's tools)."))
@click.option("--project", is_flag=True,
              help=_("Write it to the project's .mcp.json instead of your user config."))
@click.option("--force", is_flag=True, help=_("Replace a server of the same name."))
def add_command(name: str, command: tuple[str, ...], url: str | None, transport: str | None,
                envs: tuple[str, ...], headers: tuple[str, ...], allow: tuple[str, ...],
                project: bool, force: bool) -> int:
    """Add a server: `chatcli mcp add NAME -- COMMAND ARGS…` or `--url URL`."""
    from chatcli import UsageError

    from chatcli_mcp.settings import BadConfig, parse_server

    words = list(command)
    if words and words[0] == "--":
        words = words[1:]
    entry: dict[str, Any] = {}
    if url is not None:
        if words:
            raise UsageError(_("give a command or --url, not both"),
                             _("chatcli mcp add NAME -- COMMAND ARGS… or chatcli mcp add NAME "
                               "--url URL"))
        entry["url"] = url
        entry["transport"] = transport or "http"
        if headers:
            entry["headers"] = _pairs(headers, "header")
    else:
        if not words:
            raise UsageError(_("no command to run"), _("chatcli mcp add NAME -- COMMAND ARGS… "
                                                       "(or --url URL)"))
        entry["command"], entry["args"] = words[0], words[1:]
        if envs:
            entry["env"] = _pairs(envs, "env")
    if allow:
        entry["allow"] = list(allow)
    try:  # check it now, with ${VAR} left for when it starts
        parse_server(name, entry, environ={"__never__": ""} | _placeholders(entry))
    except BadConfig as err:
        raise UsageError(str(err), err.fix) from None
    from chatcli_mcp.settings import allowed_servers, not_allowed

    allowed = allowed_servers(_settings().plugin_table("mcp"))
    if allowed is not None and name not in allowed[1]:
        from chatcli import ConfigError

        raise ConfigError(not_allowed(name, "chatcli mcp add", allowed[0]),
                          _("allowed: {names}").format(names=", ".join(allowed[1]) or _("none")))
    path = _write_project(name, entry, force) if project else _write_user(name, entry, force)
    click.echo(_("added MCP server {name} to {path}; `chatcli mcp test {name}` checks it")
               .format(name=name, path=path))
    return 0


def _placeholders(entry: dict[str, Any]) -> dict[str, str]:
    import re

    text = json.dumps(entry)
    return {m: "x" for m in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text)}


def _toml(value: Any) -> str:
    """A value as TOML (strings as JSON strings are TOML basic strings; tables inline)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _write_user(name: str, entry: dict[str, Any], force: bool) -> Path:
    from chatcli import UsageError, user_config_path
    from chatcli_config_edit import set_value

    path = user_config_path()
    existing = _user_servers()
    if name in existing and not force:
        raise UsageError(_("an MCP server named {name} is already in {path}").format(
                             name=name, path=path),
                         _("choose another name, or replace it with --force"))
    if name in existing:
        _unset(f"mcp.servers.{name}")
    for key, value in entry.items():
        set_value(path, f"mcp.servers.{name}.{key}", _toml(value))
    return path


def _unset(key: str) -> None:
    """``chatcli config unset KEY`` (chatcli-admin's; chatcli-config-edit keeps the file's
    comments)."""
    import contextlib
    import io

    context = click.get_current_context()
    root = context.find_root()
    config = root.command.get_command(root, "config")  # type: ignore[attr-defined]
    unset = config.get_command(root, "unset") if config is not None else None
    if unset is None:
        from chatcli import UsageError

        raise UsageError(_("chatcli's `config unset` command is missing"),
                         _("remove [{key}] from your config file by hand").format(key=key))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        context.invoke(unset, key=key, project=False)


def _user_servers() -> dict[str, Any]:
    from chatcli_mcp.settings import user_table

    servers = user_table().get("servers", {})
    return servers if isinstance(servers, dict) else {}


def _project_json() -> Path:
    """The project's .mcp.json: at the project root, where chatcli reads it."""
    from chatcli_mcp.settings import PROJECT_FILE, project_root

    return (project_root(_workspace()) or _workspace()) / PROJECT_FILE


def _read_json(path: Path) -> dict[str, Any]:
    from chatcli import UsageError

    if not path.exists():
        return {"mcpServers": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(_("{path} cannot be read: {reason}").format(path=path, reason=err),
                         _("fix or remove the file")) from None
    if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
        raise UsageError(_("{path}: mcpServers must be an object").format(path=path),
                         _("fix the file"))
    return data


def _write_project(name: str, entry: dict[str, Any], force: bool) -> Path:
    from chatcli import UsageError, atomic_write

    path = _project_json()
    data = _read_json(path)
    if name in data["mcpServers"] and not force:
        raise UsageError(_("an MCP server named {name} is already in {path}").format(
                             name=name, path=path),
                         _("choose another name, or replace it with --force"))
    json_entry = dict(entry)
    transport = json_entry.pop("transport", None)
    if transport in ("http", "sse"):
        json_entry["type"] = transport
    data["mcpServers"][name] = json_entry
    with _keeping_trust():
        atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


@contextlib.contextmanager
def _keeping_trust() -> Iterator[None]:
    """The user edits the project's .mcp.json with this command: a project they trusted as it
    was (or one with no file that changes chatcli) is trusted with their change; any other
    change still asks again."""
    from chatcli import project_trust
    from chatcli_workspace import trust_project

    workspace = _workspace()
    before = project_trust(workspace)
    yield
    if before.trusted:
        trust_project(workspace)


@mcp.command("remove", help=_(
    "Remove a server from your user config (or else from the project's .mcp.json)."))
@click.argument("name")
def remove_command(name: str) -> int:
    """Remove a server from your user config (or else from the project's .mcp.json)."""
    from chatcli import UsageError, atomic_write, user_config_path

    if name in _user_servers():
        _unset(f"mcp.servers.{name}")
        click.echo(_("removed MCP server {name} from {path}").format(name=name,
                                                                     path=user_config_path()))
        return 0
    path = _project_json()
    if path.exists():
        data = _read_json(path)
        if name in data["mcpServers"]:
            del data["mcpServers"][name]
            with _keeping_trust():
                atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
            click.echo(_("removed MCP server {name} from {path}").format(name=name, path=path))
            return 0
    raise UsageError(_("no MCP server named {name} in {user} or {project}").format(
                         name=name, user=user_config_path(), project=path),
                     _("`chatcli mcp list` shows the servers and where each is configured"))


@mcp.command("trust", help=_(
    "Trust this project, as `chatcli trust` does: its .mcp.json servers start, and its other "
    "files that change chatcli take effect, as they are now (a change asks again)."))
@click.option("--remove", is_flag=True, help=_(
    "Stop trusting this project (chatcli trust --revoke)."))
@click.option("-y", "--yes", is_flag=True, help=_("Trust it without asking."))
@click.pass_context
def trust_command(ctx: click.Context, remove: bool, yes: bool) -> int:
    """Trust this project, as `chatcli trust` does: its .mcp.json servers start, and its other
    files that change chatcli take effect, as they are now (a change asks again)."""
    from chatcli import UsageError

    if not remove:
        from chatcli_mcp.settings import project_root

        project = project_root(_workspace())
        for server in _loaded(_settings()).untrusted:
            origin = Path(server.origin)
            if project is not None and origin.is_relative_to(project):
                origin = origin.relative_to(project)
            click.echo(_("MCP server {name} ({origin}) runs: {transport} {what}").format(
                name=server.name, origin=origin, transport=server.transport,
                what=_short(server.where, 200)))
    root = ctx.find_root()
    command = root.command.get_command(root, "trust")  # type: ignore[attr-defined]
    if command is None:
        raise UsageError(_("chatcli's `trust` command is missing"),
                         _("install chatcli-admin, which provides it"))
    return int(ctx.invoke(command, path=None, yes=yes, as_list=False, revoke=remove) or 0)


@mcp.command("test", help=_("Connect to a server, list its tools and time the handshake."))
@click.argument("name")
def test_command(name: str) -> int:
    """Connect to a server, list its tools and time the handshake."""
    from chatcli import UsageError, cache_dir

    from chatcli_mcp.connection import Connection
    from chatcli_mcp.runtime import Loop

    loaded = _loaded(_settings())
    server = loaded.servers.get(name)
    waiting = next((s for s in loaded.untrusted if s.name == name), None)
    if server is None and waiting is not None:  # a program of a project not trusted
        raise UsageError(_("{name} is a server of this project, which is not trusted: it would "
                           "run {what}").format(name=name, what=_short(waiting.where, 120)),
                         _("`chatcli mcp trust` shows what its servers run and trusts it"))
    servers = {**{s.name: s for s in loaded.untrusted}, **loaded.servers}
    if server is None:
        known = ", ".join(sorted(servers)) or _("none")
        for problem in loaded.problems:
            _warn(problem)
        raise UsageError(_("no MCP server named {name}").format(name=name),
                         _("the servers are: {names}").format(names=known))
    loop = Loop()
    connection = Connection(server, loop, workspace=_workspace(),
                            log_dir=cache_dir() / "mcp" / "logs", max_restarts=0)
    started = time.monotonic()
    try:
        connection.start()
        ready = connection.wait(server.init_timeout + 10)
        took = time.monotonic() - started
        if not ready:
            click.echo(_("chatcli: error: {name}: {reason} (after {seconds:.2f} s; its log: "
                         "{log})").format(name=name,
                                          reason=connection.error or _("it did not start"),
                                          seconds=took, log=connection.log_path), err=True)
            return 1
        listing = connection.listing
        who = (_(", server {name}").format(name=connection.server_name)
               if connection.server_name else "")
        # i18n: {server} is ", server NAME" or nothing
        click.echo(_("{name}: connected in {seconds:.2f} s (protocol {version}{server}); "
                     "{tools} tools, {prompts} prompts, {resources} resources").format(
                         name=name, seconds=connection.handshake or took,
                         version=connection.version, server=who, tools=len(listing.tools),
                         prompts=len(listing.prompts), resources=len(listing.resources)))
        for tool in listing.tools:
            description = _short(getattr(tool, "description", "") or "", 70)
            click.echo(f"  {tool.name}" + (f" — {description}" if description else ""))
        return 0
    finally:
        connection.stop()
        connection.join(6.0)
        loop.stop()


@mcp.command("serve", help=_(
    "Offer chatcli's own tools to other MCP clients over stdio, under chatcli's permission "
    "policy (read-only unless allowed)."))
@click.option("--allow-writes", is_flag=True,
              help=_("Offer the tools that write and run too (else only reading tools; "
                     "[mcp.serve] allow_writes)."))
def serve_command(allow_writes: bool) -> int:
    """Offer chatcli's own tools to other MCP clients over stdio, under chatcli's permission
    policy (read-only unless allowed)."""
    from chatcli_mcp.serve import serve

    return serve(allow_writes=allow_writes or None, stream=sys.stdout)
