"""Entry module of chatcli-skills-core (entry point ``skills-core``): registers the pack's folder.

Each sub-folder of ``skills/`` is one Agent Skill (``SKILL.md`` plus the files it mentions),
shipped as package data.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli_plugin_records import SkillSource

#: The folder holding this pack's skills.
SKILLS_DIR = Path(__file__).parent / "skills"


@hookimpl
def register_skill_sources(register: Callable[[SkillSource], None]) -> None:
    """Register the pack's skills folder as the source ``core``."""
    from chatcli_plugin_records import SkillSource

    register(SkillSource(name="core", path=SKILLS_DIR))
