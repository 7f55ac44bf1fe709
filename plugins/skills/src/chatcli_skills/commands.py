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

from chatcli import translation

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

_, ngettext = translation(__name__)

SKILL_HELP = _("run a skill now (/skill NAME [ARGS]), or pin one into the system prompt: "
               "/skill pin NAME | unpin NAME | pinned")
SKILLS_HELP = _("list the skills (and which are shadowed or untrusted) | /skills trust [always]")


def _say(app: Any, text: str, style: str | None = None) -> None:
    app.console.print(text, style=style, markup=False, highlight=False)


def _listing(catalog: Catalog, pinned: set[str], disabled: set[str]) -> list[str]:
    lines = []
    for skill in catalog.active():
        marks = []
        if skill.name in pinned:
            marks.append(_("pinned"))
        if skill.name in disabled:
            marks.append(_("disabled"))
        if not skill.model_invocable:
            marks.append(_("user only"))
        mark = f" [{', '.join(marks)}]" if marks else ""
        description = skill.catalog_description()
        if len(description) > 90:
            description = description[:89] + "…"
        lines.append(f"  {skill.name}{mark} ({skill.source}): {description}")
    for name in sorted(catalog.untrusted):
        untrusted = _("untrusted project")
        lines.append(f"  {name} [{untrusted}] ({catalog.untrusted[name].source})")
    for shadowed, winner in catalog.shadowed:
        lines.append("  " + _("{name} in {folder} is shadowed by {winner}").format(
            name=shadowed.name, folder=shadowed.folder, winner=winner.folder))
    return lines


def _skills(core: Skills, app: Any, argument: str) -> None:
    words = argument.split()
    if words and words[0] == "trust":
        root = core.project()
        if root is None:
            _say(app, _("not in a project: there is nothing to trust"), "yellow")
            return
        always = len(words) > 1 and words[1] == "always"
        session = getattr(app, "session", None)
        if always and not getattr(session, "interactive", False):
            # chatcli -p "/skills trust always" (or a piped file that starts so): a run
            # without a person never trusts by itself
            _say(app, _("not in a chat: nothing recorded; run `chatcli trust` (it shows what "
                        "the project would change and asks)"), "yellow")
            return
        core.trusted_roots.add(root)
        if always:
            from chatcli import project_trust
            from chatcli_workspace import trust_project

            files = project_trust(core.ws(), core.host).files
            state = trust_project(core.ws(), core.host)
            _say(app, ngettext(
                "trusted {root} for good, as its files are now ({count} file that change "
                "chatcli: its skills, and its config, hooks and MCP servers from the next "
                "session); a change asks again, `chatcli trust --revoke` undoes it",
                "trusted {root} for good, as its files are now ({count} files that change "
                "chatcli: its skills, and its config, hooks and MCP servers from the next "
                "session); a change asks again, `chatcli trust --revoke` undoes it",
                len(files)).format(root=state.root, count=len(files)))
        else:
            _say(app, _("trusted {root} for this session (/skills trust always: for good)")
                 .format(root=root))
        catalog = core.catalog()
        # the project's skills get their /NAME commands now, not at the next listing
        changed = getattr(core.host, "slash_commands_changed", None)
        if changed is not None:
            changed()
        _say(app, ngettext("{count} skill active", "{count} skills active",
                           len(catalog.skills)).format(count=len(catalog.skills)))
        return
    if words and words[0] not in ("list", "ls"):
        _say(app, _("/skills: unknown word {word!r}; {usage}").format(word=words[0],
                                                                     usage=SKILLS_HELP),
             "yellow")
        return
    catalog = core.catalog()
    options = core.options()
    pinned = {s.name for s in core.pinned(catalog, options)}
    lines = _listing(catalog, pinned, set(options.disabled))
    if not lines:
        _say(app, _("no skills found; put SKILL.md folders in .chatcli/skills/ or "
                    "~/.config/chatcli/skills/ (chatcli skills path lists every place)"))
        return
    active, untrusted = len(catalog.skills), len(catalog.untrusted)
    _say(app, (_("skills ({active} active, {untrusted} untrusted):") if untrusted else
               _("skills ({active} active):")).format(active=active, untrusted=untrusted))
    for line in lines:
        _say(app, line)


def _unknown(core: Skills, catalog: Catalog, name: str) -> str:
    if name in catalog.untrusted:
        return _("skill {name!r} belongs to this project, which is not trusted: /skills "
                 "trust first").format(name=name)
    close = difflib.get_close_matches(name, list(catalog.skills), n=1, cutoff=0.5)
    if close:
        return _("no skill named {name!r} — did you mean {close}?").format(name=name,
                                                                         close=close[0])
    return _("no skill named {name!r} — /skills lists them").format(name=name)


def run_skill(core: Skills, app: Any, name: str, arguments: str) -> None:
    """Activate skill ``name`` for a turn on ``arguments`` (sent now)."""
    catalog = core.catalog()
    skill = catalog.find(name)
    if skill is None:
        _say(app, _unknown(core, catalog, name), "yellow")
        return
    core.invoke(app.conversation, skill.name, arguments)
    finished = app.ask(arguments or f"Use the {skill.name} skill.")  # untranslated: the model's
    if finished is None:
        core.cancel_invocations(app.conversation)


def _skill(core: Skills, app: Any, argument: str) -> None:
    word, _sep, rest = argument.strip().partition(" ")
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
            _say(app, _("pinned {name}: its instructions are in the system prompt (cached) "
                        "from the next message on").format(name=skill.name))
        else:
            core.unpinned.add(skill.name)
            if skill.name in core.pins:
                core.pins.remove(skill.name)
            _say(app, _("unpinned {name}").format(name=skill.name))
        return
    if word == "pinned":
        pinned = core.pinned(core.catalog())
        _say(app, _("pinned: {names}").format(names=", ".join(s.name for s in pinned))
             if pinned else _("no skill is pinned (/skill pin NAME)"))
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
        core.warn(_("skills: cannot list the skills for their /commands: {error}").format(
            error=err))
        return commands
    for skill in catalog.active():
        if not skill.user_invocable or skill.name in RESERVED:
            continue
        hint = f" {skill.argument_hint}" if skill.argument_hint else ""
        description = skill.catalog_description()
        if len(description) > 70:
            description = description[:69] + "…"
        commands.append(SlashCommand(
            skill.name, _("skill{hint}: {description}").format(hint=hint,
                                                               description=description),
            _runner(core, skill.name)))
    return commands


def _runner(core: Skills, name: str) -> Callable[[Any, str], None]:
    """``/NAME`` of a skill a person may call: runs it on the text typed after the command."""
    return lambda app, text: run_skill(core, app, name, text.strip())
