"""What the two plugins share: whether a request is lean (a model offered no tools)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli import PluginHost, Settings

__all__ = ["lean"]


def lean(host: PluginHost | None, settings: Settings, provider: str) -> bool:
    """Whether ``provider``'s requests are lean (no tools): its capability, or ``[providers.
    NAME] tools = false``. The engine drops non-essential sections from them anyway; knowing
    it first saves the work of making them. Unknown (no host, no such provider): False."""
    if host is None:
        return False
    try:
        spec = host.providers().get(provider)
    except Exception:  # a provider plugin's failure is reported where it is used
        return False
    if spec is None:
        return False
    chosen = settings.provider_settings(provider).tools
    uses = getattr(spec.capabilities, "uses_tools", True) if chosen == "auto" else bool(chosen)
    return not uses
