"""``chatcli acp``: serve the Agent Client Protocol on stdin/stdout.

stdout belongs to JSON-RPC: the command keeps a private copy of it for the protocol and points
file descriptor 1 (and ``sys.stdout``) at stderr, so nothing a plugin or a library prints can
corrupt the stream. The engine runs on worker threads; the asyncio loop only moves messages.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import IO, TYPE_CHECKING, Any, cast

import click
from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["acp"]

_, ngettext = translation(__name__)


class _OneLine(logging.Formatter):
    """``chatcli acp: <message>`` on stderr; the traceback only with ``CHATCLI_DEBUG``."""

    def formatException(self, ei: Any) -> str:
        return super().formatException(ei) if os.environ.get("CHATCLI_DEBUG") else ""

    def format(self, record: logging.LogRecord) -> str:
        return "chatcli acp: " + super().format(record).rstrip()


def _log_to_stderr() -> None:
    """The protocol package logs bad messages and failed tasks: one line each, on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("%(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def _protocol_stdout() -> IO[bytes]:
    """A private stdout for the protocol; fd 1 and ``sys.stdout`` become stderr."""
    sys.stdout.flush()
    private = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return private


async def _serve(host: PluginHost, out: IO[bytes], flags: dict[str, Any]) -> None:
    from acp import run_agent

    from chatcli_remote.acp.agent import ChatcliAgent
    from chatcli_remote.acp.streams import protocol_streams

    reader, writer = await protocol_streams(out)
    agent = ChatcliAgent(host, flags)
    try:
        await run_agent(cast(Any, agent), writer, reader)
    finally:
        await agent.close_all()


@click.command("acp", help=_(
    "Run as an Agent Client Protocol agent on stdin/stdout (for editors such as Zed).\n\n"
    "The editor starts `chatcli acp` and speaks JSON-RPC with it: sessions (new ones, or "
    "chatcli's own, loaded), prompts, tool calls with diffs, approvals, permission modes and "
    "slash commands. Diagnostics go to stderr. `chatcli --provider P --model M acp` answers "
    "with that model."))
@click.pass_context
def acp(ctx: click.Context) -> None:
    """``chatcli acp``: the agent, until the editor closes its stdin."""
    from chatcli import cli_host

    host = cli_host(ctx)
    root = ctx.find_root().params  # `chatcli --model M acp`: the root's flags apply
    flags = {key: root[key] for key in ("provider", "model", "system") if root.get(key)}
    out = _protocol_stdout()
    _log_to_stderr()
    try:
        asyncio.run(_serve(host, out, flags))
    except KeyboardInterrupt:
        pass
    finally:
        out.close()
