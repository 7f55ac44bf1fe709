"""Entry module of the REPL plugin: hookimpls only (prompt-toolkit loads when the chat starts)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import PluginHost, SessionOptions, Settings


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare ``status_items`` (:mod:`chatcli_repl.hookspecs`: what plugins show in the chat's
    status line)."""
    from chatcli_repl import hookspecs

    add(hookspecs)


@hookimpl
def cmdline_main(host: PluginHost, settings: Settings, options: SessionOptions,
                 prompt: str | None) -> int | None:
    """Run the interactive chat (no ``-p``, stdin a terminal); returns the exit code. None
    otherwise: answering a prompt (``-p``, piped stdin) is chatcli-print's."""
    if prompt is not None or not _stdin_is_tty():
        return None
    from chatcli_repl.loop import run

    return run(options, host, settings)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


@hookimpl
def register_slash_commands(register: Callable[[Any], None]) -> None:
    """The built-in commands: /help /exit /clear /switch /model /provider /system /retry /config."""
    from chatcli_repl.commands import builtin_commands

    for command in builtin_commands():
        register(command)
