"""``/persona``, ``/agents`` and the command templates' ``/commands``."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_personas.persona import Persona
    from chatcli_personas.plugin import PersonasPlugin
    from chatcli_personas.templates import Template

__all__ = ["agents_command", "persona_command", "template_command"]

_, ngettext = translation(__name__)

OFF_WORDS = ("off", "none", "-")
PERSONA_USAGE = _("use /persona NAME, /persona off, or /personas to list them")


def _say(app: Any, text: str, style: str = "dim") -> None:
    app.console.print(text, style=style, markup=False, highlight=False)


def _switch(app: Any, provider: str | None, model: str | None) -> str | None:
    """Switch the session's provider/model; the error's line when it cannot (nothing changed)."""
    from chatcli import ChatcliError

    try:
        app.session.switch(provider=provider, model=model)
    except ChatcliError as err:
        return str(err).splitlines()[0] if str(err) else type(err).__name__
    return None


def _unknown(plugin: PersonasPlugin, app: Any, name: str) -> Exception:
    from chatcli import UsageError

    names = sorted(plugin.catalog().personas())
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.5)
    return UsageError(_("no persona is called '{name}'").format(name=name),
                      _("did you mean /persona {close}? /personas lists them").format(
                          close=close[0]) if close else
                      _("/personas lists them") if names else
                      _("add one in .chatcli/agents/NAME.md, or pip install "
                        "chatcli-personas-core"))


def _run_persona(plugin: PersonasPlugin, app: Any, argument: str) -> None:
    from chatcli_personas.state import RESTORE_KEY, active_name, set_active

    conversation = app.conversation
    store = plugin.store()
    word = argument.strip()
    current = active_name(conversation, store)
    restore = conversation.metadata.get(RESTORE_KEY)
    if not word:
        persona = plugin.catalog().get(current) if current else None
        if persona is None:
            _say(app, _("no persona: chatcli answers as itself — /personas lists the personas, "
                        "/persona NAME picks one, @NAME … sends one message to one"))
        else:
            _say(app, _("persona: {label} (@{name}) — /persona off to stop").format(
                label=persona.label, name=persona.name))
        return
    if word.lower() in OFF_WORDS:
        if restore:
            _go_back(app, restore)
        set_active(conversation, None, None, store)
        _say(app, _("persona off: chatcli answers as itself{model}").format(
            model=f" · {app.session.provider_name}/{app.session.model}" if restore else ""))
        return
    persona = plugin.catalog().get(word)
    if persona is None:
        raise _unknown(plugin, app, word)
    restore = _use_model(app, persona, restore)
    set_active(conversation, persona.name, restore, store)
    where = f" · {app.session.provider_name}/{app.session.model}" if restore else ""
    _say(app, _("now speaking as {label} (@{name}){model} — /persona off to stop").format(
        label=persona.label, name=persona.name, model=where))


def _go_back(app: Any, restore: list[str]) -> str | None:
    """Switch back to ``restore`` (provider, model); the problem, said, when it cannot."""
    problem = _switch(app, restore[0], restore[1])
    if problem:
        _say(app, _("could not go back to {provider}/{model}: {problem}").format(
            provider=restore[0], model=restore[1], problem=problem), "yellow")
    return problem


def _use_model(app: Any, persona: Persona, restore: list[str] | None) -> list[str] | None:
    """Answer with the persona's provider/model (or go back to the one before an earlier
    persona's); returns the provider/model to put back when it goes."""
    if persona.provider or persona.model:
        before = [app.session.provider_name, app.session.model]
        problem = _switch(app, persona.provider, persona.model)
        if problem:
            wanted = "/".join(x for x in (persona.provider, persona.model) if x)
            _say(app, _("{name} asks for {wanted}, which cannot be used ({problem}); it answers "
                        "with {provider}/{model}").format(
                            name=persona.name, wanted=wanted, problem=problem,
                            provider=before[0], model=before[1]), "yellow")
            return restore
        return restore or before
    if restore and _go_back(app, restore):
        return restore
    return None


