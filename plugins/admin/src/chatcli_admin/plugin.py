"""Entry module: registers the administration commands, each imported only when it runs, and
prints a session's trust notice (``configure``).

``chatcli --help`` imports this module (it implements ``register_commands``) and lists the
commands from :data:`COMMANDS`; their own modules load when one of them is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import PluginHost

__all__ = ["COMMANDS", "configure", "register_commands"]

_, ngettext = translation(__name__)

#: The commands: (name, kind, the root help's line, short help, ``module:attribute``). The help
#: lines equal the real commands' (a test keeps them so).
COMMANDS = (
    ("config", "group", _("Read and change settings (user file, or the project's "
                          ".chatcli/config.toml)."), None, "chatcli_admin.config:config_group"),
    ("keys", "group", _("Store API keys (in a 0600 file in the config directory)."), None,
     "chatcli_admin.keys:keys_group"),
    ("models", "command", _("List providers, their models and whether each has a key (* marks "
                            "the default)."), None, "chatcli_admin.models:models_command"),
    ("plugins", "group", _("List, install, remove and create chatcli plugins."), None,
     "chatcli_admin.plugins:plugins_group"),
    ("trust", "command", _("Trust the project of PATH (default: here): its "
                           ".chatcli/config.toml, .mcp.json, skills…"),
     _("Let a project's files change chatcli."),
     "chatcli_admin.trust:trust_command"),
)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``config``, ``keys``, ``models``, ``plugins`` and ``trust`` (lazily)."""
    from chatcli_cli import LazyCommand, LazyGroup

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
        # chatcli-workspace translates the notice; the prefix is the program's name
        print(f"chatcli: {line}", file=sys.stderr, flush=True)  # untranslated: the name
