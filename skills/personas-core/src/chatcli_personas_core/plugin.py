"""Entry module of chatcli-personas-core (entry point ``personas-core``): registers the folder of
sixteen personas that ships inside the package (``personas/*.md``, package data)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli_plugin_records import PersonaSource

__all__ = ["personas_folder", "register_persona_sources"]


def personas_folder() -> Path:
    """The folder of the pack's persona files."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "personas"


@hookimpl
def register_persona_sources(register: Callable[[PersonaSource], None]) -> None:
    """The pack's folder, under the source name ``core``."""
    from chatcli_plugin_records import PersonaSource

    register(PersonaSource(name="core", path=personas_folder()))
