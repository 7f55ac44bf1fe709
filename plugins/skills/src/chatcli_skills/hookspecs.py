"""The hook chatcli-skills offers other plugins (declared through ``add_hookspecs``).

A skill pack implements it without importing this plugin::

    @chatcli.hookimpl
    def register_skill_sources(register):
        register(SkillSource(name="mine", path=Path(__file__).parent / "skills"))

(``from chatcli_plugin_records import SkillSource``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_plugin_records import SkillSource


@hookspec
def register_skill_sources(register: Callable[[SkillSource], None]) -> None:
    """Register folders of skills (each a sub-folder holding a ``SKILL.md``).

    Called by chatcli-skills when it first lists the skills of a run (through
    ``host.collect``; once per process) and by ``chatcli plugins list``.

    :param register: call ``register(SkillSource(name=..., path=...))`` per folder. Anything
        but a :class:`chatcli_plugin_records.SkillSource` is reported and ignored.

    The return value is ignored.
    """
