"""Personas as agent types (``register_agent_types``, declared by chatcli-subagents): every
persona — chatcli's own files, the packs', and Claude Code's ``.claude/agents`` — is a kind of
worker a delegation can start.

The type's ``prompt`` is the persona's body (for chatcli's personas, after the profile its
frontmatter gives: traits, tone, approach…); its ``tools`` chatcli's names for the persona's
list (Claude Code's ``Read, Grep, Bash`` are ``read, search, exec``; None: no list, the
parent's tools); its ``model`` the persona's model or Claude Code alias (``inherit`` is None:
the parent's); ``source`` the file, and what of its tool list chatcli could not honour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli_personas.claude import parse_tools

if TYPE_CHECKING:
    from chatcli_plugin_records import AgentType

    from chatcli_personas.persona import Persona

__all__ = ["agent_type", "worker_prompt"]


def worker_prompt(persona: Persona) -> str:
    """The worker's system prompt: a Claude Code agent's body as it is; a chatcli persona's
    profile (when its frontmatter has one) and then its body."""
    if persona.claude:
        return persona.prompt
    from chatcli_personas.prompt import profile_lines

    profile = profile_lines(persona)
    if not profile:
        return persona.prompt
    return "\n\n".join([f"You are {persona.title} (@{persona.name}).", "\n".join(profile),
                        persona.prompt])


def agent_type(persona: Persona) -> AgentType:
    """The agent type of ``persona``."""
    from chatcli_plugin_records import AgentType

    tools = parse_tools(list(persona.tools) if persona.tools is not None else None)
    model = persona.model or (persona.model_alias if persona.model_alias != "inherit" else None)
    note = tools.note()
    return AgentType(
        name=persona.name,
        description=persona.description or persona.title,
        prompt=worker_prompt(persona),
        tools=tools.tools,
        model=model,
        provider=persona.provider,
        isolation=persona.isolation,
        max_turns=persona.max_turns,
        source=f"{persona.path} ({note})" if note else str(persona.path),
    )
