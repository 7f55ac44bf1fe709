"""Entry module: registers the folder of skills this package ships.

Each sub-folder of ``skills/`` is one skill: a ``SKILL.md`` with YAML front matter (``name``,
``description``) and instructions, plus any files it refers to. The folder is package data, so it
is installed with the package.
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


# chatcli-skills declares this hook (and reads the folders it registers); optionalhook: without
# chatcli-skills installed the pack is simply unused instead of refused as an unknown hook.
@hookimpl(optionalhook=True)
def register_skill_sources(register: Callable[[SkillSource], None]) -> None:
    """Register this pack's skills folder as the source ``{{name}}``."""
    from chatcli_plugin_records import SkillSource

    register(SkillSource(name="{{name}}", path=str(SKILLS_DIR)))
