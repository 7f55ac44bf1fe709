"""``chatcli keys set|list|remove``: API keys in a 0600 file. A key is never printed back."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
from chatcli import cli_host, translation

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import ProviderSpec

__all__ = ["keys_group"]

_, ngettext = translation(__name__)


@click.group("keys", help=_("Store API keys (in a 0600 file in the config directory)."))
def keys_group() -> None:
    """Store API keys (in a 0600 file in the config directory)."""


def _known_providers(ctx: click.Context) -> dict[str, ProviderSpec]:
    return cli_host(ctx).providers()


@keys_group.command("set", context_settings={"ignore_unknown_options": True,
                                              "allow_extra_args": True},
                   help=_("Store the key of provider NAME (asked without echo, or read from "
                          "piped stdin)."))
@click.argument("name")
@click.option("--force", is_flag=True,
              help=_("Store it even though no installed provider is called NAME (yet)."))
@click.pass_context
def keys_set(ctx: click.Context, name: str, force: bool) -> int:
    """Store the key of provider NAME (asked without echo, or read from piped stdin)."""
    from chatcli import UsageError, redact

    from chatcli_admin.keystore import key_file, set_key

    if ctx.args or redact(name) != name:  # a key on the command line: never echo it back
        raise UsageError(
            _("`chatcli keys set NAME` takes no key on the command line (it would stay in your "
              "shell history)"),
            _("type it when asked, or pipe it: printf %s \"$KEY\" | chatcli keys set NAME"),
        )
    specs = _known_providers(ctx)
    if name not in specs and not force:
        import difflib

        close = difflib.get_close_matches(name, list(specs), n=1)
        installed = ", ".join(sorted(specs)) or _("none")
        raise UsageError(
            _("no installed provider is named '{name}'").format(name=name),
            _("did you mean '{close}'? (--force stores it anyway)").format(close=close[0])
            if close else
            _("installed: {installed}; for a provider you will install later: "
              "chatcli keys set {name} --force").format(installed=installed, name=name),
        )
    if sys.stdin is not None and sys.stdin.isatty():
        key = click.prompt(_("API key for {name}").format(name=name), hide_input=True,
                           err=True, default="", show_default=False)
    else:
        key = sys.stdin.read() if sys.stdin is not None else ""
    set_key(name, key.strip())
    click.echo(_("stored the key for {name} in {path} (mode 0600)").format(name=name,
                                                                           path=key_file()))
    return 0


@keys_group.command("list", help=_(
    "Show which providers have a key, and where it is (never the key itself)."))
@click.pass_context
def keys_list(ctx: click.Context) -> int:
    """Show which providers have a key, and where it is (never the key itself)."""
    from chatcli import load_settings

    from chatcli_admin.keystore import list_keys
    from chatcli_admin.models import key_status

    stored = set(list_keys())
    specs = _known_providers(ctx)
    rows = []
    settings = load_settings() if specs else None
    for name in sorted(stored | {n for n, s in specs.items() if s.requires_key}):
        if name in specs and settings is not None:  # (settings are loaded when specs exist)
            status = key_status(specs[name], settings)
            if name in stored and status != "keys.toml":
                status = _("{status} (keys.toml also has one)").format(status=status)
        else:
            status = _("keys.toml (no such provider installed)")
        rows.append([name, status])
    if not rows:
        click.echo(_("no keys stored; add one with `chatcli keys set NAME`"))
        return 0
    click.echo(format_table([_("PROVIDER"), _("KEY")], rows))
    return 0


@keys_group.command("remove", help=_("Forget the stored key of provider NAME."))
@click.argument("name")
def keys_remove(name: str) -> int:
    """Forget the stored key of provider NAME."""
    from chatcli import UsageError

    from chatcli_admin.keystore import remove_key

    if not remove_key(name):
        raise UsageError(_("no stored key for '{name}'").format(name=name),
                         _("see `chatcli keys list`"))
    click.echo(_("removed the key for {name}").format(name=name))
    return 0
