"""Where MCP servers come from: chatcli's TOML, a project's ``.mcp.json``, other ``mcpServers``
files; ``${VAR}`` expansion; and whether a project's servers may start (trust).

chatcli's format (user ``config.toml`` or project ``.chatcli/config.toml``)::

    [mcp.servers.time]
    command = "mcp-server-time"
    args = ["--local-timezone", "UTC"]
    env = { TZ = "UTC" }
    allow = ["get_current_time"]   # these tools run without asking ("*": all of them)

    [mcp.servers.docs]
    url = "https://example.com/mcp"          # streamable HTTP (transport = "sse": legacy SSE)
    headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

Claude's format (a project's ``.mcp.json``, or any file listed in ``[mcp] import``)::

    {"mcpServers": {"time": {"command": "mcp-server-time", "args": [], "env": {}},
                    "docs": {"type": "http", "url": "https://…", "headers": {…}}}}

A project's servers (its ``.chatcli/config.toml`` and the ``.mcp.json`` at its root) are
programs a repository someone else may have written would start: they start only in a project
the user trusts (``chatcli trust``, or the chat's question; see :func:`chatcli.project_trust`).
The trust covers the files as they are: a change to ``.mcp.json`` asks again. A project's
``allow`` lists are never used (tools of a project's server ask as any other tool), and a
project cannot set ``[mcp] import`` (files anywhere) or trust itself. ``[mcp] trust_project``,
the setting that trusted folders before, is no longer read: ``chatcli mcp trust`` is
``chatcli trust``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chatcli import translation

# the project's servers file and where it is (re-exported: the entry module needs them alone)
from chatcli_mcp.project import PROJECT_FILE, project_file, project_root

__all__ = [
    "PROJECT_FILE",
    "TOOL_MODES",
    "TRANSPORTS",
    "BadConfig",
    "Loaded",
    "McpOptions",
    "ServerConfig",
    "expand",
    "load",
    "options",
    "parse_server",
    "project_file",
    "project_root",
]

_, ngettext = translation(__name__)

TRANSPORTS = ("stdio", "http", "sse")
#: How MCP tools reach the model: ``auto`` (chat: listed and pulled; agent runs: real
#: definitions, or a search tool above ``max_tool_share``), ``deferred``, ``full``.
TOOL_MODES = ("auto", "deferred", "full")

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}")
_SERVER_KEYS = frozenset({
    "command", "args", "env", "cwd", "url", "headers", "transport", "type", "init_timeout",
    "call_timeout", "enabled", "allow", "deny", "protocol",
})
_OPTION_KEYS = frozenset({
    "servers", "trust_project", "tool_mode", "max_tool_share", "search_results", "project_files",
    "import", "max_restarts", "serve", "prompt_wait", "allowed_servers",
})

DEFAULT_INIT_TIMEOUT = 30.0
DEFAULT_CALL_TIMEOUT = 120.0


class BadConfig(ValueError):
    """A setting that cannot be used: ``key`` names it, the message says what is wrong and
    ``fix`` how to put it right (one line each)."""

    def __init__(self, key: str, problem: str, fix: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key, self.problem, self.fix = key, problem, fix

    @property
    def line(self) -> str:
        return f"{self}; {self.fix}"


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server as configured (``${VAR}`` already expanded)."""

    name: str
    transport: str = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    init_timeout: float = DEFAULT_INIT_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    enabled: bool = True
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    protocol: str = "auto"
    #: where it was configured (a file, or "settings")
    origin: str = "settings"
    #: configured by the project (starts only when the project is trusted)
    project: bool = False

    @property
    def where(self) -> str:
        """What it runs: the command line, or the URL."""
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args]).strip()
        return self.url or ""

    def allows(self, tool: str) -> bool:
        """Whether the user allowed ``tool`` of this server to run without asking."""
        return _matches(self.allow, tool)

    def denies(self, tool: str) -> bool:
        """Whether the user hid ``tool`` of this server from the model."""
        return _matches(self.deny, tool)


def _matches(patterns: tuple[str, ...], name: str) -> bool:
    import fnmatch

    return any(p == "*" or fnmatch.fnmatchcase(name, p) for p in patterns)


@dataclass(frozen=True)
class McpOptions:
    """The ``[mcp]`` table's own settings (not the servers)."""

    tool_mode: str = "auto"
    max_tool_share: float = 0.1
    search_results: int = 5
    project_files: bool = True
    imports: tuple[str, ...] = ()
    max_restarts: int = 3
    prompt_wait: float = 2.0
    serve_allow_writes: bool = False
    serve_tools: tuple[str, ...] = ()


