"""Small helpers shared by the ``chatcli`` sub-commands: the run state, tables, one-line errors.

Kept light (click only): ``chatcli --help`` imports this module.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from chatcli._config import Settings
    from chatcli._plugins import PluginHost

__all__ = ["AppState", "error_line", "format_table", "get_state", "settings_from"]


@dataclass
class AppState:
    """What every sub-command can reach through ``ctx.obj``: the loaded plugin host."""

    host: PluginHost


def get_state(ctx: click.Context) -> AppState:
    """The :class:`AppState` of the running command line."""
    state = ctx.find_object(AppState)
    if state is None:  # pragma: no cover - run() always provides one
        raise RuntimeError("chatcli's command line was started without run()")
    return state


def settings_from(flags: dict[str, Any] | None = None) -> Settings:
    """The effective settings (raises ConfigError naming the file and key when invalid)."""
    from chatcli._config import load_settings

    return load_settings(flags)


def error_line(message: str) -> None:
    """Print ``chatcli: error: MESSAGE`` (one line, known and key-shaped secrets redacted)
    on stderr."""
    from chatcli._errors import redact

    text = redact(" ".join(str(message).split("\n")).strip())
    print(f"chatcli: error: {text}", file=sys.stderr, flush=True)


def debug_enabled() -> bool:
    """Whether ``CHATCLI_DEBUG`` asks for tracebacks."""
    return os.environ.get("CHATCLI_DEBUG", "") not in ("", "0", "false", "no")


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Rows as aligned plain-text columns (readable on a terminal, easy to ``grep``/``awk``)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    lines = []
    for row in [headers, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
