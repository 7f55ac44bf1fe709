"""The skills' system prompt sections, both stable (in the cached prefix).

- ``skills-catalog``: one line per skill the model may use — name, description, location — and
  how to load one. Byte-identical from call to call while the skills and the tools that read
  them back stay the same.
- ``skills-pinned``: the whole bodies of the skills the user pinned (``/skill pin``,
  ``[skills] pinned``), which then never need to be injected into a turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from chatcli_skills.inject import Reach, pull_call
from chatcli_skills.skill import Skill

__all__ = ["CATALOG_ORDER", "PINNED_ORDER", "catalog_text", "pinned_text"]

CATALOG_ORDER = 700
PINNED_ORDER = 710


def catalog_text(skills: Sequence[Skill], reach: Reach) -> str:
    """The catalog section's text (empty without skills)."""
    if not skills:
        return ""
    if reach.pull:
        how = ("When the task at hand matches a skill's description, load that skill before "
               f"you start: call context_pull with {pull_call('<name>')}; it returns the "
               "instructions and lists the skill's files. Read a reference file only when the "
               "instructions call for it; run a skill's scripts with the exec tool. "
               'context_pull {"kind": "skills"} lists the skills again with more detail.')
    elif reach.read_tool:
        how = ("When the task at hand matches a skill's description, read its SKILL.md (the "
               f"location shown) with the {reach.read_tool} tool before you start, and follow "
               "it; read its other files only when it says so.")
    else:
        how = ("A skill's instructions arrive with the user's message when it matches, or "
               "when the user runs /skill NAME; suggest a skill by name when it would help.")
    lines = ["## Skills",
             "Skills are instructions for particular tasks, each in a folder with its files. "
             + how, ""]
    lines += [f"- {s.name}: {s.catalog_description()} (location: {s.path})" for s in skills]
    return "\n".join(lines)


def pinned_text(skills: Sequence[Skill]) -> str:
    """The pinned section's text (empty when nothing is pinned)."""
    if not skills:
        return ""
    names = ", ".join(s.name for s in skills)
    return "\n\n".join([f"## Pinned skills\nThe user pinned these skills ({names}): follow "
                        "them for the whole conversation.",
                        *(s.block() for s in skills)])
