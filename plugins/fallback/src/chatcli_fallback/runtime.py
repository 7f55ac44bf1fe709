"""What the run gave the fallback plugin (``configure``) and the groups it built: state of its
own module, which :mod:`chatcli_fallback.specs` (imported while providers are registered) and
:mod:`chatcli_fallback.resolve` (the configured run) both read without importing each other."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli import PluginHost, Settings

    from chatcli_fallback.group import GroupProvider

__all__ = ["RUNTIME", "Runtime", "default_model"]


class Runtime:
    """What the run gave the plugin (``configure``) and the groups it built, by name."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.built: dict[str, GroupProvider] = {}
        self.lock = threading.Lock()


RUNTIME = Runtime()


def default_model(name: str) -> str:
    """The model name meaning "the configured entries" (``chain`` or ``pool``)."""
    return "chain" if name == "fallback" else "pool"
