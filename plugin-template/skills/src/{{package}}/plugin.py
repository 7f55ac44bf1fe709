"""Entry module: registers the folder of skills this package ships.

Each sub-folder of ``skills/`` is one skill: a ``SKILL.md`` with YAML front matter (``name``,
``description``) and instructions, plus any files it refers to. The folder is package data, so it
is installed with the package.

A skill's ``SKILL.md`` is read by the model and stays as written (the model answers in the user's
language anyway); what this package says to the user itself — the error below — is marked with
``_()`` and shown in the user's language from its own catalog, in its ``locale`` folder (see
README.md, "Translations").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from chatcli_plugin_records import SkillSource

#: This package's messages in the user's language (its catalog is read on the first one, not
#: when chatcli imports this module).
_, ngettext = translation(__name__)

#: The folder holding this pack's skills.
SKILLS_DIR = Path(__file__).parent / "skills"


# chatcli-skills declares this hook (and reads the folders it registers); optionalhook: without
# chatcli-skills installed the pack is simply unused instead of refused as an unknown hook.
@hookimpl(optionalhook=True)
def register_skill_sources(register: Callable[[SkillSource], None]) -> None:
    """Register this pack's skills folder as the source ``{{name}}``."""
    from chatcli import ConfigError
    from chatcli_plugin_records import SkillSource

    if not SKILLS_DIR.is_dir():  # an install that left the package data out
        # chatcli reports it as one line: this plugin failed, why, and how to fix it
        raise ConfigError(
            _("the {{title}} skill pack has no skills folder ({path})")
            .format(path=SKILLS_DIR),
            _("reinstall {{distribution}}"),
        )

    register(SkillSource(name="{{name}}", path=str(SKILLS_DIR)))
