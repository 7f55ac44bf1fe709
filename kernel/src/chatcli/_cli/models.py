"""``chatcli models``: the installed providers, their default models and where their keys are."""

from __future__ import annotations

import click

from chatcli._cli.common import format_table, get_state

__all__ = ["key_status", "models_command"]


def key_status(spec, settings) -> str:  # (ProviderSpec, Settings) -> str
    """Where ``spec``'s key comes from: a variable's name, ``keys.toml``, ``missing`` or
    ``not needed`` — never the key itself."""
    from chatcli._providers import provider_key

    if not spec.requires_key:
        return "not needed"
    _key, where = provider_key(spec, settings)
    if where:
        return where
    names = " or ".join(spec.env_keys)
    return f"missing (set {names} or `chatcli keys set {spec.name}`)" if names else "missing"


@click.command("models")
@click.pass_context
def models_command(ctx: click.Context) -> int:
    """List providers, their models and whether each has a key (* marks the default)."""
    from chatcli._errors import ChatcliError
    from chatcli._layers import glance
    from chatcli._providers import INSTALL_HINT, choose_provider

    host = get_state(ctx).host
    settings = glance()  # the few settings a listing needs, without validating them all
    specs = host.providers()
    if not specs:
        click.echo(f"no provider is installed — {INSTALL_HINT}")
        return 0
    try:
        chosen = choose_provider(host, settings).name
    except ChatcliError:
        chosen = None
    rows, extras = [], []
    for name in sorted(specs):
        spec = specs[name]
        model = settings.provider_settings(name).model or spec.default_model
        if settings.provider == name and settings.model:
            model = settings.model
        mark = "*" if name == chosen else " "
        rows.append([f"{mark} {name}", spec.display_name, model, key_status(spec, settings)])
        more = [m for m in spec.models if m != model]
        if more:
            extras.append(f"  {name}: {', '.join(more)}")
    click.echo(format_table(["  PROVIDER", "NAME", "DEFAULT MODEL", "KEY"], rows))
    if extras:
        click.echo("\nother models (use --provider NAME --model MODEL):")
        click.echo("\n".join(extras))
    return 0
