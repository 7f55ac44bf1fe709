"""One persona: a markdown file whose frontmatter describes it and whose body is its prompt.

```markdown
---
name: security-specialist        # what @mentions and /persona use (the file's name if absent)
title: Security Specialist       # shown above its answers (from the name if absent)
description: Finds the ways in before someone else does.
traits: [sceptical, thorough]
tone: calm and exact
approach: threat-model first, then read the code the way an attacker would
specialties: [threat modelling, authentication]
capabilities:
  - code review: reads changes for injection, secrets and unsafe defaults
skills: [code-review]
tools: [read, search, glob]      # the only tools it may call (absent: no limit)
provider: anthropic              # optional: used while it speaks
model: claude-sonnet-4-5
colour: "#FFD700"
icon: 🛡
isolation: worktree              # as an agent type: its workers run in a git worktree
max-turns: 20                    # as an agent type: its workers' model-call limit
---
You are …
```

Claude Code's subagent files (``.claude/agents/*.md``: ``name``, ``description``, ``tools``,
``model``, ``color``) are read as they are (``claude=True``): their ``model`` may be an alias
(``sonnet``, ``opus``, ``haiku``, ``inherit``), kept as :attr:`Persona.model_alias` for the
agent type and not used as a model id when the persona answers in the chat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import translation

from chatcli_personas.claude import MODEL_ALIASES, split_entries
from chatcli_personas.frontmatter import as_list, as_text, parse

__all__ = ["ISOLATIONS", "MAX_TURNS", "NAME_PATTERN", "Persona", "load_persona", "slug"]

_, ngettext = translation(__name__)

#: A persona's name: what follows ``@`` and ``/persona``.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")

#: Longest description kept (the rest is cut with an ellipsis).
MAX_DESCRIPTION = 300

#: What ``isolation`` may say (as an agent type): its workers run in a git worktree.
ISOLATIONS = ("worktree",)
#: Largest ``max-turns`` a persona may set.
MAX_TURNS = 1000


@dataclass(frozen=True)
class Persona:
    """A persona as loaded. ``tools`` is None when the file names no tools (no limit) and a
    tuple (maybe empty: no tools at all) when it does. ``source`` says where it came from
    (``project``, ``user`` or a package's source name). ``claude`` is True for a file read in
    Claude Code's format (``.claude/agents``); ``model_alias`` is a model written as Claude
    Code's alias (``sonnet``: for the agent type; ``model`` is then None); ``isolation`` and
    ``max_turns`` are for its workers as an agent type."""

    name: str
    title: str
    description: str
    prompt: str
    path: Path
    source: str = ""
    traits: tuple[str, ...] = ()
    tone: str = ""
    approach: str = ""
    specialties: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    tools: tuple[str, ...] | None = None
    provider: str | None = None
    model: str | None = None
    colour: str | None = None
    icon: str = ""
    isolation: str | None = None
    max_turns: int | None = None
    model_alias: str | None = None
    claude: bool = False

    @property
    def label(self) -> str:
        """The icon and the title: what is shown above its answers."""
        return f"{self.icon} {self.title}".strip()


def slug(text: str) -> str:
    """``Security Specialist`` → ``security-specialist``."""
    words = re.sub(r"[^a-z0-9_.-]+", "-", text.strip().lower()).strip("-._")
    return re.sub(r"-{2,}", "-", words)[:64]


def _title(name: str) -> str:
    return " ".join(word.capitalize() for word in re.split(r"[-_.]+", name) if word)


def _capabilities(value: Any) -> tuple[str, ...]:
    """A list of strings, of ``{name: description}`` maps or of ``{name, description}`` maps."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    found: list[str] = []
    for item in items:
        if isinstance(item, dict):
            if "name" in item:
                name, text = as_text(item.get("name")), as_text(item.get("description"))
                found.append(f"{name}: {text}" if text else name)
            else:
                found.extend(f"{as_text(k)}: {as_text(v)}" if v else as_text(k)
                             for k, v in item.items())
        elif as_text(item):
            found.append(as_text(item))
    return tuple(found)


def _colour(value: Any, problems: list[str]) -> str | None:
    text = as_text(value)
    if not text:
        return None
    from chatcli_personas.frontmatter import remembered

    colour, problem = remembered("colours", text, lambda: _checked_colour(text))
    if problem:
        problems.append(problem)
    return colour  # type: ignore[no-any-return]


def _checked_colour(text: str) -> list[str | None]:
    """[the colour rich knows ``text`` as, the problem] (one of them None)."""
    from rich.color import Color, ColorParseError

    for candidate in (text, f"{text}1"):  # Claude Code's 'orange', 'pink': rich's 'orange1'
        try:
            Color.parse(candidate)
        except ColorParseError:
            continue
        return [candidate, None]
    return [None, _("colour '{text}' is not a colour (a name like 'gold1' or '#FFD700'); its "
                    "answers are shown without one").format(text=text)]


def _isolation(value: Any, problems: list[str]) -> str | None:
    text = as_text(value).lower()
    if not text or text in ("none", "off", "no"):
        return None
    if text in ISOLATIONS:
        return text
    problems.append(_("isolation '{value}' is not one of: {names}; ignored").format(
        value=as_text(value), names=", ".join(ISOLATIONS)))
    return None


def _max_turns(value: Any, problems: list[str]) -> int | None:
    if value is None or value == "":
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"[0-9]{1,6}", value.strip()):
        number = int(value.strip())
    if number is None or not 1 <= number <= MAX_TURNS:
        problems.append(_("max-turns '{value}' is not a whole number from 1 to {most}; "
                          "ignored").format(value=as_text(value), most=MAX_TURNS))
        return None
    return number


