"""Entry module of chatcli-fallback (light: imports nothing heavy).

Registers the chain ``fallback`` and one provider per ``[fallback.pools.NAME]``, keeps the run's
host and settings (``configure``) for their factories, and adds ``chatcli providers status`` and
``/providers``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    import click
    from chatcli import PluginHost, ProviderSpec, Settings, SlashCommand

__all__ = ["configure", "register_commands", "register_providers", "register_slash_commands"]

_, ngettext = translation(__name__)


@hookimpl
def configure(host: PluginHost, settings: Settings, workspace: Path) -> None:
    """Keep the host and settings: a chain's factory builds its entries with them."""
    from chatcli_fallback.runtime import RUNTIME

    RUNTIME.host, RUNTIME.settings = host, settings


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """``fallback`` (the chain of ``[fallback] chain``) and each pool of ``[fallback.pools]``,
    read from the raw settings (no validation here: a bad table is reported when used)."""
    from chatcli import ChatcliError, raw_settings

    from chatcli_fallback.names import group_names
    from chatcli_fallback.specs import spec_for

    try:
        raw = raw_settings()
    except ChatcliError:  # an unreadable file: reported when the settings are loaded
        raw = {}
    for name in group_names(raw):
        register(spec_for(name, raw))


@hookimpl
def register_commands(cli: click.Group) -> None:
    """``chatcli providers status|reset`` (imported when used)."""
    from chatcli_cli import LazyGroup

    cli.add_command(LazyGroup("providers",
        lambda: _("Health of the fallback chain and the provider pools."),
                  "chatcli_fallback.cli:providers"))


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """``/providers`` (the health table) and ``/providers reset``."""
    from chatcli import SlashCommand

    register(SlashCommand(name="providers", help=_("health of the fallback chain and pools"),
                          run=_slash_providers, subcommands=["status", "reset"]))


def _slash_providers(app: object, text: str) -> None:
    from chatcli_fallback.cli import slash_providers

    slash_providers(app, text)