@dataclass
class Loaded:
    """The servers found for a workspace and what could not be used."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    #: one line each: a bad entry (named, with its fix), left out
    problems: list[str] = field(default_factory=list)
    #: project servers that do not start because the project is not trusted
    untrusted: list[ServerConfig] = field(default_factory=list)
    options: McpOptions = field(default_factory=McpOptions)


# ------------------------------------------------------------------------------ expansion


def expand(value: str, key: str, environ: dict[str, str] | None = None) -> str:
    """``value`` with ``${VAR}`` and ``${VAR:-default}`` replaced from the environment; raises
    :class:`BadConfig` for a variable that is not set and has no default."""
    env = os.environ if environ is None else environ

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = env.get(name)
        if found is not None and (found != "" or default is None):
            return found
        if default is not None:
            return default
        raise BadConfig(key, _("${{{name}}} is not set").format(name=name),
                        _("set {name} in the environment or write ${{{name}:-default}}").format(
                            name=name))

    return _VARIABLE.sub(replace, value)


# ------------------------------------------------------------------------------ one server


def _text(value: Any, key: str, environ: dict[str, str] | None) -> str:
    if not isinstance(value, str):
        raise BadConfig(key, _("must be text, not {value}").format(value=_shown(value)),
                        _("write {key} = \"…\"").format(key=key))
    return expand(value, key, environ)


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r:.40}"


def _strings(value: Any, key: str, environ: dict[str, str] | None) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise BadConfig(key, _("must be a list of text, not {value}").format(
                            value=_shown(value)),
                        _("write {key} = [\"…\"]").format(key=key))
    return tuple(_text(item, f"{key}[{i}]", environ) for i, item in enumerate(value))


def _mapping(value: Any, key: str, environ: dict[str, str] | None
             ) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise BadConfig(key, _("must be a table of text, not {value}").format(
                            value=_shown(value)),
                        _("write {key} = {{ NAME = \"value\" }}").format(key=key))
    out = []
    for name, item in value.items():
        if isinstance(item, bool | int | float):
            item = str(item).lower() if isinstance(item, bool) else str(item)
        out.append((str(name), _text(item, f"{key}.{name}", environ)))
    return tuple(out)


def _seconds(value: Any, key: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86_400:
        raise BadConfig(key, _("must be a number of seconds above 0, not {value:.40}").format(
                            value=repr(value)),
                        _("write {key} = {value}").format(key=key, value=int(default)))
    return float(value)


def _flag(value: Any, key: str, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0",
                                                            "false", "no", "off"):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if not isinstance(value, bool):
        raise BadConfig(key, _("must be true or false, not {value:.40}").format(
                            value=repr(value)),
                        _("write {key} = {value}").format(key=key,
                                                          value="true" if default else "false"))
    return value


def server_name(raw: str) -> str:
    """A configured name as chatcli uses it in tool names: letters, digits, ``_`` and ``-``
    (anything else becomes ``-``), no ``__`` (it separates the parts of ``mcp__server__tool``)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", raw.strip())
    while "__" in name:
        name = name.replace("__", "_")
    return name.strip("_") or "server"


