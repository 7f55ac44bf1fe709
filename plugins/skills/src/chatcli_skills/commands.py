"""In-chat commands: ``/skills`` (list, trust) and ``/skill`` (run one, pin, unpin, pinned),
plus ``/NAME`` for every user-invocable skill found when the chat lists its commands.

``/skill NAME [ARGS]`` sends ARGS (or "Use the NAME skill.") as the next message, with the
skill activated for that turn whatever its triggers say. ``/NAME`` is not registered for a
skill whose name another command uses (``/help``, ``/clear`` …), nor for ``user-invocable:
false`` skills; ``/skill NAME`` works for them all. The ``/NAME`` commands are the skills found
when the chat first lists its commands, listed again right after ``/skills trust`` (the
project's skills then have theirs at once): a skill added later is reached with ``/skill NAME``.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import SlashCommand

    from chatcli_skills.core import Skills
    from chatcli_skills.sources import Catalog

__all__ = ["RESERVED", "slash_commands"]

#: Command names chatcli and its plugins use: never shadowed by a skill's ``/NAME``.
RESERVED = frozenset({
    "help", "exit", "quit", "clear", "retry", "rewind", "undo", "compact", "context", "cost",
    "session", "sessions", "fork", "model", "models", "switch", "provider", "agent", "coder",
    "permissions", "persona", "personas", "agents", "skill", "skills", "config", "keys",
    "plugins", "mode", "modes", "hooks", "memory", "mcp", "copy", "save", "load", "new",
    "history", "export", "status", "init", "commands", "theme", "attach", "debug",
})

SKILL_HELP = ("run a skill now (/skill NAME [ARGS]), or pin one into the system prompt: "
              "/skill pin NAME | unpin NAME | pinned")
SKILLS_HELP = "list the skills (and which are shadowed or untrusted) | /skills trust [always]"


def _say(app: Any, text: str, style: str | None = None) -> None:
    app.console.print(text, style=style, markup=False, highlight=False)


def _listing(catalog: Catalog, pinned: set[str], disabled: set[str]) -> list[str]:
    lines = []
    for skill in catalog.active():
        marks = []
        if skill.name in pinned:
            marks.append("pinned")
        if skill.name in disabled:
            marks.append("disabled")
        if not skill.model_invocable:
            marks.append("user only")
        mark = f" [{', '.join(marks)}]" if marks else ""
        description = skill.catalog_description()
        if len(description) > 90:
            description = description[:89] + "…"
        lines.append(f"  {skill.name}{mark} ({skill.source}): {description}")
    for name in sorted(catalog.untrusted):
        lines.append(f"  {name} [untrusted project] ({catalog.untrusted[name].source})")
    for shadowed, winner in catalog.shadowed:
        lines.append(f"  {shadowed.name} in {shadowed.folder} is shadowed by {winner.folder}")
    return lines


def _skills(core: Skills, app: Any, argument: str) -> None:
    words = argument.split()
    if words and words[0] == "trust":
        root = core.project()
        if root is None:
            _say(app, "not in a project: there is nothing to trust", "yellow")
            return
        always = len(words) > 1 and words[1] == "always"
        session = getattr(app, "session", None)
        if always and not getattr(session, "interactive", False):
            # chatcli -p "/skills trust always" (or a piped file that starts so): a run
            # without a person never trusts by itself
            _say(app, "not in a chat: nothing recorded; run `chatcli trust` (it shows what the "
                      "project would change and asks)", "yellow")
            return
        core.trusted_roots.add(root)
        if always:
            from chatcli import project_trust
            from chatcli_workspace import trust_project

            files = project_trust(core.ws(), core.host).files
            state = trust_project(core.ws(), core.host)
            _say(app, f"trusted {state.root} for good, as its files are now ({len(files)} "
                      "file" + ("s" if len(files) != 1 else "") + " that change chatcli: its "
                      "skills, and its config, hooks and MCP servers from the next session); "
                      "a change asks again, `chatcli trust --revoke` undoes it")
        else:
            _say(app, f"trusted {root} for this session (/skills trust always: for good)")
        catalog = core.catalog()
        # the project's skills get their /NAME commands now, not at the next listing
        changed = getattr(core.host, "slash_commands_changed", None)
        if changed is not None:
            changed()
        _say(app, f"{len(catalog.skills)} skills active")
        return
    if words and words[0] not in ("list", "ls"):
        _say(app, f"/skills: unknown word {words[0]!r}; {SKILLS_HELP}", "yellow")
        return
    catalog = core.catalog()
    options = core.options()
    pinned = {s.name for s in core.pinned(catalog, options)}
    lines = _listing(catalog, pinned, set(options.disabled))
    if not lines:
        _say(app, "no skills found; put SKILL.md folders in .chatcli/skills/ or "
                  "~/.config/chatcli/skills/ (chatcli skills path lists every place)")
        return
    _say(app, f"skills ({len(catalog.skills)} active"
              + (f", {len(catalog.untrusted)} untrusted" if catalog.untrusted else "") + "):")
    for line in lines:
        _say(app, line)


def _unknown(core: Skills, catalog: Catalog, name: str) -> str:
    if name in catalog.untrusted:
        return (f"skill {name!r} belongs to this project, which is not trusted: /skills trust "
                "first")
    close = difflib.get_close_matches(name, list(catalog.skills), n=1, cutoff=0.5)
    return f"no skill named {name!r}" + (f" — did you mean {close[0]}?" if close else
                                          " — /skills lists them")


def run_skill(core: Skills, app: Any, name: str, arguments: str) -> None:
    """Activate skill ``name`` for a turn on ``arguments`` (sent now)."""
    catalog = core.catalog()
    skill = catalog.find(name)
    if skill is None:
        _say(app, _unknown(core, catalog, name), "yellow")
        return
    core.invoke(app.conversation, skill.name, arguments)
    finished = app.ask(arguments or f"Use the {skill.name} skill.")
    if finished is None:
        core.cancel_invocations(app.conversation)


def _skill(core: Skills, app: Any, argument: str) -> None:
    word, _, rest = argument.strip().partition(" ")
    rest = rest.strip()
    if not word:
        _say(app, f"/skill: {SKILL_HELP}")
        return
    if word in ("pin", "unpin"):
        catalog = core.catalog()
        skill = catalog.find(rest) if rest else None
        if skill is None:
            _say(app, _unknown(core, catalog, rest) if rest else f"/skill {word} NAME",
                 "yellow")
            return
        if word == "pin":
            core.unpinned.discard(skill.name)
            if skill.name not in core.pins:
                core.pins.append(skill.name)
            _say(app, f"pinned {skill.name}: its instructions are in the system prompt "
                      "(cached) from the next message on")
        else:
            core.unpinned.add(skill.name)
            if skill.name in core.pins:
                core.pins.remove(skill.name)
            _say(app, f"unpinned {skill.name}")
        return
    if word == "pinned":
        pinned = core.pinned(core.catalog())
        _say(app, "pinned: " + ", ".join(s.name for s in pinned) if pinned else
             "no skill is pinned (/skill pin NAME)")
        return
    run_skill(core, app, word, rest)


def _complete(core: Skills) -> Any:
    def complete(app: Any, text: str) -> list[str]:
        try:
            names = sorted(core.catalog().skills)
        except Exception:
            return []
        return [n for n in names if n.startswith(text.strip())]

    return complete


def slash_commands(core: Skills) -> list[SlashCommand]:
    """``/skills``, ``/skill`` and a ``/NAME`` per user-invocable skill."""
    from chatcli import SlashCommand

    commands = [
        SlashCommand("skills", SKILLS_HELP, lambda app, text: _skills(core, app, text),
                     subcommands=("list", "trust")),
        SlashCommand("skill", SKILL_HELP, lambda app, text: _skill(core, app, text),
                     subcommands=("pin", "unpin", "pinned"), complete=_complete(core)),
    ]
    try:
        catalog = core.catalog()
    except Exception as err:  # a broken skill folder must not cost the chat its commands
        core.warn(f"skills: cannot list the skills for their /commands: {err}")
        return commands
    for skill in catalog.active():
        if not skill.user_invocable or skill.name in RESERVED:
            continue
        hint = f" {skill.argument_hint}" if skill.argument_hint else ""
        description = skill.catalog_description()
        if len(description) > 70:
            description = description[:69] + "…"
        commands.append(SlashCommand(
            skill.name, f"skill{hint}: {description}",
            _runner(core, skill.name)))
    return commands


def _runner(core: Skills, name: str) -> Callable[[Any, str], None]:
    """``/NAME`` of a skill a person may call: runs it on the text typed after the command."""
    return lambda app, text: run_skill(core, app, name, text.strip())
