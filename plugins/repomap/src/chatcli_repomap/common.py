"""What the two plugins share: whether a request is lean (a model offered no tools), and the
environment git runs in."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import PluginHost, Settings

__all__ = ["git_env", "lean"]

#: How long a listed config is reused: the environment section and the map are made in the
#: same prompt build, milliseconds apart (one ``git config --list`` for both).
ENV_SECONDS = 2.0
_ENVIRONMENTS: dict[str, tuple[float, dict[str, str]]] = {}


def git_env(root: Path, timeout: float = 10.0) -> dict[str, str]:
    """:func:`chatcli_workspace.safe_git_env` for ``root``, listed at most every
    :data:`ENV_SECONDS` (raises as it does: ``GitMissing``, ``TimeoutExpired``)."""
    from chatcli_workspace import safe_git_env

    now = time.monotonic()
    cached = _ENVIRONMENTS.get(str(root))
    if cached is None or now - cached[0] >= ENV_SECONDS:
        cached = (now, safe_git_env(root, timeout=timeout))
        if len(_ENVIRONMENTS) > 16:
            _ENVIRONMENTS.clear()
        _ENVIRONMENTS[str(root)] = cached
    return cached[1]


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
