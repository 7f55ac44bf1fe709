"""Entry module of chatcli-print: the ``cmdline_main`` hookimpl (reading the prompt, the
session, the engine and the renderer load when a prompt is answered, so ``chatcli --help``
imports none of them), and ``add_hookspecs`` for its own hook, ``json_report``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import PluginHost, SessionOptions, Settings


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare json_report: plugins add keys to ``-p --json``'s object."""
    from chatcli_print import hookspecs

    add(hookspecs)


@hookimpl
def cmdline_main(host: PluginHost, settings: Settings, options: SessionOptions,
                 prompt: str | None) -> int | None:
    """Answer once the ``-p`` text, piped stdin, or both (``git diff | chatcli -p review``), or
    run it as a slash command when it is ``/name …``; returns the exit code. None when there is
    no ``-p`` and stdin is a terminal (the interactive chat is another plugin's)."""
    from chatcli_print.prompt import read_prompt, stdin_is_tty

    if prompt is None and stdin_is_tty():
        return None
    text = read_prompt(prompt)
    from chatcli_print.oneshot import run_prompt

    return run_prompt(host, settings, options, text)
