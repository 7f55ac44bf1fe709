"""Every MCP server of the run: loading the configuration, starting the servers in parallel on
first need, the chatcli tools they become, the lines the person sees, and shutting down.

One :class:`Manager` per process (:func:`manager`). The plugin's hooks call it; it never imports
the SDK itself (:mod:`chatcli_mcp.connection` does, when the first server starts).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_mcp.results import tool_name
from chatcli_mcp.settings import Loaded, McpOptions, ServerConfig

if TYPE_CHECKING:
    from chatcli import PluginHost, Settings, Tool

    from chatcli_mcp.connection import Connection

__all__ = ["Manager", "McpTool", "manager"]

_, ngettext = translation(__name__)

#: Seconds after the last ``session_end`` before the servers are stopped (a conversation that
#: replaces another — ``/session new``, ``/fork`` — begins right away and keeps them).
RELEASE_GRACE = 1.0
#: Seconds a shutdown waits for the servers (each stdio server: stdin closed, then SIGTERM and
#: SIGKILL by the SDK, all bounded).
SHUTDOWN_TIMEOUT = 6.0


@dataclass(frozen=True)
class McpTool:
    """A chatcli tool that is an MCP server's tool."""

    name: str
    server: str
    tool: str
    description: str
    schema: dict[str, Any]


def _schema(raw: Any) -> dict[str, Any]:
    schema = dict(raw) if isinstance(raw, dict) else {}
    if schema.get("type") != "object":
        schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


