"""One MCP server's connection, owned by the background loop.

:meth:`Connection.start` returns at once; the loop connects (stdio, streamable HTTP or legacy
SSE, through the SDK's high-level ``Client``), lists the tools, prompts and resources page by
page, and keeps the session open until :meth:`Connection.stop` or the connection ends. The
handshake must finish within ``init_timeout``; a server that fails to start, does not answer in
time or dies is restarted with a growing pause (1, 2, 4 … s) at most ``max_restarts`` times in a
row. ``tools/list_changed`` (and the prompts' and resources') re-lists and tells the manager.
The server's stderr goes to a log file, never to the terminal.

The SDK is imported here, when the first server starts.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_mcp.results import ToolFailed, one_line
from chatcli_mcp.runtime import Cancelled, Loop, TimedOut

if TYPE_CHECKING:
    from chatcli_mcp.settings import ServerConfig

__all__ = ["Connection", "Listing"]

_, ngettext = translation(__name__)

#: Pages of one list read at most (a paginator that never ends cannot hang a start).
MAX_PAGES = 100
#: The longest pause between restarts.
MAX_BACKOFF = 60.0
#: A call waits for a restart due within this many seconds (instead of failing at once).
RESTART_WAIT = 5.0
#: Seconds a call's result waits for the re-listing a change notification during it started.
REFRESH_WAIT = 5.0
#: Seconds the start waits for a 2026 server to acknowledge the change subscription.
LISTEN_WAIT = 5.0
#: On a 2026 connection a change is announced on the subscription stream, which may come just
#: after the call's answer: the answer waits this long for it.
NOTICE_GRACE = 0.05


@dataclass(frozen=True)
class Listing:
    """What a server offers (the SDK's objects, as it sent them)."""

    tools: tuple[Any, ...] = ()
    prompts: tuple[Any, ...] = ()
    resources: tuple[Any, ...] = ()
    templates: tuple[Any, ...] = ()


def _describe(err: BaseException) -> str:
    """One line for what went wrong (an exception group: its first real member)."""
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        real = [e for e in err.exceptions if not _is_cancel(e)]
        err = (real or list(err.exceptions))[0]
    if isinstance(err, FileNotFoundError | PermissionError):
        return _("cannot run it: {reason}: {path}").format(reason=err.strerror,
                                                           path=err.filename)
    text = str(err).strip() or type(err).__name__
    name = type(err).__name__
    return one_line(text if name in text or name in ("MCPError", "RuntimeError") else
                    f"{name}: {text}", 300)


def _is_cancel(err: BaseException) -> bool:
    import anyio

    return isinstance(err, anyio.get_cancelled_exc_class())


class _Watched:
    """A transport's read stream that sets ``ended`` when the stream ends (the server's stdout
    closed: it exited or crashed), so a dead server is noticed without a request failing."""

    def __init__(self, stream: Any, ended: Any) -> None:
        self._stream, self._ended = stream, ended

    def _end(self) -> None:
        self._ended.set()

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._end()
            raise

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self._stream.__anext__()
        except (StopAsyncIteration, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._end()
            raise

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _Watched:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        self._end()
        return await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:  # ``last_context`` and friends
        return getattr(self._stream, name)


@contextlib.asynccontextmanager
async def _watched(transport: Any, ended: Any) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _Watched(read_stream, ended), write_stream


@contextlib.asynccontextmanager
async def _http(url: str, headers: dict[str, str], ended: Any
                ) -> AsyncIterator[tuple[Any, Any]]:
    """Streamable HTTP with the configured headers (the SDK takes them on an httpx2 client)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=headers or None, timeout=httpx2.Timeout(30.0, read=300.0))
    async with client, _watched(streamable_http_client(url, http_client=client),
                                ended) as streams:
        yield streams


#: Variables the settings name as API keys (``[providers.X] api_key_env``), kept from servers.
SECRET_NAMES: tuple[str, ...] = ()


def server_env(configured: Any) -> dict[str, str]:
    """A stdio server's environment: chatcli's without API keys and secret-looking variables
    (:func:`chatcli_workspace.scrubbed_env`), plus what its configuration's ``env`` names (the
    way to hand a server a token: ``env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }``)."""
    from chatcli_workspace import scrubbed_env

    return {**scrubbed_env(extra_secret_names=SECRET_NAMES), **dict(configured or ())}


class Connection:
    """One configured server: its state, what it offers, and the calls made to it."""

    def __init__(self, config: ServerConfig, loop: Loop, *, workspace: Path, log_dir: Path,
                 max_restarts: int = 3,
                 on_change: Callable[[Connection, str], None] | None = None) -> None:
        self.config = config
        self.loop = loop
        self.workspace = workspace
        self.log_path = log_dir / f"{config.name}.log"
        self.max_restarts = max_restarts
        self.on_change = on_change
        #: idle, starting, ready, restarting, failed, stopped
        self.state = "idle"
        self.listing = Listing()
        self.error: str | None = None
        self.handshake: float | None = None
        self.version: str | None = None
        self.server_name: str | None = None
        self.instructions: str | None = None
        #: consecutive failures (reset by a successful start)
        self.failures = 0
        self.restarts = 0
        self.next_retry: float | None = None
        self.ever_ready = False
        #: the last loss was found by a call (which reported it already)
        self.lost_in_call = False
        self._client: Any = None
        self._scope: Any = None
        self._ended: Any = None
        self._wake: Any = None
        self._group: Any = None
        self._refreshing: Any = None
        self._stopping = False
        self._settled = threading.Event()
        self._future: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.config.name

    # ------------------------------------------------------------------ from any thread

    def start(self) -> None:
        """Start connecting (in the background) unless it is already up or on its way."""
        with self._lock:
            if self._future is not None and not self._future.done():
                return
            self._stopping = False
            self.state = "starting"
            self.failures = 0
            self._settled.clear()
            self._future = self.loop.submit(self._main())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the first start attempt settled (ready, failed or waiting to retry);
        True when it is ready."""
        self._settled.wait(timeout)
        return self.state == "ready"

    def ensure(self, timeout: float | None = None) -> bool:
        """Start it if needed and wait for it; True when it is ready."""
        if self.state == "ready":
            return True
        if self.state in ("idle", "stopped"):  # a given-up server waits for /mcp restart
            self.start()
        retry = self.next_retry
        if self.state == "restarting" and retry is not None and (
                retry - time.monotonic() <= RESTART_WAIT):
            while self.state == "restarting" and time.monotonic() < retry + 1.0:
                time.sleep(0.05)  # a restart is due in a moment: the call waits for it
        if self.state != "starting":
            return self.state == "ready"
        return self.wait(self.config.init_timeout + 5 if timeout is None else timeout)

    def stop(self) -> None:
        """Ask the connection to end (the session closes, the server is stopped)."""
        self._stopping = True
        if self.loop.running:
            with contextlib.suppress(RuntimeError):
                self.loop.call(self._stop_on_loop)

    def join(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for :meth:`stop` to finish."""
        future = self._future
        if future is not None and not future.done():
            with contextlib.suppress(Exception):
                future.result(timeout=timeout)

    def unavailable(self) -> str:
        """Why it cannot be used now, for the model and the person (one line)."""
        # i18n: {why} is ": " and the error, or nothing
        why = f": {self.error}" if self.error else ""
        if self.state == "starting":
            return _("MCP server '{name}' is still starting").format(name=self.name)
        if self.state == "restarting":
            wait = max(0.0, (self.next_retry or time.monotonic()) - time.monotonic())
            return _("MCP server '{name}' is not running{why}; chatcli restarts it in "
                     "{seconds:.0f} s (attempt {attempt} of {most}); its log: {log}").format(
                         name=self.name, why=why, seconds=wait, attempt=self.failures,
                         most=self.max_restarts, log=self.log_path)
        if self.state == "failed":
            return ngettext("MCP server '{name}' is not running{why}; it was restarted {count} "
                            "times and is given up on (/mcp restart {name} tries again); its "
                            "log: {log}",
                            "MCP server '{name}' is not running{why}; it was restarted {count} "
                            "times and is given up on (/mcp restart {name} tries again); its "
                            "log: {log}", self.max_restarts).format(
                                name=self.name, why=why, count=self.max_restarts,
                                log=self.log_path)
        return _("MCP server '{name}' is not running{why}").format(name=self.name, why=why)

    def call_tool(self, tool: str, arguments: dict[str, Any], *,
                  cancel: threading.Event | None = None, timeout: float | None = None) -> Any:
        """Call ``tool``; the SDK's ``CallToolResult``. Raises :class:`ToolFailed`."""
        if not self.ensure():
            raise ToolFailed(self.unavailable())
        seconds = self.config.call_timeout if timeout is None else timeout
        try:
            return self.loop.run(self._call(tool, arguments, seconds), timeout=seconds + 5,
                                 cancel=cancel)
        except Cancelled:
            raise ToolFailed(_("stopped: the user interrupted the call to '{tool}'").format(
                tool=tool)) from None
        except TimedOut:
            raise ToolFailed(_("MCP server '{name}' did not answer '{tool}' within {seconds:g} s")
                             .format(name=self.name, tool=tool, seconds=seconds)) from None

    def request(self, method: str, *args: Any, timeout: float | None = None,
                cancel: threading.Event | None = None) -> Any:
        """Another request (``get_prompt``, ``read_resource`` …) of the SDK's ``Client``.
        Raises :class:`ToolFailed`."""
        if not self.ensure():
            raise ToolFailed(self.unavailable())
        seconds = self.config.call_timeout if timeout is None else timeout
        try:
            return self.loop.run(self._request(method, args, seconds), timeout=seconds + 5,
                                 cancel=cancel)
        except Cancelled:
            raise ToolFailed(_("stopped by the user")) from None
        except TimedOut:
            raise ToolFailed(_("MCP server '{name}' did not answer within {seconds:g} s").format(
                name=self.name, seconds=seconds)) from None

    # ------------------------------------------------------------------ on the loop

    def _changed(self, what: str) -> None:
        if self.on_change is not None:
            with contextlib.suppress(Exception):  # a listener's bug must not end the connection
                self.on_change(self, what)

    def _stop_on_loop(self) -> None:
        if self._ended is not None:
            self._ended.set()
        if self._wake is not None:
            self._wake.set()
        if self._scope is not None and self.state == "starting":
            self._scope.cancel()

    def _stop_asked(self) -> bool:
        # a call, not the attribute: stop() sets it from another thread while _main awaits,
        # and a type checker would keep the attribute narrowed to False across the await
        return self._stopping

    async def _main(self) -> None:
        import anyio

        self._wake = anyio.Event()
        try:
            while True:
                await self._connect_once()
                if self._stop_asked():
                    self.state = "stopped"
                    return
                self.failures += 1
                if self.failures > self.max_restarts:
                    self.state = "failed"
                    self.next_retry = None
                    self._settled.set()
                    self._changed("failed")
                    return
                delay = min(MAX_BACKOFF, 2.0 ** (self.failures - 1))
                self.state = "restarting"
                self.next_retry = time.monotonic() + delay
                self._settled.set()
                self._changed("down")
                with anyio.move_on_after(delay):
                    await self._wake.wait()
                if self._stop_asked():
                    self.state = "stopped"
                    return
                self.restarts += 1
                self._settled.clear()  # a call now waits for this attempt
                self.state = "starting"
        except BaseException:
            self.state = "stopped"
            raise
        finally:
            self._settled.set()

    def _transport(self, ended: Any, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = stack.enter_context(open(self.log_path, "a", encoding="utf-8"))  # noqa: SIM115
            log.write(f"--- chatcli starts {config.where} at {time.strftime('%Y-%m-%d %H:%M:%S')}"
                      "\n")
            log.flush()
            params = StdioServerParameters(command=config.command or "", args=list(config.args),
                                           env=server_env(config.env),
                                           cwd=config.cwd or str(self.workspace))
            return _watched(stdio_client(params, errlog=log), ended)
        headers = dict(config.headers)
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return _watched(sse_client(config.url or "", headers=headers or None,
                                       timeout=min(30.0, config.init_timeout)), ended)
        return _http(config.url or "", headers, ended)

    async def _connect_once(self) -> None:
        import anyio
        import chatcli
        from mcp import Client
        from mcp.types import Implementation

        config = self.config
        started = time.monotonic()
        ended = self._ended = anyio.Event()
        ready = False
        problem: str | None = None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                scope.deadline = anyio.current_time() + config.init_timeout
                async with contextlib.AsyncExitStack() as stack:
                    client = Client(
                        self._transport(ended, stack),
                        mode=config.protocol, cache=None, message_handler=self._on_message,
                        client_info=Implementation(name="chatcli", version=chatcli.__version__))
                    await stack.enter_async_context(client)
                    listing = await self._list(client)
                    scope.deadline = math.inf
                    async with anyio.create_task_group() as group:
                        self._group = group
                        if self._modern(client):  # subscribed before anyone calls a tool
                            await group.start(self._listen, client)
                        self._client = client
                        self.handshake = time.monotonic() - started
                        self.version = client.protocol_version
                        info = client.server_info
                        self.server_name = getattr(info, "name", None)
                        self.instructions = client.instructions
                        changed = listing != self.listing
                        self.listing = listing
                        self.state, self.error, self.failures = "ready", None, 0
                        self.lost_in_call = False
                        self.next_retry = None
                        ready = self.ever_ready = True
                        self._settled.set()
                        self._changed("ready" if not changed else "tools")
                        await ended.wait()
                        group.cancel_scope.cancel()
            if scope.cancelled_caught and not ready and not self._stopping:
                problem = _("it did not finish the MCP handshake within {seconds:g} s "
                            "(init_timeout)").format(seconds=config.init_timeout)
        except Exception as err:
            problem = _describe(err)
        finally:
            self._client = self._group = self._scope = None
        if self._stopping:
            return
        if ready:
            problem = problem or _("the connection closed (the server exited or crashed)")
            tail = self._log_tail()
            self.error = (_("{problem} — its last log line: {line}").format(problem=problem,
                                                                            line=tail)
                          if tail else problem)
        else:
            self.error = problem or _("the connection closed during the handshake")

    def _log_tail(self) -> str:
        if self.config.transport != "stdio":
            return ""
        try:
            with open(self.log_path, "rb") as handle:
                handle.seek(0, 2)
                size = handle.tell()
                handle.seek(max(0, size - 2_000))
                lines = handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        lines = [line for line in lines if line.strip() and not line.startswith("--- chatcli")]
        return one_line(lines[-1], 160) if lines else ""

    @staticmethod
    def _modern(client: Any) -> bool:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        return client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def _list(self, client: Any) -> Listing:
        capabilities = client.server_capabilities
        tools = await _pages(lambda cursor: client.list_tools(cursor=cursor), "tools")
        prompts: list[Any] = []
        resources: list[Any] = []
        templates: list[Any] = []
        if getattr(capabilities, "prompts", None) is not None:
            prompts = await _quiet(_pages(lambda c: client.list_prompts(cursor=c), "prompts"))
        if getattr(capabilities, "resources", None) is not None:
            resources = await _quiet(_pages(lambda c: client.list_resources(cursor=c),
                                            "resources"))
            templates = await _quiet(_pages(
                lambda c: client.list_resource_templates(cursor=c), "resource_templates"))
        return Listing(tuple(tools), tuple(prompts), tuple(resources), tuple(templates))

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        group = self._group
        if group is None or not isinstance(method, str) or not method.endswith("/list_changed"):
            return
        import anyio

        done = self._refreshing = anyio.Event()
        group.start_soon(self._refresh, done)

    async def _refresh(self, done: Any) -> None:
        client = self._client
        try:
            if client is None:
                return
            try:
                listing = await self._list(client)
            except Exception as err:
                self.error = _("re-listing after a change failed: {reason}").format(
                    reason=_describe(err))
                return
            if listing != self.listing:
                self.listing = listing
                self._changed("tools")
        finally:
            done.set()

    async def _settle_refresh(self) -> None:
        """A change announced during a call is listed before its result is given back, so the
        next model call already sees the new tools."""
        import anyio

        client = self._client
        if client is not None and self._modern(client) and getattr(
                getattr(client.server_capabilities, "tools", None), "list_changed", False):
            await anyio.sleep(NOTICE_GRACE)
        done = self._refreshing
        if done is not None and not done.is_set():
            with anyio.move_on_after(REFRESH_WAIT):
                await done.wait()

    async def _listen(self, client: Any, *, task_status: Any = None) -> None:
        """On a 2026 connection change notifications need a ``subscriptions/listen`` stream;
        the session's message handler sees what it delivers. Started once the server
        acknowledged it (at most :data:`LISTEN_WAIT` seconds), so no change is missed."""
        import anyio

        stream = client.listen(tools_list_changed=True, prompts_list_changed=True,
                               resources_list_changed=True)
        subscription = None
        try:
            with anyio.move_on_after(LISTEN_WAIT), contextlib.suppress(Exception):
                subscription = await stream.__aenter__()
        finally:
            if task_status is not None:
                task_status.started()
        if subscription is None:
            return
        try:
            with contextlib.suppress(Exception):
                async for _event in subscription:
                    pass
        finally:
            with contextlib.suppress(Exception):
                await stream.__aexit__(None, None, None)

    async def _call(self, tool: str, arguments: dict[str, Any], seconds: float) -> Any:
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        client = self._client
        if client is None:
            raise ToolFailed(self.unavailable())
        try:
            result = await client.call_tool(tool, arguments, read_timeout_seconds=seconds)
            await self._settle_refresh()
            return result
        except MCPError as err:
            if err.code == CONNECTION_CLOSED:
                self._lost()
                raise ToolFailed(_("MCP server '{name}' stopped during the call to '{tool}' "
                                   "(the connection closed); chatcli restarts it — try again in "
                                   "a moment; its log: {log}").format(
                                       name=self.name, tool=tool, log=self.log_path)) from None
            if err.code == REQUEST_TIMEOUT:
                raise ToolFailed(_("MCP server '{name}' did not answer '{tool}' within "
                                   "{seconds:g} s").format(name=self.name, tool=tool,
                                                           seconds=seconds)) from None
            raise ToolFailed(_("MCP server '{name}' refused the call: {message} (error {code})")
                             .format(name=self.name, message=one_line(err.message, 600),
                                     code=err.code)) from None
        except ToolFailed:
            raise
        except Exception as err:
            if _transport_error(err):
                self._lost()
                raise ToolFailed(_("MCP server '{name}' could not be reached: {reason}; chatcli "
                                   "reconnects — try again in a moment").format(
                                       name=self.name, reason=_describe(err))) from None
            raise ToolFailed(_("the call to '{tool}' failed: {reason}").format(
                tool=tool, reason=_describe(err))) from None

    async def _request(self, method: str, args: tuple[Any, ...], seconds: float) -> Any:
        import anyio
        from mcp import MCPError

        client = self._client
        if client is None:
            raise ToolFailed(self.unavailable())
        try:
            with anyio.fail_after(seconds):
                return await getattr(client, method)(*args)
        except MCPError as err:
            raise ToolFailed(_("MCP server '{name}': {message} (error {code})").format(
                name=self.name, message=one_line(err.message, 600), code=err.code)) from None
        except TimeoutError:
            raise ToolFailed(_("MCP server '{name}' did not answer within {seconds:g} s").format(
                name=self.name, seconds=seconds)) from None
        except Exception as err:
            if _transport_error(err):
                self._lost()
            raise ToolFailed(_("MCP server '{name}': {reason}").format(
                name=self.name, reason=_describe(err))) from None

    def _lost(self) -> None:
        """The connection broke during a request: say so at once (the restart follows)."""
        self.lost_in_call = True
        if self.state == "ready":
            self.state = "restarting"
            self.next_retry = time.monotonic() + min(MAX_BACKOFF, 2.0 ** self.failures)
        if self._ended is not None:
            self._ended.set()


def _transport_error(err: BaseException) -> bool:
    import httpx2

    return isinstance(err, OSError | httpx2.TransportError | EOFError) or type(
        err).__module__.startswith("anyio")


async def _pages(fetch: Callable[[str | None], Any], field: str) -> list[Any]:
    """Every item of a paginated list (``next_cursor``), at most :data:`MAX_PAGES` pages."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        items.extend(getattr(page, field, None) or [])
        cursor = getattr(page, "next_cursor", None)
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return items


async def _quiet(coroutine: Any) -> list[Any]:
    """A list a server may fail to give (its prompts or resources): empty then."""
    from mcp import MCPError

    try:
        found: list[Any] = await coroutine
        return found
    except MCPError:
        return []