def parse_server(name: str, table: Any, *, origin: str = "settings", project: bool = False,
                 prefix: str = "mcp.servers", environ: dict[str, str] | None = None,
                 strict: bool = True) -> ServerConfig:
    """One server's table (TOML or JSON) checked; raises :class:`BadConfig` naming the key.

    ``strict`` refuses unknown keys (chatcli's TOML); JSON files written for other clients
    carry keys of their own, which are ignored."""
    key = f"{prefix}.{name}"
    if project and not isinstance(environ, _Unexpanded):
        environ = _ProjectEnviron(os.environ if environ is None else environ, key)
    if not isinstance(table, dict):
        raise BadConfig(key, _("must be a table, not {value}").format(value=_shown(table)),
                        _("write [{key}] with command = \"…\" or url = \"…\"").format(key=key))
    if not _NAME.match(name) or "__" in name:
        raise BadConfig(key, _("a server name is 1-40 letters, digits, '_' or '-', without "
                               "'__'"),
                        _("rename it, e.g. [{key}]").format(key=f"{prefix}.{server_name(name)}"))
    if strict:
        unknown = sorted(set(table) - _SERVER_KEYS)
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], sorted(_SERVER_KEYS), n=1)
            hint = (_("did you mean '{name}'?").format(name=close[0]) if close else
                    _("the keys are {names}").format(
                        names=", ".join(sorted(_SERVER_KEYS - {"type"}))))
            raise BadConfig(f"{key}.{unknown[0]}", _("is not a server setting"), hint)
    transport = table.get("transport", table.get("type"))
    url = table.get("url")
    command = table.get("command")
    if transport is None:
        transport = "http" if url is not None and command is None else "stdio"
    if transport == "streamable-http" or transport == "streamable_http":
        transport = "http"
    if transport not in TRANSPORTS:
        raise BadConfig(f"{key}.transport", _("unknown transport {value:.40}").format(
                            value=repr(transport)),
                        _("use stdio (command), http (url: streamable HTTP) or sse (url)"))
    values: dict[str, Any] = {"name": name, "transport": transport, "origin": origin,
                              "project": project}
    if transport == "stdio":
        if command is None:
            raise BadConfig(f"{key}.command", _("is missing"),
                            _("write {key}.command = \"the server's program\" (or url = \"…\")")
                            .format(key=key))
        values["command"] = _text(command, f"{key}.command", environ)
        if not values["command"].strip():
            raise BadConfig(f"{key}.command", _("is empty"), _("name the server's program"))
        values["args"] = _strings(table.get("args", []), f"{key}.args", environ)
        if table.get("env") is not None:
            values["env"] = _mapping(table["env"], f"{key}.env", environ)
        if table.get("cwd") is not None:
            values["cwd"] = _text(table["cwd"], f"{key}.cwd", environ)
    else:
        if url is None:
            raise BadConfig(f"{key}.url", _("is missing"),
                            _("write {key}.url = \"https://…/mcp\" (or command = \"…\")").format(
                                key=key))
        values["url"] = _text(url, f"{key}.url", environ)
        if not re.match(r"^https?://", values["url"]):
            raise BadConfig(f"{key}.url", _("{value:.60} is not an http(s) URL").format(
                                value=repr(values["url"])),
                            _("write the server's address, e.g. http://127.0.0.1:8000/mcp"))
        if table.get("headers") is not None:
            values["headers"] = _mapping(table["headers"], f"{key}.headers", environ)
    values["init_timeout"] = _seconds(table.get("init_timeout"), f"{key}.init_timeout",
                                      DEFAULT_INIT_TIMEOUT)
    values["call_timeout"] = _seconds(table.get("call_timeout"), f"{key}.call_timeout",
                                      DEFAULT_CALL_TIMEOUT)
    enabled = table.get("enabled")
    if enabled is None and "disabled" in table:  # Claude's spelling
        enabled = not _flag(table.get("disabled"), f"{key}.disabled", False)
    values["enabled"] = _flag(enabled, f"{key}.enabled", True)
    for list_key in ("allow", "deny"):
        if table.get(list_key) is not None:
            values[list_key] = _strings(table[list_key], f"{key}.{list_key}", {})
    protocol = table.get("protocol", "auto")
    if protocol not in ("auto", "legacy"):
        raise BadConfig(f"{key}.protocol", _("must be auto or legacy, not {value:.40}").format(
                            value=repr(protocol)),
                        _("leave it out (auto), or write protocol = \"legacy\" for old servers"))
    values["protocol"] = protocol
    return ServerConfig(**values)


# ------------------------------------------------------------------------------ [mcp]


def options(table: dict[str, Any]) -> McpOptions:
    """The ``[mcp]`` table's settings checked; raises :class:`BadConfig`."""
    unknown = sorted(set(table) - _OPTION_KEYS)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(_OPTION_KEYS), n=1)
        raise BadConfig(f"mcp.{unknown[0]}", _("is not an [mcp] setting"),
                        _("did you mean '{name}'?").format(name=close[0]) if close else
                        _("see the chatcli-mcp README for the settings"))
    mode = table.get("tool_mode", "auto")
    if mode not in TOOL_MODES:
        raise BadConfig("mcp.tool_mode", _("must be one of {names}, not {value:.40}").format(
                            names=", ".join(TOOL_MODES), value=repr(mode)),
                        _("write {key} = {value}").format(key="tool_mode", value='"auto"'))
    share = table.get("max_tool_share", 0.1)
    if isinstance(share, str):
        with contextlib.suppress(ValueError):
            share = float(share)
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise BadConfig("mcp.max_tool_share", _("must be a share from 0 to 1, not {value:.40}")
                        .format(value=repr(share)),
                        _("write max_tool_share = 0.1 (a tenth of the context window)"))
    results = _count(table.get("search_results", 5), "mcp.search_results", 1, 50)
    restarts = _count(table.get("max_restarts", 3), "mcp.max_restarts", 0, 100)
    serve = table.get("serve", {})
    if not isinstance(serve, dict):
        raise BadConfig("mcp.serve", _("must be a table"),
                        _("write {key} = {value}").format(key="[mcp.serve] allow_writes",
                                                          value="false"))
    unknown_serve = sorted(set(serve) - {"allow_writes", "tools"})
    if unknown_serve:
        raise BadConfig(f"mcp.serve.{unknown_serve[0]}", _("is not an [mcp.serve] setting"),
                        _("the settings are allow_writes and tools"))
    return McpOptions(
        tool_mode=mode, max_tool_share=float(share), search_results=results,
        project_files=_flag(table.get("project_files"), "mcp.project_files", True),
        imports=_strings(table.get("import", []), "mcp.import", None),
        max_restarts=restarts,
        prompt_wait=_seconds(table.get("prompt_wait"), "mcp.prompt_wait", 2.0),
        serve_allow_writes=_flag(serve.get("allow_writes"), "mcp.serve.allow_writes", False),
        serve_tools=_strings(serve.get("tools", []), "mcp.serve.tools", {}),
    )