class Manager:
    """The servers, their tools, and what the person is told about them."""

    def __init__(self) -> None:
        from chatcli_mcp.runtime import Loop

        self.loop = Loop()
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        self.loaded: Loaded | None = None
        self.connections: dict[str, Connection] = {}
        #: ``chatcli mcp serve``: this process offers tools, it starts no servers
        self.serving = False
        self.configured = False
        self._tools: dict[str, McpTool] = {}
        self._pending: list[str] = []
        self._said: set[str] = set()
        self._lock = threading.RLock()
        self._release: threading.Timer | None = None
        self._atexit = False
        self._dirty = False
        #: called with no argument when the set of tools changed (host.tools_changed)
        self.listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ set-up

    def configure(self, host: PluginHost | None, settings: Settings, workspace: Path) -> None:
        """The run's host, settings and workspace (the configuration is read on first need)."""
        with self._lock:
            same = self.settings is settings or (
                self.settings is not None
                and self.settings.plugin_table("mcp") == settings.plugin_table("mcp"))
            if self.configured and self.workspace == workspace and same:
                # the same servers (a session opened after `chatcli -p "/…"` listed the
                # prompt commands): they keep running
                self.host, self.settings = host or self.host, settings
                return
            running = bool(self.connections)
        if running:  # not under the lock: the loop's thread takes it to report changes
            self.stop_servers()
        with self._lock:
            self.connections = {}
            self.host, self.settings, self.workspace = host, settings, workspace
            self.loaded = None
            self.configured = True

    def ensure_configured(self) -> bool:
        """Configured by a session, or (a slash command before any session) from the
        settings on disk; False when the settings cannot be read."""
        if self.configured:
            return True
        try:
            from chatcli import load_settings

            self.configure(self.host, load_settings(), Path.cwd().resolve())
        except Exception:
            return False
        return True

    @property
    def options(self) -> McpOptions:
        return self.load().options

    def load(self) -> Loaded:
        """The configuration, read once: servers, problems (said once), untrusted servers."""
        with self._lock:
            if self.loaded is not None:
                return self.loaded
            from chatcli_mcp import settings as mcp_settings

            if self.settings is None or self.workspace is None or self.serving:
                self.loaded = Loaded()
                return self.loaded
            loaded = mcp_settings.load(self.settings, self.workspace, host=self.host)
            self.loaded = loaded
            for line in loaded.problems:
                self.say(f"mcp: {line}")
            # (servers of an untrusted project: the kernel's one line at session start names
            # its .mcp.json; /mcp and `chatcli mcp list` show them)
            self._make_connections(loaded)
            return loaded

    def _make_connections(self, loaded: Loaded) -> None:
        from chatcli import cache_dir
        from chatcli_workspace import secret_names_in_settings

        from chatcli_mcp import connection
        from chatcli_mcp.connection import Connection

        connection.SECRET_NAMES = secret_names_in_settings(self.settings)[0]  # kept from servers
        logs = cache_dir() / "mcp" / "logs"
        for name, server in loaded.servers.items():
            if not server.enabled:
                continue
            self.connections[name] = Connection(
                server, self.loop, workspace=self.workspace or Path.cwd(), log_dir=logs,
                max_restarts=loaded.options.max_restarts, on_change=self._changed)
        if self.connections and not self._atexit:
            atexit.register(self.shutdown)
            self._atexit = True

    # ------------------------------------------------------------------ the person's lines

    def say(self, line: str) -> None:
        """Queue a line for the person (shown by :meth:`flush` on the turn's thread; each
        distinct line once while it holds)."""
        with self._lock:
            if line in self._said:
                return
            self._said.add(line)
            self._pending.append(line)

    def flush(self) -> None:
        """Show the queued lines (``chatcli: warning: …`` on stderr, or the chat's own)."""
        with self._lock:
            lines, self._pending = self._pending, []
        for line in lines:
            if self.host is not None:
                self.host.warn(line)
            else:
                import sys

                print(_("chatcli: warning: {message}").format(message=line), file=sys.stderr)

    def _changed(self, connection: Connection, what: str) -> None:
        """A connection's state or lists changed (called on the loop's thread)."""
        name = connection.name
        if what == "down" or what == "failed":
            self.say(f"mcp: {connection.unavailable()}")
        elif what in ("ready", "tools"):
            if connection.restarts and what == "ready":
                self.say(_("mcp: MCP server '{name}' is running again").format(name=name))
            with self._lock:  # a later failure is news again
                self._said = {s for s in self._said if f"'{name}'" not in s}
            from chatcli_mcp import prompts

            prompts.remember(connection)
        if what in ("ready", "tools", "failed"):
            # never from the loop's thread: the host's lock may be held by a thread that waits
            # for this loop (register_tools waiting for a server to start)
            self._dirty = True
            threading.Thread(target=self.apply_changes, name="chatcli-mcp-changed",
                             daemon=True).start()

    def apply_changes(self) -> None:
        """Tell the host about tool changes the loop noticed (from any thread but the loop's)."""
        if self._dirty:
            self._dirty = False
            self.tools_changed()

    def tools_changed(self) -> None:
        """The set of MCP tools (or whether they are offered) changed: ask for them again."""
        if self.host is not None:
            self.host.tools_changed()
        for listener in list(self.listeners):
            listener()

    # ------------------------------------------------------------------ starting

    def start(self, names: list[str] | None = None, wait: float | None = None) -> None:
        """Start the servers (all, or ``names``) side by side; wait for each at most its
        ``init_timeout`` (or ``wait`` seconds for all of them)."""
        self.load()
        chosen = [c for n, c in self.connections.items() if names is None or n in names]
        for connection in chosen:
            if connection.state in ("idle", "stopped"):
                connection.start()
        deadline = None if wait is None else time.monotonic() + wait
        for connection in chosen:
            left = (connection.config.init_timeout + 5 if deadline is None
                    else max(0.0, deadline - time.monotonic()))
            connection.wait(left)

    def connection(self, name: str) -> Connection | None:
        self.load()
        return self.connections.get(name)

    # ------------------------------------------------------------------ tools

    def mcp_tools(self) -> dict[str, McpTool]:
        """The MCP tools the servers offer now (known lists of servers that went down
        included, so a call gets a clear error rather than "unknown tool")."""
        found: dict[str, McpTool] = {}
        for server, connection in self.connections.items():
            config = connection.config
            for tool in connection.listing.tools:
                raw = getattr(tool, "name", None)
                if not isinstance(raw, str) or config.denies(raw):
                    continue
                name = tool_name(server, raw)
                if name in found:
                    continue
                description = (getattr(tool, "description", None) or getattr(tool, "title", None)
                               or f"{raw} (a tool of the MCP server {server})")
                found[name] = McpTool(name, server, raw, description.strip(),
                                      _schema(getattr(tool, "input_schema", None)))
        with self._lock:
            self._tools = found
        return found

    def find(self, name: str) -> McpTool | None:
        """The MCP tool a chatcli tool name stands for."""
        return self._tools.get(name) or self.mcp_tools().get(name)

    def allowed(self, name: str) -> bool:
        """Whether the user allowed this MCP tool to run without asking (``allow`` list)."""
        found = self.find(name)
        if found is None:
            return False
        connection = self.connections.get(found.server)
        return connection is not None and connection.config.allows(found.tool)

    def chatcli_tools(self) -> list[Tool]:
        """The chatcli :class:`Tool` of every MCP tool (risk ``execute``: each call is asked
        unless the user allowed the server or the tool)."""
        from chatcli import Risk, Tool

        tools = []
        for item in self.mcp_tools().values():
            tools.append(Tool(name=item.name, description=item.description,
                              parameters=item.schema, risk=Risk.EXECUTE,
                              run=_Runner(self, item)))
        return tools

    def call(self, item: McpTool, arguments: dict[str, Any], context: Any) -> str:
        """Run one MCP tool call for the engine; the text for the model."""
        from chatcli import cache_dir

        from chatcli_mcp.results import ToolFailed, render_result

        connection = self.connections.get(item.server)
        if connection is None:
            raise ToolFailed(_("MCP server '{name}' is not configured any more").format(
                name=item.server))
        try:
            result = connection.call_tool(item.tool, dict(arguments),
                                          cancel=getattr(context, "cancel", None))
        except ToolFailed as err:
            if connection.state != "ready":
                self.say(f"mcp: {err}")
                self.flush()
            raise
        finally:
            self.apply_changes()  # a tool list changed during the call: the next call sees it
        return render_result(result, cache_dir() / "mcp" / "media")

    # ------------------------------------------------------------------ the end

    def retain(self) -> None:
        """A conversation began: a pending stop is called off."""
        with self._lock:
            if self._release is not None:
                self._release.cancel()
                self._release = None

    def release(self) -> None:
        """A conversation ended: stop the servers soon unless another one begins."""
        with self._lock:
            if not self.connections or self._release is not None:
                return
            timer = threading.Timer(RELEASE_GRACE, self._released)
            timer.daemon = True
            self._release = timer
            timer.start()

    def _released(self) -> None:
        with self._lock:
            if self._release is None:
                return
            self._release = None
        self.stop_servers()

    def stop_servers(self, timeout: float = SHUTDOWN_TIMEOUT) -> None:
        """Stop every server (they start again on the next need)."""
        connections = list(self.connections.values())
        for connection in connections:
            connection.stop()
        deadline = time.monotonic() + timeout
        for connection in connections:
            connection.join(max(0.0, deadline - time.monotonic()))

    def shutdown(self) -> None:
        """Stop the servers and the loop (at exit: bounded, never hangs)."""
        self.retain()
        self.stop_servers()
        self.loop.stop()


class _Runner:
    """A Tool's ``run`` for one MCP tool (a class, so the tool's repr names it)."""

    def __init__(self, owner: Manager, item: McpTool) -> None:
        self.owner, self.item = owner, item

    def __call__(self, arguments: Any, context: Any) -> str:
        return self.owner.call(self.item, arguments, context)

    def __repr__(self) -> str:
        return f"<MCP tool {self.item.tool!r} of {self.item.server!r}>"


_MANAGER: Manager | None = None
_MANAGER_LOCK = threading.Lock()


def manager() -> Manager:
    """The process's manager."""
    global _MANAGER
    with _MANAGER_LOCK:
        if _MANAGER is None:
            _MANAGER = Manager()
        return _MANAGER


def server_configs() -> dict[str, ServerConfig]:
    """The configured (trusted) servers of the process's manager."""
    return manager().load().servers
