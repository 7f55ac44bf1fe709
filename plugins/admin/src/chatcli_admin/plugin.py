"""Entry module: registers the administration commands, each imported only when it runs, and
prints a session's trust notice (``configure``).

``chatcli --help`` imports this module (it implements ``register_commands``) and lists the
commands from :data:`COMMANDS`; their own modules load when one of them is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from chatcli import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from chatcli import PluginHost

__all__ = ["COMMANDS", "LazyCommand", "configure", "register_commands"]

#: The commands: (name, kind, the root help's line, short help, ``module:attribute``). The help
#: lines equal the real commands' (a test keeps them so).
COMMANDS = (
    ("config", "group", "Read and change settings (user file, or the project's "
     ".chatcli/config.toml).", None, "chatcli_admin.config:config_group"),
    ("keys", "group", "Store API keys (in a 0600 file in the config directory).", None,
     "chatcli_admin.keys:keys_group"),
    ("models", "command", "List providers, their models and whether each has a key (* marks "
     "the default).", None, "chatcli_admin.models:models_command"),
    ("plugins", "group", "List, install, remove and create chatcli plugins.", None,
     "chatcli_admin.plugins:plugins_group"),
    ("trust", "command", "Trust the project of PATH (default: here): its .chatcli/config.toml, "
     ".mcp.json, skills…", "Let a project's files change chatcli.",
     "chatcli_admin.trust:trust_command"),
)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``config``, ``keys``, ``models``, ``plugins`` and ``trust`` (lazily)."""
    from chatcli import LazyGroup

    for name, kind, help_line, short_help, target in COMMANDS:
        cli.add_command(LazyGroup(name, help_line, target) if kind == "group"
                        else LazyCommand(name, help_line, target, short_help))


@hookimpl
def configure(host: PluginHost, workspace: Path) -> None:
    """Say on stderr, once a run, which of the project's files were ignored because it is not
    trusted (or set what no project may set), and the fix (``chatcli trust``)."""
    import sys

    from chatcli_workspace import trust_notice

    try:
        line = trust_notice(workspace, host)
    except Exception:  # the notice must never stop a session
        return
    if line is not None:
        print(f"chatcli: {line}", file=sys.stderr, flush=True)


class LazyCommand(click.Command):
    """A command whose module is imported only when it runs (as :class:`chatcli.LazyGroup`
    does for groups): ``target`` is ``module:attribute``; ``help`` and ``short_help`` are what
    the root help lists (the real command's, a test keeps them equal)."""

    def __init__(self, name: str, help: str, target: str, short_help: str | None = None) -> None:
        self._target = target
        self._loaded = False
        super().__init__(name=name, help=help, short_help=short_help)

    @property
    def callback(self) -> Callable[..., Any] | None:
        """The real command's callback (``ctx.invoke(command)`` from another command too)."""
        self._load()
        return self._callback

    @callback.setter
    def callback(self, value: Callable[..., Any] | None) -> None:
        self._callback = value

    def _load(self) -> None:
        if self._loaded:
            return
        from importlib import import_module

        from chatcli import require_utf8

        module, _, attribute = self._target.partition(":")
        real = getattr(import_module(module), attribute)
        self._loaded = True
        self.params, self.callback = real.params, real.callback
        self.help, self.epilog, self.short_help = real.help, real.epilog, real.short_help
        require_utf8(self)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        self._load()
        return super().parse_args(ctx, args)
