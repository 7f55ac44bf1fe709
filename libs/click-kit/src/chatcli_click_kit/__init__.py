"""chatcli-click-kit: click helpers for chatcli's command line.

- :class:`LazyGroup` and :class:`LazyCommand`: sub-commands whose code is imported only when they
  run, so ``chatcli --help`` lists them without importing them.
- :mod:`chatcli_click_kit.help_cache`: the root help page kept with the files it was made from,
  printed again without importing click while none of them changed.

Importing this package imports nothing (click included) until a name is used: the help cache
runs before click is loaded.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: the help cache imports this package first
if TYPE_CHECKING:
    from chatcli_click_kit._lazy import LazyCommand, LazyGroup

__all__ = ["LazyCommand", "LazyGroup"]
__version__ = "1.1.0"


def __getattr__(name: str) -> object:
    if name in __all__:
        from chatcli_click_kit import _lazy

        return getattr(_lazy, name)
    raise AttributeError(f"module 'chatcli_click_kit' has no attribute {name!r}")
