"""The hook chatcli-personas offers other plugins (declared through ``add_hookspecs``).

A persona pack implements it without importing this plugin::

    @chatcli.hookimpl
    def register_persona_sources(register):
        register(PersonaSource(name="mine", path=Path(__file__).parent / "personas"))

(``from chatcli_plugin_records import PersonaSource``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_plugin_records import PersonaSource


@hookspec
def register_persona_sources(register: Callable[[PersonaSource], None]) -> None:
    """Register folders of personas (markdown files whose frontmatter names and describes a
    persona and whose body is its system prompt).

    Called by chatcli-personas when it first lists the personas (through ``host.collect``;
    once per process) and by ``chatcli plugins list``. Package personas come after the
    project's and the user's: a persona of the same name in ``.chatcli/agents/`` wins.

    :param register: call ``register(PersonaSource(name=..., path=...))`` per folder.

    The return value is ignored.
    """
