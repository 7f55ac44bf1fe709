"""``chatcli keys set|list|remove``: API keys in a 0600 file. A key is never printed back."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
from chatcli import cli_host

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import ProviderSpec

__all__ = ["keys_group"]


@click.group("keys")
def keys_group() -> None:
    """Store API keys (in a 0600 file in the config directory)."""


def _known_providers(ctx: click.Context) -> dict[str, ProviderSpec]:
    return cli_host(ctx).providers()


@keys_group.command("set", context_settings={"ignore_unknown_options": True,
                                              "allow_extra_args": True})
@click.argument("name")
@click.option("--force", is_flag=True,
              help="Store it even though no installed provider is called NAME (yet).")
@click.pass_context
def keys_set(ctx: click.Context, name: str, force: bool) -> int:
    """Store the key of provider NAME (asked without echo, or read from piped stdin)."""
    from chatcli import UsageError, redact

    from chatcli_admin.keystore import key_file, set_key

    if ctx.args or redact(name) != name:  # a key on the command line: never echo it back
        raise UsageError(
            "`chatcli keys set NAME` takes no key on the command line (it would stay in your "
            "shell history)",
            "type it when asked, or pipe it: printf %s \"$KEY\" | chatcli keys set NAME",
        )
    specs = _known_providers(ctx)
    if name not in specs and not force:
        import difflib

        close = difflib.get_close_matches(name, list(specs), n=1)
        installed = ", ".join(sorted(specs)) or "none"
        raise UsageError(
            f"no installed provider is named '{name}'",
            f"did you mean '{close[0]}'? (--force stores it anyway)" if close else
            f"installed: {installed}; for a provider you will install later: "
            f"chatcli keys set {name} --force",
        )
    if sys.stdin is not None and sys.stdin.isatty():
        key = click.prompt(f"API key for {name}", hide_input=True, err=True, default="",
                           show_default=False)
    else:
        key = sys.stdin.read() if sys.stdin is not None else ""
    set_key(name, key.strip())
    click.echo(f"stored the key for {name} in {key_file()} (mode 0600)")
    return 0


@keys_group.command("list")
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
                status += " (keys.toml also has one)"
        else:
            status = "keys.toml (no such provider installed)"
        rows.append([name, status])
    if not rows:
        click.echo("no keys stored; add one with `chatcli keys set NAME`")
        return 0
    click.echo(format_table(["PROVIDER", "KEY"], rows))
    return 0


@keys_group.command("remove")
@click.argument("name")
def keys_remove(name: str) -> int:
    """Forget the stored key of provider NAME."""
    from chatcli import UsageError

    from chatcli_admin.keystore import remove_key

    if not remove_key(name):
        raise UsageError(f"no stored key for '{name}'", "see `chatcli keys list`")
    click.echo(f"removed the key for {name}")
    return 0
