"""Entry module: the hookimpl that registers the tool, nothing more.

The tool's code lives in ``tool.py`` and is imported only when chatcli builds a conversation
engine (``register_tools`` is called then, not on every start).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import Tool


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    """Register the {{name}} tool."""
    from {{package}}.tool import make_tool

    register(make_tool())
