"""The :class:`chatcli.ProviderSpec` of each chain and pool, and the factory behind it.

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

import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from chatcli import Capabilities, ProviderSpec

if TYPE_CHECKING:
    from chatcli import PluginHost, ProviderConfig, Settings

    from chatcli_fallback.group import GroupProvider

__all__ = ["RUNTIME", "Runtime", "build_group", "spec_for"]

#: The default model of a group: "the entries in the configuration".
DEFAULT_MODEL = {"chain": "chain"}


class Runtime:
    """What the run gave the plugin (``configure``) and the groups it built, by name."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.built: dict[str, GroupProvider] = {}
        self.lock = threading.Lock()


RUNTIME = Runtime()


def _raw() -> dict[str, Any]:
    settings = RUNTIME.settings
    return {"fallback": settings.plugin_table("fallback")} if settings is not None else {}


def build_group(name: str, config: ProviderConfig) -> GroupProvider:
    """The provider of group ``name``: its configured entries, or those ``--model`` lists."""
    from chatcli import ConfigError

    from chatcli_fallback.config import (
        CHAIN,
        Group,
        base_options,
        group_names,
        load_groups,
        parse_entries,
    )
    from chatcli_fallback.group import GroupProvider, resolve_entries

    host, settings = RUNTIME.host, RUNTIME.settings
    if host is None or settings is None:
        raise ConfigError(f"the '{name}' provider needs a configured run",
                          "use it through chatcli (-p, the chat) or call host.configure first")
    raw = _raw()
    groups = load_groups(raw)
    model = (config.model or "").strip()
    if model in ("", default_model(name)):
        group = groups.get(name)
        if group is None:
            raise ConfigError(
                "no fallback chain is configured" if name == CHAIN else
                f"the pool '{name}' is no longer configured",
                "set one: chatcli config set fallback.chain '[\"anthropic/claude-sonnet-4-5\", "
                "\"openai/gpt-5.4-mini\"]', or name the entries: --provider fallback --model "
                "'anthropic/claude-sonnet-4-5,openai/gpt-5.4-mini'")
    else:
        known = groups.get(name)
        group = Group(name, known.strategy if known else "chain",
                      parse_entries(model, f"the entries of '{name}' (--model)"),
                      known.options if known else base_options(raw),
                      where=f"the entries of '{name}' (--model)")
    specs = resolve_entries(host, group, set(group_names(raw)) | set(groups))
    provider = GroupProvider(group, host, settings, specs)
    with RUNTIME.lock:
        RUNTIME.built[name] = provider
    return provider


def default_model(name: str) -> str:
    """The model name meaning "the configured entries" (``chain`` or ``pool``)."""
    return "chain" if name == "fallback" else "pool"


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

    from chatcli_fallback.config import group_names, load_groups
    from chatcli_fallback.group import resolve_entries

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

    def native(spec: Any) -> bool:
        chosen = settings.provider_settings(spec.name).tool_calls
        return spec.capabilities.native_tools if chosen == "auto" else chosen == "native"

    def uses(spec: Any) -> bool:
        chosen = getattr(settings.provider_settings(spec.name), "tools", "auto")
        return getattr(spec.capabilities, "uses_tools", True) if chosen == "auto" else bool(
            chosen)

    ttls = tuple(ttl for ttl in caps[0].cache_ttls if all(ttl in c.cache_ttls for c in caps))
    values = {
        "streaming": all(c.streaming for c in caps),
        "native_tools": all(native(spec) for _entry, spec in pairs),
        "prompt_caching": any(c.prompt_caching for c in caps),
        "vision": all(c.vision for c in caps),
        "cache_ttls": ttls,
        "uses_tools": any(uses(spec) for _entry, spec in pairs),
    }
    return Capabilities(**{k: v for k, v in values.items() if k in Capabilities._fields})


class GroupCapabilities(Capabilities):
    """:class:`chatcli.Capabilities` of a group, worked out from its entries when read."""

    __slots__ = ()
    group = ""

    @property
    def streaming(self) -> bool:  # type: ignore[override]
        """Every entry streams."""
        return resolve_capabilities(self.group).streaming

    @property
    def native_tools(self) -> bool:  # type: ignore[override]
        """Every entry takes tools through the API."""
        return resolve_capabilities(self.group).native_tools

    @property
    def prompt_caching(self) -> bool:  # type: ignore[override]
        """Some entry caches prompts."""
        return resolve_capabilities(self.group).prompt_caching

    @property
    def vision(self) -> bool:  # type: ignore[override]
        """Every entry reads images."""
        return resolve_capabilities(self.group).vision

    @property
    def cache_ttls(self) -> tuple[str, ...]:  # type: ignore[override]
        """The cache lifetimes every entry offers."""
        return resolve_capabilities(self.group).cache_ttls

    @property
    def uses_tools(self) -> bool:  # type: ignore[override]
        """Some entry uses tools (a lean request would take them from every entry)."""
        return getattr(resolve_capabilities(self.group), "uses_tools", True)


def _capabilities(name: str) -> Capabilities:
    cls = type("GroupCapabilities", (GroupCapabilities,), {"__slots__": (), "group": name})
    return cls()


class GroupWindows(Mapping[str, int]):
    """``ProviderSpec.context_windows`` of a group: ``{"": the smallest window of its
    entries}`` once the run is configured (empty when none is known)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _data(self) -> dict[str, int]:
        found = _entries_of(self.name)
        if not found:
            return {}
        pairs, settings = found
        windows = []
        for entry, spec in pairs:
            table = settings.provider_settings(spec.name)
            model = entry.model or table.model or spec.default_model
            listed = None
            if hasattr(settings, "model_settings"):  # the [models."provider/model"] table
                found = settings.model_settings(spec.name, model, having="context_window")
                listed = found[1].context_window if found else None
            window = listed or table.context_window or spec.context_window(model)
            if window:
                windows.append(window)
        return {"": min(windows)} if windows else {}

    def __getitem__(self, key: str) -> int:
        return self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())


# ------------------------------------------------------------------ specs


def _describe(name: str, raw: Mapping[str, Any]) -> str:
    table = raw.get("fallback") if isinstance(raw.get("fallback"), dict) else {}
    if name == "fallback":
        entries, strategy = table.get("chain"), "chain"
    else:
        pool = (table.get("pools") or {}).get(name) or {}
        entries, strategy = pool.get("entries"), pool.get("strategy", "round_robin")
    if isinstance(entries, list):
        shown = " → " if strategy == "chain" else ", "
        listed = shown.join(str(e) if isinstance(e, str) else str(e.get("provider", "?"))
                            for e in entries if isinstance(e, str | dict))
        return f"{strategy.replace('_', '-')}: {listed}"
    return ("a fallback chain: set [fallback] chain, or --model 'a/x,b/y'" if name == "fallback"
            else f"a {strategy} pool")


def spec_for(name: str, raw: Mapping[str, Any]) -> ProviderSpec:
    """The spec of group ``name`` (``fallback`` or a pool of ``[fallback.pools]``)."""

    def factory(config: ProviderConfig) -> Any:
        return build_group(name, config)

    factory.__name__ = f"make_{name}_group"
    return ProviderSpec(
        name=name,
        display_name="Fallback chain" if name == "fallback" else f"Pool {name}",
        factory=factory,
        default_model=default_model(name),
        requires_key=False,
        capabilities=_capabilities(name),
        priority=0,
        auto_select=False,  # used only when named: --provider, /switch, provider = …
        description=_describe(name, raw),
        context_windows=GroupWindows(name),
    )
