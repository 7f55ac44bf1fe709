"""``chatcli serve``: the HTTP server (``chatcli serve [--host H] [--port P] …``) and its tokens
(``chatcli serve token create|list|revoke``).

The server binds its own socket (``--port 0`` picks a free port, written to ``--port-file``),
listens on 127.0.0.1 unless told otherwise — another address needs ``--cert/--key`` (TLS) — and
refuses to start without a token or without chatcli-sessions' ``session_catalog``. uvicorn runs
it; SIGINT/SIGTERM stop it cleanly, closing every live session.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import click
from chatcli import (
    ChatcliError,
    UsageError,
    atomic_write,
    cli_host,
    error_line,
    load_settings,
    translation,
)
from chatcli_cli import one_line_errors

from chatcli_remote.serve.tokens import TokenStore, token

__all__ = ["serve"]

_, ngettext = translation(__name__)

#: ``limit_concurrency``: connections (SSE watchers included) before uvicorn answers 503.
DEFAULT_MAX_CONNECTIONS = 1000
#: seconds a thread may hold the GIL while another waits (CPython: 0.005)
SWITCH_INTERVAL = 0.0005


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as err:
        sock.close()
        raise UsageError(_("cannot listen on {host}:{port}: {reason}").format(
            host=host, port=port, reason=err.strerror or err),
            _("pick another --port (0 takes a free one)")) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _refusals(host: str, cert: Path | None, key: Path | None, store: TokenStore) -> None:
    if (cert is None) != (key is None):
        raise UsageError(_("--cert and --key go together"),
                         _("give both files (PEM) or neither"))
    if not is_loopback(host) and cert is None:
        raise UsageError(
            _("--host {host} would serve over plain HTTP to the network").format(host=host),
            _("add --cert FILE --key FILE (TLS), or keep the default 127.0.0.1"))
    if not store.usable():
        raise UsageError(_("no token can use this server yet"),
                         _("create one: chatcli serve token create --name NAME --root DIR"))


def _run(ctx: click.Context, host: str, port: int, port_file: Path | None, cert: Path | None,
         key: Path | None, workspace: Path | None) -> None:
    store = TokenStore()
    _refusals(host, cert, key, store)
    plugin_host = cli_host(ctx)
    caller = getattr(plugin_host.hook, "session_catalog", None)
    catalog = caller() if caller is not None else None
    if catalog is None:
        raise UsageError(
            _("chatcli serve needs saved sessions, and chatcli-sessions is not loaded"),
            _("install or enable it: pip install chatcli-sessions"))
    folder = (workspace or Path.cwd()).expanduser().resolve()
    settings = load_settings(cwd=folder)
    table = settings.plugin_table("serve")

    from chatcli_remote.hub import Hub
    from chatcli_remote.serve.app import Limits, build_app
    from chatcli_remote.serve.limits import settings_int

    limits = Limits.from_table(table)  # every setting checked before anything starts
    connections = settings_int(table, "max_connections", DEFAULT_MAX_CONNECTIONS)
    idle = float(settings_int(table, "idle_seconds", 900))
    replay = settings_int(table, "replay_events", 20_000)
    approval_timeout = float(settings_int(table, "approval_timeout", 600))
    # plugins get the server's settings now, not at the first session: the session store a
    # plugin registers ([sessions] backend = "postgres") is then known to the catalog from the
    # first request on (a replica's first request may list or continue a stored session)
    plugin_host.configure(settings, folder)
    sock = _bind(host, port)
    hub = Hub(plugin_host, settings, idle_seconds=idle, replay_events=replay,
              approval_timeout=approval_timeout, catalog=catalog)
    app = build_app(hub, catalog, plugin_host, store, limits)
    try:
        _serve(app, sock, host, port_file, cert, key, connections)
    finally:
        sock.close()
        hub.close()


def _server_class() -> type[Any]:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, except that a SIGINT/SIGTERM is not raised again once the server
        stopped (uvicorn does, which would kill the process before the hub closes)."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            from sse_starlette.sse import AppStatus

            AppStatus.should_exit = True  # the SSE streams end, so the shutdown is not held
            if self.should_exit:
                self.force_exit = True
            else:
                self.should_exit = True

    return Server


def event_loop() -> str:
    """uvicorn's event loop: uvloop's (libuv) where it has a build, asyncio's elsewhere
    (Windows). With httptools' parser and framing (``http="httptools"``), C code for what every
    streamed event goes through: a crowd of SSE clients costs the server a fifth less CPU."""
    import httptools  # noqa: F401  (what http="httptools" loads: a missing one fails here)

    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _serve(app: Any, sock: socket.socket, host: str, port_file: Path | None, cert: Path | None,
           key: Path | None, max_connections: int) -> None:
    import uvicorn

    config = uvicorn.Config(
        app, ssl_certfile=str(cert) if cert else None, ssl_keyfile=str(key) if key else None,
        limit_concurrency=max_connections, log_level="warning", access_log=False,
        server_header=False,
        timeout_graceful_shutdown=3, lifespan="off",
        loop=event_loop(), http="httptools")
    try:
        config.load()  # reads the certificate now: a bad file is one line, not a traceback
    except (OSError, ValueError) as err:
        raise UsageError(_("cannot use --cert/--key: {reason}").format(reason=err),
                         _("give a PEM certificate and its private key")) from None
    server = _server_class()(config)
    # Turns run on threads of their own; the event loop that writes every client's stream gives
    # up the GIL at each socket write and must get it back from them. At CPython's default
    # switch interval (5 ms) a loop among 20 busy turns waited up to that long per write.
    sys.setswitchinterval(SWITCH_INTERVAL)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    if port_file is not None:
        atomic_write(port_file, f"{port}\n")
    click.echo(_("chatcli serve: listening on {url}").format(
        url=f"{'https' if cert else 'http'}://{shown}:{port}"))
    server.run(sockets=[sock])


@click.group("serve", invoke_without_command=True,
             help=_("Serve chatcli over HTTP: an API with SSE streams, tokens and a web page."))
@click.option("--host", default="127.0.0.1", show_default=True,
              help=_("Address to listen on; anything but loopback needs --cert/--key."))
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help=_("Port to listen on (0: a free one, see --port-file)."))
@click.option("--port-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=_("Write the port listened on to this file once the server is up."))
@click.option("--cert", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help=_("TLS certificate (PEM)."))
@click.option("--key", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help=_("TLS private key (PEM)."))
@click.option("--workspace", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help=_("Folder whose settings the server reads (default: here)."))
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, port_file: Path | None, cert: Path | None,
          key: Path | None, workspace: Path | None) -> None:
    """``chatcli serve``: the server, or one of its subcommands."""
    if ctx.invoked_subcommand is not None:
        return
    try:
        _run(ctx, host, port, port_file, cert, key, workspace)
    except ChatcliError as err:
        error_line(str(err))
        ctx.exit(getattr(err, "exit_code", 1))


serve.add_command(token)


@serve.command("nginx-config", help=_(
    "Print nginx's configuration for several replicas (round robin, SSE passed through): put "
    "it in /etc/nginx/conf.d/chatcli.conf."))
@click.option("--upstream", "upstreams", multiple=True, required=True, metavar="HOST:PORT",
              help=_("A chatcli serve replica (repeat for each)."))
@click.option("--listen", default="8080", show_default=True,
              help=_("What nginx listens on: a port, or ADDRESS:PORT."))
@click.option("--server-name", default="_", show_default=True, help=_("nginx's server_name."))
@one_line_errors
def nginx_config(upstreams: tuple[str, ...], listen: str, server_name: str) -> None:
    """``chatcli serve nginx-config``: the configuration on stdout."""
    from chatcli_remote.serve.nginx import http_block

    click.echo(http_block(list(upstreams), listen, server_name=server_name), nl=False)
