"""The :class:`chatcli.ProviderSpec` of each chain and pool (imported while providers are
registered: keep it small — what needs the configured run is in :mod:`chatcli_fallback.resolve`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from chatcli import Capabilities, ProviderSpec, translation

from chatcli_fallback.runtime import default_model

if TYPE_CHECKING:
    from chatcli import ProviderConfig

__all__ = ["spec_for"]

_, ngettext = translation(__name__)


def _resolved(name: str) -> Capabilities:
    from chatcli_fallback.resolve import resolve_capabilities

    return resolve_capabilities(name)


class GroupCapabilities(Capabilities):
    """:class:`chatcli.Capabilities` of a group, worked out from its entries when read."""

    __slots__ = ()
    group = ""

    @property
    def streaming(self) -> bool:
        """Every entry streams."""
        return _resolved(self.group).streaming

    @property
    def native_tools(self) -> bool:
        """Every entry takes tools through the API."""
        return _resolved(self.group).native_tools

    @property
    def prompt_caching(self) -> bool:
        """Some entry caches prompts."""
        return _resolved(self.group).prompt_caching

    @property
    def vision(self) -> bool:
        """Every entry reads images."""
        return _resolved(self.group).vision

    @property
    def cache_ttls(self) -> tuple[str, ...]:
        """The cache lifetimes every entry offers."""
        return _resolved(self.group).cache_ttls

    @property
    def uses_tools(self) -> bool:
        """Some entry uses tools (a lean request would take them from every entry)."""
        return _resolved(self.group).uses_tools


def _capabilities(name: str) -> Capabilities:
    cls: type[GroupCapabilities] = type(
        "GroupCapabilities", (GroupCapabilities,), {"__slots__": (), "group": name})
    return cls()


class GroupWindows(Mapping[str, int]):
    """``ProviderSpec.context_windows`` of a group, worked out when read (see
    :func:`chatcli_fallback.resolve.context_windows`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _data(self) -> dict[str, int]:
        from chatcli_fallback.resolve import context_windows

        return context_windows(self.name)

    def __getitem__(self, key: str) -> int:
        return self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())


# ------------------------------------------------------------------ specs


def _describe(name: str, raw: Mapping[str, Any]) -> str:
    fallback = raw.get("fallback")
    table: dict[str, Any] = fallback if isinstance(fallback, dict) else {}
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
    return (_("a fallback chain: set [fallback] chain, or --model 'a/x,b/y'")
            if name == "fallback" else _("a {strategy} pool").format(strategy=strategy))


def spec_for(name: str, raw: Mapping[str, Any]) -> ProviderSpec:
    """The spec of group ``name`` (``fallback`` or a pool of ``[fallback.pools]``)."""

    def factory(config: ProviderConfig) -> Any:
        from chatcli_provider_kit.textcalls import text_tool_calls

        from chatcli_fallback.resolve import build_group

        # one protocol for the whole chain: when an entry takes no tool definitions, every
        # entry gets the text protocol (an entry that wraps itself then sees no tools)
        return text_tool_calls(build_group(name, config), config)

    factory.__name__ = f"make_{name}_group"
    return ProviderSpec(
        name=name,
        display_name=_("Fallback chain") if name == "fallback" else _("Pool {name}").format(
            name=name),
        factory=factory,
        default_model=default_model(name),
        requires_key=False,
        capabilities=_capabilities(name),
        priority=0,
        auto_select=False,  # used only when named: --provider, /switch, provider = …
        description=_describe(name, raw),
        context_windows=GroupWindows(name),
    )