def _complete_persona(plugin: PersonasPlugin, app: Any, text: str) -> list[str]:
    return ["off", *sorted(plugin.catalog().personas())]


def _mentions(plugin: PersonasPlugin, app: Any) -> list[tuple[str, str]]:
    return [(p.name, f"{p.icon} {p.description}".strip())
            for p in sorted(plugin.catalog().personas().values(), key=lambda p: p.name)]


def persona_command(plugin: PersonasPlugin) -> SlashCommand:
    """``/persona [NAME|off]``."""
    from chatcli import SlashCommand

    return SlashCommand(
        name="persona", help=_("answer as a persona: /persona NAME, /persona off (@NAME … for "
                               "one message)"),
        run=lambda app, argument: _run_persona(plugin, app, argument),
        complete=lambda app, text: _complete_persona(plugin, app, text),
        mentions=lambda app: _mentions(plugin, app))


def _run_agents(plugin: PersonasPlugin, app: Any, argument: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from chatcli_personas.state import active_name

    personas = sorted(plugin.catalog().personas().values(), key=lambda p: p.name)
    if not personas:
        _say(app, _("no personas: add .chatcli/agents/NAME.md (project) or "
                    "~/.config/chatcli/agents/NAME.md, or pip install chatcli-personas-core"))
        return
    active = active_name(app.conversation, plugin.store())
    plain = bool(getattr(app.console, "no_color", False))
    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    for persona in personas:
        mark = "●" if persona.name == active else " "
        style = "" if plain else (f"bold {persona.colour}" if persona.colour else "bold")
        where = ("" if persona.source not in ("project", "user") else
                 _(" (project)") if persona.source == "project" else _(" (user)"))
        table.add_row(Text(mark), Text(f"@{persona.name}", style=style),
                      Text(persona.icon or " "), Text(persona.description + where))
    app.console.print(table)
    _say(app, _("@NAME … sends one message to a persona · /persona NAME keeps it · "
                "/persona off stops"))


def agents_command(plugin: PersonasPlugin) -> SlashCommand:
    """``/personas``: the personas, with their icon and description. ``/agents`` is its alias:
    a command's name beats another's alias, so with chatcli-subagents installed ``/agents`` is
    its board (no clash is reported), and without it the list answers as before."""
    from chatcli import SlashCommand

    return SlashCommand(name="personas", aliases=["agents"],
                        help=_("list the personas (@NAME, /persona NAME)"),
                        run=lambda app, argument: _run_agents(plugin, app, argument))


def _run_template(plugin: PersonasPlugin, template: Template, app: Any, argument: str) -> None:
    from chatcli_personas.expand import expand
    from chatcli_personas.templates import split_model

    prompt = expand(template.body, argument)
    switched: list[str] | None = None
    if template.model:
        provider, model = split_model(template.model, app.host.providers())
        before = [app.session.provider_name, app.session.model]
        problem = _switch(app, provider, model)
        if problem:
            _say(app, _("/{name} asks for {wanted}, which cannot be used ({problem}); "
                        "answering with {provider}/{model}").format(
                            name=template.name, wanted=template.model, problem=problem,
                            provider=before[0], model=before[1]), "yellow")
        else:
            switched = before
    from chatcli_personas.state import COMMAND_TOOLS

    stash = app.conversation.stash
    if template.allowed_tools is not None:
        stash[COMMAND_TOOLS] = (template.name, template.allowed_tools)
    try:
        app.ask(prompt)
    finally:
        if COMMAND_TOOLS in stash:
            del stash[COMMAND_TOOLS]
        if switched is not None:
            _switch(app, switched[0], switched[1])


def template_command(plugin: PersonasPlugin, template: Template) -> SlashCommand:
    """The ``/command`` of ``template``: sends its expanded prompt as the user's message."""
    from chatcli import SlashCommand

    return SlashCommand(
        name=template.name, help=template.help,
        run=lambda app, argument: _run_template(plugin, template, app, argument))
