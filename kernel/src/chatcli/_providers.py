"""Choosing a provider and building it from its spec, the settings and the stored keys."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, cast

from chatcli._errors import ChatcliError, ConfigError, ProviderError, UsageError, did_you_mean
from chatcli._guard import current_plugin
from chatcli._i18n import translation
from chatcli._keys import check_key, lookup_key
from chatcli._specs import Provider, ProviderConfig, ProviderOption, ProviderSpec

if TYPE_CHECKING:  # settings are validated with pydantic: imported where a provider is built
    from collections.abc import Callable

    from chatcli._config import ProviderSettings, Settings
    from chatcli._plugins import PluginHost

__all__ = ["build_provider", "check_provider_options", "choose_provider", "find_provider",
           "has_key", "provider_key"]
_, ngettext = translation(__name__)

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
        hint = did_you_mean(name, specs, _(
            "installed: {names}; or pip install chatcli-provider-{name}").format(
            names=", ".join(sorted(specs)) or _("none"), name=name))
        raise UsageError(_("unknown provider '{name}'").format(name=name), hint)
    return spec


def choose_provider(host: PluginHost, settings: Settings) -> ProviderSpec:
    """The provider to use: the configured one, else the best one that has a key.

    Keyed providers with a key win by ``priority``; otherwise the keyless provider with the
    highest priority among those that allow automatic selection (the offline model). A provider
    with ``auto_select=False`` is never chosen this way, keyed or not (its key variable may be
    set for other reasons: ``GITHUB_TOKEN``). Raises :class:`UsageError` when none fits.
    """
    specs = host.providers()
    if not specs:
        if host.skipped:
            raise UsageError(_("no provider is loaded: CHATCLI_PLUGINS or CHATCLI_DISABLE_PLUGINS "
                               "leaves out {names}").format(names=", ".join(sorted(host.skipped))),
                             _("add a provider plugin's name to CHATCLI_PLUGINS (see `chatcli "
                               "plugins list`)"))
        raise UsageError(_("no provider is installed"),
                         _("install one: pip install chatcli-provider-local (offline), "
                           "chatcli-provider-openai, chatcli-provider-anthropic or "
                           "chatcli-provider-ollama"))
    if settings.provider:
        return find_provider(host, settings.provider)
    from chatcli._managed import managed_list

    if (only := managed_list("policy.providers")) is not None:  # the managed policy's choice
        specs = {name: spec for name, spec in specs.items() if name in only[1]} or specs
    keyed = [s for s in specs.values()
             if s.requires_key and s.auto_select and has_key(s, settings)]
    if keyed:
        return max(keyed, key=lambda s: s.priority)
    keyless = [s for s in specs.values() if not s.requires_key and s.auto_select]
    if keyless:
        return max(keyless, key=lambda s: s.priority)
    first = specs[min(specs)]
    raise UsageError(_("no provider has an API key"), _(
        "set one with `chatcli keys set {name}` or export {variable}").format(
        name=first.name, variable=(first.env_keys or [_("its key")])[0]))


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    if isinstance(kind, tuple):
        return any(_is(value, one) for one in kind)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _type_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " {} ".format(_("or")).join(_type_name(one) for one in kind)
    return {str: _("text"), int: _("a whole number"), float: _("a number"),
            bool: _("true or false"), list: _("an array"), dict: _("a table")}.get(
        kind, kind.__name__)


def _coerce(value: Any, kind: type | tuple[type, ...]) -> Any:
    """A ``CHATCLI_PROVIDERS__…`` variable is text: read it as a TOML value when text is not
    what the option takes (``false``, ``3``, ``["a"]``)."""
    if not isinstance(value, str) or _is(value, kind):
        return value
    from chatcli._tomlfile import toml_value

    return toml_value(value)


def _describe(option: ProviderOption) -> str:
    what = _type_name(option.type)
    if option.items is not None:
        item = _type_name(option.items)
        what = (_("{kind} of {item}") if option.type is list else
                _("{kind} whose values are {item}")).format(kind=what, item=item)
    return what


def check_provider_options(spec: ProviderSpec, table: ProviderSettings) -> dict[str, Any]:
    """The provider-specific keys of ``[providers.NAME]``, checked against ``spec.options``.

    Raises :class:`ConfigError` naming the file (or variable), the key and what it must be, or
    suggesting the closest key for one that is no setting of this provider.
    """
    from chatcli._config import ProviderSettings, origin_of

    extra = dict(table.model_extra or {})
    known = [*ProviderSettings.model_fields, *spec.options]
    for key, value in extra.items():
        where = origin_of(("providers", spec.name, key))
        option = spec.options.get(key)
        if option is None:
            raise ConfigError(_("{where}: unknown setting 'providers.{name}.{key}'").format(
                where=where, name=spec.name, key=key), did_you_mean(key, known, _(
                    "{provider} accepts: {keys}").format(provider=spec.display_name,
                                                         keys=", ".join(sorted(known)))))
        value = extra[key] = _coerce(value, option.type)
        items = value.values() if isinstance(value, dict) else value
        if not _is(value, option.type) or (option.items is not None and not all(
                _is(item, option.items) for item in items)):
            raise ConfigError(_("{where}: 'providers.{name}.{key}' must be {kind}, not "
                                "{value!r:.60}").format(where=where, name=spec.name, key=key,
                                                        kind=_describe(option), value=value),
                              _("fix it with `chatcli config unset providers.{name}.{key}` or "
                                "edit the file").format(name=spec.name, key=key))
    return extra


def build_provider(spec: ProviderSpec, settings: Settings, model: str | None = None, *,
                   timeout: float | None = None) -> tuple[Provider, ProviderConfig]:
    """Call ``spec.factory`` with the resolved key, URL and model; returns the provider and config.

    The model is ``model``, else the settings' model (when the settings name this provider or no
    provider at all), else ``[providers.NAME].model``, else the spec's default. ``timeout``
    shortens ``[providers.NAME] timeout`` (a listing should not wait two minutes).
    """
    table = settings.provider_settings(spec.name)
    options = check_provider_options(spec, table)
    chosen = model or (settings.model if settings.provider in (None, spec.name) else None)
    chosen = chosen or table.model or spec.default_model
    key, where = provider_key(spec, settings)
    if key and where:
        key = check_key(key, where, spec.name)
    if spec.requires_key and not key:  # set-up, not a failure of the service: exit code 2
        raise ConfigError(_("no API key for {provider}").format(provider=spec.display_name), _(
            "run `chatcli keys set {name}` or export {variables}").format(name=spec.name,
            variables=" {} ".format(_("or")).join(spec.env_keys) or _("a key")))
    base_url = table.base_url or (os.environ.get(spec.base_url_env) if spec.base_url_env else None)
    _check_policy(spec.name, base_url or spec.base_url)
    config = ProviderConfig(
        name=spec.name, model=chosen, api_key=key, base_url=base_url or spec.base_url,
        timeout=min(table.timeout, timeout) if timeout else table.timeout,
        max_retries=table.max_retries, options=options, native_tools=native_tools(spec, settings))
    return _start(spec, config), config


def _check_policy(name: str, url: str | None) -> None:
    """Refuse a provider or a service URL the managed policy does not allow (``[policy]
    providers``, and ``base_urls``: patterns a provider's URL must match when it has one)."""
    from fnmatch import fnmatchcase

    from chatcli._managed import managed_list

    for key, value in (("policy.providers", name), ("policy.base_urls", url)):
        if value is not None and (found := managed_list(key)) is not None and not any(
                fnmatchcase(value, pattern) for pattern in found[1]):
            from chatcli._errors import redact

            what = (_("provider '{name}' is not allowed by the managed policy {path}")
                    if key == "policy.providers" else
                    _("URL {name} is not allowed by the managed policy {path}"))
            raise ConfigError(what.format(name=name if key == "policy.providers" else redact(value),
                                          path=found[0]), _("use one of {key} {values}").format(
                key=key.split(".")[1], values=", ".join(found[1]) or _("(none)")))


def native_tools(spec: ProviderSpec, settings: Settings) -> bool:
    """Whether the provider takes tools through its API (True) or the text protocol (False,
    :attr:`ProviderConfig.native_tools`): ``[providers.NAME] tool_calls`` when it says native or
    text, else the provider's capability."""
    chosen = settings.provider_settings(spec.name).tool_calls
    return spec.capabilities.native_tools if chosen == "auto" else chosen == "native"


def uses_tools(spec: ProviderSpec, settings: Settings) -> bool:
    """Whether the model is offered tools at all (False: lean requests, see
    :attr:`Capabilities.uses_tools`): ``[providers.NAME] tools`` when it is true or false, else
    the provider's capability."""
    chosen = settings.provider_settings(spec.name).tools
    return spec.capabilities.uses_tools if chosen == "auto" else bool(chosen)


def context_window(spec: ProviderSpec, settings: Settings, model: str) -> int | None:
    """The tokens ``model``'s context holds: the model table's entry for it
    (``[models."provider/model"] context_window``, patterns allowed), else ``[providers.NAME]
    context_window``, else the ``context_window`` setting, else what the provider registered,
    else None."""
    entry = settings.model_settings(spec.name, model, having="context_window")
    return ((entry[1].context_window if entry else None)
            or settings.provider_settings(spec.name).context_window or settings.context_window
            or spec.context_window(model))


def _start(spec: ProviderSpec, config: ProviderConfig) -> Provider:
    """``spec.factory(config)``, with a plugin's unexpected failure (an SDK that does not
    import, a bug, ``sys.exit()``) turned into one :class:`ProviderError` line naming it.

    The factory runs on a thread of its own, which starts with an empty frame stack: a factory
    imports its SDK, the heaviest import of a run (openai: 1,000 modules), and made as deep in
    the call stack as a session opens, CPython 3.11 maps and unmaps a 16 KiB frame-stack chunk
    at each call that crosses a chunk's edge — 9,274 ``mmap``/``munmap`` pairs and 60 ms of
    system time in a ``chatcli -p`` run, against 11 pairs on a fresh stack, as a bare script
    imports it (``bench/oneshot.py``).
    """
    try:
        return _on_fresh_stack(spec.factory, config)
    except ChatcliError:
        raise
    except (Exception, SystemExit) as err:
        raise ProviderError.unexpected(
            f"the {spec.display_name} provider cannot start", err,
            "reinstall the plugin that provides it (`chatcli plugins list` names it), "
            "or pick another with --provider", spec.name) from err


def _on_fresh_stack(factory: Callable[[ProviderConfig], Provider], config: ProviderConfig
                    ) -> Provider:
    """``factory(config)`` called on a new thread, waited for; its exception is raised here.
    The thread is a daemon, so Ctrl+C while an SDK imports ends chatcli at once."""
    plugin = current_plugin.get()
    outcome: list[tuple[bool, Any]] = []

    def start() -> None:
        current_plugin.set(plugin)
        try:
            outcome.append((True, factory(config)))
        except BaseException as err:  # re-raised on the caller's thread
            outcome.append((False, err))

    thread = threading.Thread(target=start, name="chatcli-provider-start", daemon=True)
    thread.start()
    thread.join()
    done, value = outcome[0]
    if not done:
        raise value
    return cast("Provider", value)
