"""nginx in front of several ``chatcli serve`` replicas: the configuration ``chatcli serve
nginx-config`` prints (and the team tests and ``bench/team.py`` run).

Round robin over the replicas; the SSE answers passed through as they come: HTTP/1.1 to the
replicas with keep-alive, no proxy buffering or caching (the replicas also send
``X-Accel-Buffering: no``), a long read timeout (a turn may think for minutes; the replicas
ping every 15 s), and gzip only for JSON and markdown, never for ``text/event-stream``. A POST
is never sent to a second replica once the first received it (nginx's default for
non-idempotent requests): a client whose stream was cut sends the message again itself, under
the same id, and no replica appends it twice.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from chatcli import translation

__all__ = ["http_block", "standalone_config"]

_, ngettext = translation(__name__)

#: ``host:port`` of a replica (a name, an IPv4 address or a bracketed IPv6 one).
_UPSTREAM = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):([0-9]{1,5})")


def _checked(upstreams: list[str]) -> list[str]:
    from chatcli import UsageError

    if not upstreams:
        raise UsageError(_("no replica given"),
                         _("add --upstream HOST:PORT for each chatcli serve"))
    for upstream in upstreams:
        found = _UPSTREAM.fullmatch(upstream)
        if found is None or not 0 < int(found.group(2)) < 65536:
            raise UsageError(_("--upstream {upstream!r} is not HOST:PORT").format(
                upstream=upstream), _("give each replica as 127.0.0.1:8765 or name:8765"))
    return upstreams


def http_block(upstreams: list[str], listen: str = "8080", *, server_name: str = "_",
               max_body: str = "2m") -> str:
    """The ``upstream`` and ``server`` blocks (for ``/etc/nginx/conf.d/chatcli.conf``):
    ``listen`` (a port, or ``address:port``) sent round robin to ``upstreams``
    (``host:port`` each). Raises :class:`chatcli.UsageError` for a malformed upstream."""
    servers = "\n".join(f"    server {u} max_fails=1 fail_timeout=10s;"
                        for u in _checked(upstreams))
    # untranslated: configuration file (nginx reads it; its comments stay English)
    return f"""upstream chatcli_serve {{
{servers}
    keepalive 64;
}}

server {{
    listen {listen};
    server_name {server_name};
    client_max_body_size {max_body};
    gzip on;
    gzip_types application/json text/markdown;   # never text/event-stream

    location / {{
        proxy_pass http://chatcli_serve;
        proxy_http_version 1.1;                  # keep-alive and streamed answers
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_buffering off;                     # each SSE event goes out as it comes
        proxy_cache off;
        proxy_read_timeout 1h;                   # a turn may be quiet for long (pings: 15 s)
        proxy_send_timeout 1h;
        proxy_next_upstream error timeout;       # never a POST a replica received already
    }}
}}
"""


def standalone_config(folder: Path, upstreams: list[str], port: int) -> str:
    """A whole ``nginx.conf`` that keeps every file in ``folder`` (pid, logs, temporary
    bodies) and runs in the foreground: what the tests and the bench start, on
    ``127.0.0.1:port``."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers may then read folder
    temps = "\n".join(f"    {kind}_temp_path {folder}/{kind};"
                      for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    block = http_block(upstreams, f"127.0.0.1:{port}", server_name="localhost")
    inner = "\n".join(f"    {line}" if line else "" for line in block.splitlines())
    # untranslated: configuration file (nginx reads it; its comments stay English)
    return f"""{user}daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{temps}
{inner}
}}
"""
