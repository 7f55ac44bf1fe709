"""Choosing a provider and building it from its spec, the settings and the stored keys."""

from __future__ import annotations

import difflib
import os

from chatcli._config import Settings
from chatcli._conversation import Conversation
from chatcli._errors import ChatcliError, ConfigError, ProviderError, UsageError
from chatcli._keys import lookup_key
from chatcli._plugins import PLUGIN_ERRORS, PluginHost
from chatcli._types import Provider, ProviderConfig, ProviderSpec

__all__ = [
    "INSTALL_HINT",
    "build_provider",
    "choose_provider",
    "continue_with_session_model",
    "find_provider",
    "has_key",
    "provider_key",
]

INSTALL_HINT = (
    "install one: pip install chatcli-provider-local (offline), chatcli-provider-openai, "
    "chatcli-provider-anthropic or chatcli-provider-ollama"
)


def provider_key(spec: ProviderSpec, settings: Settings) -> tuple[str | None, str | None]:
    """The API key of ``spec`` and where it came from (variable name or ``keys.toml``)."""
    names = list(spec.env_keys)
    custom = settings.provider_settings(spec.name).api_key_env
    if custom:
        names.insert(0, custom)
    return lookup_key(spec.name, names)


def has_key(spec: ProviderSpec, settings: Settings) -> bool:
    """Whether ``spec`` can be used now (keyless, or a key is available)."""
    return not spec.requires_key or provider_key(spec, settings)[0] is not None


def find_provider(host: PluginHost, name: str) -> ProviderSpec:
    """The installed provider called ``name``; a :class:`UsageError` suggesting the closest
    name (or the package to install) when there is none."""
    specs = host.providers()
    spec = specs.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, list(specs), n=1)
        hint = f"did you mean '{close[0]}'?" if close else (
            f"installed: {', '.join(sorted(specs)) or 'none'}; or pip install "
            f"chatcli-provider-{name}"
        )
        raise UsageError(f"unknown provider '{name}'", hint)
    return spec


def continue_with_session_model(
    host: PluginHost, settings: Settings, conversation: Conversation, named: bool
) -> Settings:
    """The settings to answer a resumed ``conversation`` with.

    A resumed session goes on with the provider and model that last answered it (stored in its
    ``metadata``), unless the command line ``named`` a provider or model, or that provider is no
    longer installed or has no key any more (then the usual choice applies, so the session
    still opens).
    """
    provider = conversation.metadata.get("provider")
    spec = host.providers().get(provider) if provider else None
    if named or spec is None or (spec.requires_key and not has_key(spec, settings)):
        return settings
    return settings.model_copy(
        update={"provider": provider, "model": conversation.metadata.get("model")}
    )


def choose_provider(host: PluginHost, settings: Settings) -> ProviderSpec:
    """The provider to use: the configured one, else the best one that has a key.

    Keyed providers with a key win by ``priority``; otherwise the keyless provider with the
    highest priority among those that allow automatic selection (the offline model). Raises
    :class:`UsageError` when none fits.
    """
    specs = host.providers()
    if not specs:
        raise UsageError("no provider is installed", INSTALL_HINT)
    if settings.provider:
        return find_provider(host, settings.provider)
    keyed = [s for s in specs.values() if s.requires_key and has_key(s, settings)]
    if keyed:
        return max(keyed, key=lambda s: s.priority)
    keyless = [s for s in specs.values() if not s.requires_key and s.auto_select]
    if keyless:
        return max(keyless, key=lambda s: s.priority)
    raise UsageError(
        "no provider has an API key",
        f"set one with `chatcli keys set {min(specs)}` or export "
        f"{(specs[min(specs)].env_keys or ['its key'])[0]}",
    )


def build_provider(
    spec: ProviderSpec, settings: Settings, model: str | None = None
) -> tuple[Provider, ProviderConfig]:
    """Call ``spec.factory`` with the resolved key, URL and model; returns the provider and config.

    The model is ``model``, else the settings' model (when the settings name this provider or no
    provider at all), else ``[providers.NAME].model``, else the spec's default.
    """
    table = settings.provider_settings(spec.name)
    chosen = model or (settings.model if settings.provider in (None, spec.name) else None)
    chosen = chosen or table.model or spec.default_model
    key, _where = provider_key(spec, settings)
    if spec.requires_key and not key:  # set-up, not a failure of the service: exit code 2
        raise ConfigError(
            f"no API key for {spec.display_name}",
            f"run `chatcli keys set {spec.name}` or export {' or '.join(spec.env_keys) or 'a key'}",
        )
    base_url = table.base_url or (os.environ.get(spec.base_url_env) if spec.base_url_env else None)
    config = ProviderConfig(
        name=spec.name,
        model=chosen,
        api_key=key,
        base_url=base_url or spec.base_url,
        timeout=table.timeout,
        max_retries=table.max_retries,
        options=table.model_extra or {},
    )
    return _start(spec, config), config


def _start(spec: ProviderSpec, config: ProviderConfig) -> Provider:
    """``spec.factory(config)``, with a plugin's unexpected failure (an SDK that does not
    import, a bug, ``sys.exit()``) turned into one :class:`ProviderError` line naming it."""
    try:
        return spec.factory(config)
    except ChatcliError:
        raise
    except PLUGIN_ERRORS as err:
        raise ProviderError.unexpected(
            f"the {spec.display_name} provider cannot start", err,
            "reinstall the plugin that provides it (`chatcli plugins list` names it), "
            "or pick another with --provider",
            spec.name,
        ) from err