def _count(value: Any, key: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadConfig(key, _("must be a whole number from {low} to {high}, not {value:.40}")
                        .format(low=low, high=high, value=repr(value)),
                        _("write {key} = {value}").format(key=key.rsplit(".", 1)[-1],
                                                          value=max(low, 1)))
    return value


# ------------------------------------------------------------------------------ files


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError:  # (no file: tomllib is not imported for nothing)
        return {}
    import tomllib

    try:
        with handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}  # the kernel reports a config file it cannot read


def _mcp_servers_file(path: Path) -> dict[str, Any]:
    """The ``mcpServers`` object of a JSON file; raises :class:`BadConfig`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadConfig(str(path), _("does not exist"),
                        _("fix the path in [mcp] import, or remove it")) from None
    except (OSError, UnicodeDecodeError) as err:
        raise BadConfig(str(path), _("cannot be read ({reason})").format(reason=err),
                        _("check its permissions")) from None
    except ValueError as err:
        raise BadConfig(str(path), _("is not valid JSON ({reason})").format(reason=err),
                        _("fix the file")) from None
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise BadConfig(f"{path}: mcpServers", "must be an object of servers",
                        'write {"mcpServers": {"name": {"command": "…"}}}')
    return servers


def user_table() -> dict[str, Any]:
    """The ``[mcp]`` table of the user's own config file (where trust is decided)."""
    from chatcli import user_config_path

    table = _read_toml(user_config_path()).get("mcp", {})
    return table if isinstance(table, dict) else {}


def trusted(workspace: Path, host: Any = None) -> bool:
    """Whether the user trusts the project of ``workspace`` as its files are now (``chatcli
    trust``): only then do its servers start. A project cannot trust itself."""
    from chatcli import project_trust

    return project_trust(workspace, host).trusted


def load(settings: Any, workspace: Path, environ: dict[str, str] | None = None,
         host: Any = None) -> Loaded:
    """Every MCP server configured for ``workspace`` (enabled or not); bad entries are left out
    with one line each, and so are a project's servers when the project is not trusted
    (``host``: the plugin host whose control files trust counts; default the command line's)."""
    loaded = Loaded()
    table = settings.plugin_table("mcp")
    try:
        loaded.options = options(table)
    except BadConfig as err:
        loaded.problems.append(err.line)
    servers = table.get("servers", {})
    if not isinstance(servers, dict):
        loaded.problems.append(BadConfig("mcp.servers", _("must be a table of servers"),
                                         _("write [mcp.servers.NAME] tables")).line)
        servers = {}
    from chatcli import project_trust

    state = project_trust(workspace, host)
    root = state.root
    project_servers: dict[str, Any] = {}
    project_origin = ""
    if root is not None:
        project_toml = root / ".chatcli" / "config.toml"
        from chatcli import user_config_path

        if project_toml.resolve() != user_config_path().resolve():
            found = _read_toml(project_toml).get("mcp", {})
            if isinstance(found, dict) and isinstance(found.get("servers"), dict):
                project_servers = found["servers"]
                project_origin = str(project_toml)
    trust = _trusted_with(state, ".chatcli/config.toml")
    candidates: list[ServerConfig] = []
    for name, entry in servers.items():
        # untrusted, the kernel left the project's tables out of the settings: all are the user's
        project = trust and name in project_servers
        try:
            candidates.append(parse_server(
                name, entry, origin=project_origin if project else "settings",
                project=project, environ=environ))
        except BadConfig as err:
            loaded.problems.append(err.line)
    if not trust:  # listed as waiting for trust, never started, ${VAR} left unexpanded
        for name, entry in project_servers.items():
            if name not in servers:
                with contextlib.suppress(BadConfig):
                    loaded.untrusted.append(parse_server(
                        str(name), entry, origin=project_origin, project=True,
                        environ=_Unexpanded(), strict=False))
    for path_text in loaded.options.imports:
        path = Path(expand(path_text, "mcp.import", environ)).expanduser()
        candidates.extend(_from_json(path, loaded, project=False, environ=environ))
    if loaded.options.project_files and root is not None and (root / PROJECT_FILE).is_file():
        mcp_json = root / PROJECT_FILE
        if _trusted_with(state, PROJECT_FILE):
            candidates.extend(_from_json(mcp_json, loaded, project=True, environ=environ))
        else:  # its problems are not the user's to read until they trust it
            waiting = _from_json(mcp_json, Loaded(), project=True, environ=_Unexpanded())
            loaded.untrusted.extend(s for s in waiting if s.name not in servers)
    allowed = allowed_servers(table)
    for server in candidates:
        if server.name in loaded.servers:
            continue  # chatcli's own table first, then imports, then the project's file
        if allowed is not None and server.name not in allowed[1]:  # never started
            loaded.problems.append(not_allowed(server.name, server.origin, allowed[0]))
            continue
        if server.project and not trust:
            loaded.untrusted.append(server)
            continue
        if server.project and server.origin.endswith(PROJECT_FILE):
            # a project never lets its own tools run unasked (the user's allow lists do)
            server = replace(server, allow=())
        loaded.servers[server.name] = server
    return loaded


