"""What a persona adds to a request: its prompt section, its tool limit, its label."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli_personas.claude import CLAUDE_TOOL_NAMES as _CLAUDE_TOOL_NAMES
from chatcli_personas.claude import tool_name as _claude_tool_name

if TYPE_CHECKING:
    from chatcli import Author, PromptSection

    from chatcli_personas.persona import Persona

__all__ = ["CLAUDE_TOOL_NAMES", "SECTION_NAME", "allows", "author", "profile_lines", "section",
           "section_text"]

SECTION_NAME = "persona"
#: After the other stable sections (skills, project context) and before the user's own
#: ``system`` text (900): switching persona leaves the cached prefix before it intact.
SECTION_ORDER = 880

#: Claude Code's tool names, as chatcli's tools are called (for ``tools`` and
#: ``allowed-tools`` lists written for Claude Code); the table lives in ``claude.py``.
CLAUDE_TOOL_NAMES = _CLAUDE_TOOL_NAMES


def profile_lines(persona: Persona) -> list[str]:
    """The persona's profile as its frontmatter gives it (traits, tone, approach, specialties,
    capabilities), a line each; [] when it has none."""
    profile = []
    if persona.traits:
        profile.append(f"Traits: {', '.join(persona.traits)}.")
    if persona.tone:
        profile.append(f"Tone: {persona.tone}.")
    if persona.approach:
        profile.append(f"Approach: {persona.approach}")
    if persona.specialties:
        profile.append(f"Specialties: {', '.join(persona.specialties)}.")
    if persona.capabilities:
        profile.append("Capabilities:\n" + "\n".join(f"- {c}" for c in persona.capabilities))
    return profile


def section_text(persona: Persona) -> str:
    """The persona's part of the system prompt: who it is, its profile, then its own prompt."""
    lines = [f"For this answer you are {persona.title} (@{persona.name}), one of chatcli's "
             "personas. Stay in this role; the user addressed you by that name."]
    profile = profile_lines(persona)
    if persona.tools is not None:
        profile.append("Tools you may use: " + (", ".join(persona.tools) or "none") + ".")
    if profile:
        lines.append("\n".join(profile))
    lines.append(persona.prompt)
    return "\n\n".join(lines)


def section(persona: Persona) -> PromptSection:
    """The persona's prompt section (stable: the same text for as long as it speaks)."""
    from chatcli import PromptSection

    return PromptSection(name=SECTION_NAME, text=section_text(persona), stable=True,
                         order=SECTION_ORDER)


def tool_name(entry: str) -> str:
    """A tool list's entry as chatcli names the tool: ``Bash(git add:*)`` → ``exec``."""
    return _claude_tool_name(entry).lower()


def allows(tools: tuple[str, ...] | list[str] | None, name: str) -> bool:
    """Whether a tool list (None: no limit) lets ``name`` be called."""
    if tools is None:
        return True
    return name.lower() in {tool_name(entry) for entry in tools}


def author(persona: Persona) -> Author:
    """How its answers are labelled: icon and title, bold in its colour."""
    from chatcli import Author

    style = f"bold {persona.colour}" if persona.colour else "bold"
    return Author(name=persona.name, label=persona.label, style=style)
