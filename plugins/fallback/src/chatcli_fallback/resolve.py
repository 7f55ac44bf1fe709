"""Building a group's provider, and what it can do, once the run is configured.

Registration must stay cheap (``chatcli models``, ``--help``): a spec is built from the raw
settings, with no pydantic and no provider SDK. What a group can do depends on its entries,
which are known only once the run is configured, so two parts of the spec are read late:

- ``capabilities`` is a :class:`chatcli.Capabilities` whose fields are worked out when read
  (after ``configure``): the intersection of the entries' — streaming, native tools and vision
  only when every entry has them, prompt caching when any entry has it (the others ignore the
  hints), the cache lifetimes they share. The request is built once per call, so tools go
  through the API only when every entry takes them that way (its ``tool_calls`` setting, else
  its capability); otherwise every entry gets the text protocol, which all of them read, and a
  conversation never changes protocol because another entry answered.
- ``context_windows`` is a mapping worked out when read: the smallest window of the entries,
  since any of them may get the next request (``[providers.NAME] context_window`` overrides).
- ``uses_tools`` (lean requests for models that use no tools) holds when some entry uses tools:
  the stronger entries keep their tools, a small last-resort entry gets the full request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import Capabilities, translation

from chatcli_fallback.runtime import RUNTIME, default_model

if TYPE_CHECKING:
    from chatcli import ProviderConfig, ProviderSpec

    from chatcli_fallback.group import GroupProvider

__all__ = ["build_group", "context_windows", "resolve_capabilities"]

_, ngettext = translation(__name__)


def _raw() -> dict[str, Any]:
    settings = RUNTIME.settings
    return {"fallback": settings.plugin_table("fallback")} if settings is not None else {}


def build_group(name: str, config: ProviderConfig) -> GroupProvider:
    """The provider of group ``name``: its configured entries, or those ``--model`` lists."""
    from chatcli import ConfigError

    from chatcli_fallback.group import GroupProvider, resolve_entries
    from chatcli_fallback.settings import (
        CHAIN,
        Group,
        base_options,
        group_names,
        load_groups,
        parse_entries,
    )

    host, settings = RUNTIME.host, RUNTIME.settings
    if host is None or settings is None:
        raise ConfigError(_("the '{name}' provider needs a configured run").format(name=name),
                          _("use it through chatcli (-p, the chat) or call host.configure "
                            "first"))
    raw = _raw()
    groups = load_groups(raw)
    model = (config.model or "").strip()
    if model in ("", default_model(name)):
        group = groups.get(name)
        if group is None:
            raise ConfigError(
                _("no fallback chain is configured") if name == CHAIN else
                _("the pool '{name}' is no longer configured").format(name=name),
                _("set one: chatcli config set fallback.chain '[\"anthropic/claude-sonnet-4-5\", "
                  "\"openai/gpt-5.4-mini\"]', or name the entries: --provider fallback --model "
                  "'anthropic/claude-sonnet-4-5,openai/gpt-5.4-mini'"))
    else:
        known = groups.get(name)
        where = _("the entries of '{name}' (--model)").format(name=name)
        group = Group(name, known.strategy if known else "chain",
                      parse_entries(model, where),
                      known.options if known else base_options(raw),
                      where=where)
    specs = resolve_entries(host, group, set(group_names(raw)) | set(groups))
    provider = GroupProvider(group, host, settings, specs)
    with RUNTIME.lock:
        RUNTIME.built[name] = provider
    return provider


# ------------------------------------------------------------------ late capabilities


def _entries_of(name: str) -> tuple[list[tuple[Any, Any]], Any] | None:
    """(entry, spec) pairs and the settings of group ``name``: the one built last, else the
    configured one; None before the run is configured or when it cannot be resolved."""
    built = RUNTIME.built.get(name)
    if built is not None:
        return list(built.specs.items()), built.settings
    host, settings = RUNTIME.host, RUNTIME.settings
    if host is None or settings is None:
        return None
    from chatcli import ChatcliError

    from chatcli_fallback.group import resolve_entries
    from chatcli_fallback.settings import group_names, load_groups

    try:
        groups = load_groups(_raw())
        group = groups.get(name)
        if group is None:
            return None
        specs = resolve_entries(host, group, set(group_names(_raw())) | set(groups))
    except ChatcliError:
        return None
    return list(specs.items()), settings


def resolve_capabilities(name: str) -> Capabilities:
    """What group ``name`` can do: the intersection of its entries' capabilities."""
    found = _entries_of(name)
    if not found or not found[0]:
        return Capabilities(native_tools=False)
    pairs, settings = found
    caps = [spec.capabilities for _entry, spec in pairs]

    def native(spec: ProviderSpec) -> bool:
        chosen = settings.provider_settings(spec.name).tool_calls
        return spec.capabilities.native_tools if chosen == "auto" else chosen == "native"

    def uses(spec: ProviderSpec) -> bool:
        chosen = getattr(settings.provider_settings(spec.name), "tools", "auto")
        return getattr(spec.capabilities, "uses_tools", True) if chosen == "auto" else bool(
            chosen)

    ttls = tuple(ttl for ttl in caps[0].cache_ttls if all(ttl in c.cache_ttls for c in caps))
    values: dict[str, Any] = {
        "streaming": all(c.streaming for c in caps),
        "native_tools": all(native(spec) for _entry, spec in pairs),
        "prompt_caching": any(c.prompt_caching for c in caps),
        "vision": all(c.vision for c in caps),
        "cache_ttls": ttls,
        "uses_tools": any(uses(spec) for _entry, spec in pairs),
    }
    return Capabilities(**{k: v for k, v in values.items() if k in Capabilities._fields})


def context_windows(name: str) -> dict[str, int]:
    """``{"": the smallest context window of group ``name``'s entries}`` (empty when none
    is known)."""
    found = _entries_of(name)
    if not found:
        return {}
    pairs, settings = found
    windows = []
    for entry, spec in pairs:
        table = settings.provider_settings(spec.name)
        model = entry.model or table.model or spec.default_model
        listed = None
        if hasattr(settings, "model_settings"):  # the [models."provider/model"] table
            row = settings.model_settings(spec.name, model, having="context_window")
            listed = row[1].context_window if row else None
        window = listed or table.context_window or spec.context_window(model)
        if window:
            windows.append(window)
    return {"": min(windows)} if windows else {}