def allowed_servers(table: dict[str, Any]) -> tuple[str, list[str]] | None:
    """``(what says so, the servers that may start)`` when ``[mcp] allowed_servers`` is set —
    by the managed policy (named by its file: no other layer can change it) or the user —
    else None."""
    from chatcli import managed_list

    managed = managed_list("mcp.allowed_servers")
    if managed is not None:
        return managed[0], managed[1]
    value = table.get("allowed_servers")
    if value is None:
        return None
    return "[mcp] allowed_servers", [str(v) for v in value] if isinstance(value, list) else []


def not_allowed(name: str, origin: str, by: str) -> str:
    """The one line for a server ``allowed_servers`` leaves out."""
    if by.startswith("["):
        return _("MCP server '{name}' ({origin}) is not started: it is not in the allowed "
                 "servers of {setting}").format(name=name, origin=origin, setting=by)
    return _("MCP server '{name}' ({origin}) is not started: it is not in the allowed servers "
             "of the managed policy {file}").format(name=name, origin=origin, file=by)


class _Unexpanded(dict):  # type: ignore[type-arg]
    """An environment in which every ``${VAR}`` stays as written (an untrusted file's
    servers are shown, never started: nothing of the environment goes into them)."""

    def get(self, key: Any, default: Any = None) -> Any:
        return f"${{{key}}}"


class _ProjectEnviron(dict):  # type: ignore[type-arg]
    """The environment a project's server expands ``${VAR}`` from: every variable but those
    that look like secrets (``chatcli_workspace.is_secret_variable``: API keys, tokens,
    passwords). A project — even a trusted one — never sends the user's keys to a program or
    address of its choosing; the user's own ``[mcp.servers]`` tables can."""

    def __init__(self, environ: Any, server: str) -> None:
        super().__init__(environ)
        self.server = server

    def get(self, key: Any, default: Any = None) -> Any:
        from chatcli_workspace import is_secret_variable

        value = super().get(key)
        if value is not None and is_secret_variable(str(key), str(value)):
            raise BadConfig(self.server, _("${{{name}}} holds a secret, which a project's server "
                                           "cannot read").format(name=key),
                            _("configure the server in your own config (chatcli mcp add, or "
                              "[mcp.servers.NAME] in `chatcli config path`)"))
        return value if value is not None else default


def _trusted_with(state: Any, name: str) -> bool:
    """Whether the project's file ``name`` may be used: the project is trusted and the file
    was among those trusted (one that was not counted — read by a caller without the plugin
    host — is not)."""
    if state.root is None:
        return True
    if not state.trusted:
        return False
    return name in state.files or not (state.root / name).is_file()


def _from_json(path: Path, loaded: Loaded, *, project: bool,
               environ: dict[str, str] | None) -> list[ServerConfig]:
    try:
        servers = _mcp_servers_file(path)
    except BadConfig as err:
        loaded.problems.append(err.line)
        return []
    out = []
    for raw, entry in servers.items():
        name = server_name(str(raw))
        try:
            out.append(parse_server(name, entry, origin=str(path), project=project,
                                    prefix=f"{path}: mcpServers", environ=environ,
                                    strict=False))
        except BadConfig as err:
            loaded.problems.append(err.line)
    return out
