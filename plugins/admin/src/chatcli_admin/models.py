"""``chatcli models``: the installed providers, their default models and where their keys are;
``chatcli models --remote [PROVIDER]``: what the services themselves list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from chatcli import cli_host, translation

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import ChatcliError, PluginHost, ProviderSpec, Settings

__all__ = ["key_status", "models_command"]

_, ngettext = translation(__name__)


def key_status(spec: ProviderSpec, settings: Settings) -> str:
    """Where ``spec``'s key comes from: a variable's name, ``keys.toml``, ``missing`` or
    ``not needed`` — never the key itself."""
    from chatcli import provider_key

    if not spec.requires_key:
        return _("not needed")
    _key, where = provider_key(spec, settings)
    if where:
        return where
    names = _(" or ").join(spec.env_keys)
    if not names:
        return _("missing")
    return _("missing (set {names} or `chatcli keys set {name}`)").format(names=names,
                                                                          name=spec.name)


@click.command("models", help=_(
    "List providers, their models and whether each has a key (* marks the default).\n\n"
    "With --remote (implied by PROVIDER), list what the services serve instead: one model id per "
    "line for PROVIDER, else PROVIDER/MODEL lines for every provider that has a key (and the "
    "keyless ones configured in [providers.NAME]). A provider that fails is one line on stderr; "
    "the exit code is then that of its error (1 for the service, 2 for the set-up)."))
@click.option("--remote", is_flag=True,
              help=_("Ask the services which models they serve (every provider with a key, "
                     "or PROVIDER)."))
@click.argument("provider", required=False)
@click.pass_context
def models_command(ctx: click.Context, remote: bool, provider: str | None) -> int:
    """List providers, their models and whether each has a key (* marks the default).

    With --remote (implied by PROVIDER), list what the services serve instead: one model id per
    line for PROVIDER, else PROVIDER/MODEL lines for every provider that has a key (and the
    keyless ones configured in [providers.NAME]). A provider that fails is one line on stderr;
    the exit code is then that of its error (1 for the service, 2 for the set-up).
    """
    from chatcli import ChatcliError, choose_provider

    host = cli_host(ctx)
    if remote or provider:
        return _remote(host, provider)
    settings = _glance()  # the few settings a listing needs, without validating them all
    specs = host.providers()
    if not specs:  # choose_provider says why there is none, and what to install
        try:
            choose_provider(host, settings)
        except ChatcliError as err:
            click.echo(str(err))  # no provider is installed — install one: pip …
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
    click.echo(format_table([_("  PROVIDER"), _("NAME"), _("DEFAULT MODEL"), _("KEY")], rows))
    if extras:
        click.echo("\n" + _("other models (use --provider NAME --model MODEL):"))
        click.echo("\n".join(extras))
    return 0


def _listable(spec: ProviderSpec, settings: Settings) -> bool:
    """Whether ``--remote`` without a name asks ``spec``: it can list, and it has a key — or,
    keyless (a local server that may not run), it is configured or its URL variable is set."""
    import os

    from chatcli import provider_key

    if not spec.capabilities.model_list:
        return False
    if spec.requires_key:
        return provider_key(spec, settings)[0] is not None
    return spec.name in settings.providers or bool(
        spec.base_url_env and os.environ.get(spec.base_url_env))


def _remote(host: PluginHost, name: str | None) -> int:
    """``models --remote``: list the services' models; each failure is one line on stderr."""
    from concurrent.futures import ThreadPoolExecutor

    from chatcli import ChatcliError, error_line, find_provider, load_settings
    from chatcli_provider_kit import remote_models

    settings = load_settings()
    if name is not None:
        for model in remote_models(find_provider(host, name), settings):
            click.echo(model)
        return 0
    specs = [spec for _, spec in sorted(host.providers().items()) if _listable(spec, settings)]
    if not specs:
        click.echo(_("no provider to ask: set a key (`chatcli keys set NAME`) or name one: "
                     "chatcli models --remote PROVIDER"))
        return 0

    def ask(spec: ProviderSpec) -> list[str] | ChatcliError:
        try:
            return remote_models(spec, settings)
        except ChatcliError as err:
            return err

    with ThreadPoolExecutor(max_workers=min(8, len(specs))) as pool:
        results = list(pool.map(ask, specs))
    code = 0
    for spec, result in zip(specs, results, strict=True):
        if isinstance(result, ChatcliError):
            error_line(f"{spec.name}: {result}")
            code = max(code, result.exit_code)
            continue
        for model in result:
            click.echo(f"{spec.name}/{model}")
    return code


class Glance:
    """A few settings read without validating the rest: what ``chatcli models`` shows.

    Offers what provider selection reads of :class:`~chatcli.Settings` (``provider``,
    ``model``, ``provider_settings(name).model``/``.api_key_env``).
    """

    class _Table:
        def __init__(self, table: dict[str, Any]) -> None:
            self.model: str | None = table.get("model")
            self.api_key_env: str | None = table.get("api_key_env")

    def __init__(self, merged: dict[str, Any]) -> None:
        self.provider: str | None = merged.get("provider")
        self.model: str | None = merged.get("model")
        self._providers: dict[str, Any] = merged.get("providers") or {}

    def provider_settings(self, name: str) -> Glance._Table:
        """The ``[providers.NAME]`` table (model and key variable only)."""
        return Glance._Table(self._providers.get(name) or {})


def _glance() -> Any:
    """The settings a listing needs: a :class:`Glance` when the few values it reads have the
    right types, else the full, validated :class:`~chatcli.Settings` (which raises the
    :class:`~chatcli.ConfigError` naming the file and key). Reading the layers as plain data
    needs no pydantic, so ``chatcli models`` stays as cheap as ``--help``."""
    from chatcli import raw_settings

    merged = raw_settings()
    providers = merged.get("providers", {})
    plain = all(isinstance(merged.get(k), str | None) for k in ("provider", "model")) and (
        isinstance(providers, dict) and all(
            isinstance(table, dict) and all(isinstance(table.get(k), str | None)
                                            for k in ("model", "api_key_env"))
            for table in providers.values()))
    if plain:
        return Glance(merged)
    from chatcli import load_settings

    return load_settings()
