"""Entry module of chatcli-print: the ``cmdline_main`` hookimpl only (the session, the engine
and the renderer load when a prompt is answered, so ``chatcli --help`` imports none of them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import PluginHost, SessionOptions, Settings


@hookimpl
def cmdline_main(host: PluginHost, settings: Settings, options: SessionOptions,
                 prompt: str | None) -> int | None:
    """Answer ``prompt`` once (``chatcli -p``, piped stdin), or run it as a slash command when
    it is ``/name …``; returns the exit code. None when there is no prompt (the interactive
    chat is another plugin's)."""
    if prompt is None:
        return None
    from chatcli_print.oneshot import run_prompt

    return run_prompt(host, settings, options, prompt)