def load_persona(path: Path, source: str = "", *, claude: bool = False
                 ) -> tuple[Persona | None, list[str]]:
    """The persona in ``path`` and the problems found (one line each). A file that cannot be
    read, or has no body (the prompt), gives no persona. ``claude``: the file is Claude Code's
    (``.claude/agents``), which requires a ``name``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        return None, [_("cannot read it: {reason}").format(reason=err.strerror or err)]
    document = parse(text)
    problems = list(document.problems)
    if not document.body:
        return None, [*problems, _("it has no body (the persona's prompt, after the "
                                   "frontmatter); skipped")]
    written = as_text(document.get("name")) or path.stem
    if claude and not as_text(document.get("name")):
        problems.append(_("it has no name (Claude Code requires one); it answers to @{name}")
                        .format(name=slug(written) or written))
    name = written if NAME_PATTERN.match(written) else slug(written)
    if not name:
        return None, [*problems, _("its name '{name}' has no letters or digits; skipped")
                      .format(name=written)]
    if name != written:
        problems.append(_("its name '{written}' is not a plain name (lowercase letters, digits, "
                          "'-'); it answers to @{name}").format(written=written, name=name))
    description = as_text(document.get("description"))
    if not description:
        problems.append(_("it has no description (shown by /personas)"))
    elif len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    model = as_text(document.get("model"))
    tools_value = document.get("tools", "allowed-tools")
    tools = (None if tools_value is None else tuple(split_entries(tools_value))
             if isinstance(tools_value, str) else tuple(as_list(tools_value)))
    persona = Persona(
        name=name,
        title=as_text(document.get("title", "display-name")) or (
            written if name != written and " " in written else _title(name)),
        description=description,
        prompt=document.body,
        path=path,
        source=source,
        traits=tuple(as_list(document.get("traits"))),
        tone=as_text(document.get("tone")),
        approach=as_text(document.get("approach")),
        specialties=tuple(as_list(document.get("specialties", "specialities"))),
        capabilities=_capabilities(document.get("capabilities")),
        skills=tuple(as_list(document.get("skills"))),
        tools=tools,
        provider=as_text(document.get("provider")) or None,
        model=None if model.lower() in MODEL_ALIASES else model or None,
        colour=_colour(document.get("colour", "color"), problems),
        icon=as_text(document.get("icon", "emoji"))[:8],
        isolation=_isolation(document.get("isolation"), problems),
        max_turns=_max_turns(document.get("max-turns", "maxturns"), problems),
        model_alias=model.lower() if model.lower() in MODEL_ALIASES else None,
        claude=claude,
    )
    return persona, problems
