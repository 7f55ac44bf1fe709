"""Entry module of chatcli-personas (entry point ``personas``): hook implementations only.

The hooks delegate to :class:`PersonasPlugin`; the module keeps one instance for the entry point
and tests may register instances of their own. Nothing but ``chatcli.hookimpl`` is imported
here: the catalog, PyYAML and rich load on first use inside the hooks, so ``chatcli --help``
pays nothing for this plugin.

- ``before_request`` (tryfirst): the speaking persona's prompt section; its tool list trims the
  tools offered; an ``@name`` persona's model is used for that answer when it is one of the
  provider in use.
- ``answer_author``: the persona's name (recorded on the answer) and label (shown above it).
- ``authorize_tool_call`` (tryfirst): a tool outside the persona's list — or outside a command
  template's ``allowed-tools`` while its answer runs — is denied, with the reason.
- ``session_start``: a resumed or forked conversation gets its persona back.
- ``register_slash_commands``: ``/persona``, ``/personas`` (alias ``/agents``: chatcli-subagents'
  board, when installed, has that name and wins) and one ``/command`` per template.
- ``register_agent_types`` (optional: chatcli-subagents declares it): every persona is an agent
  type (:mod:`chatcli_personas.agents`).
- ``register_setting_rules``: a project's ``.claude/agents/*.md`` are control files (read only
  in a trusted project).
- ``route_input`` (optional, declared by chatcli-repl): ``@name task``
  becomes ``/delegate name task`` when chatcli-subagents offers ``/delegate`` and ``[personas]
  mention`` is ``"delegate"`` (:meth:`PersonasPlugin.route_mention`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import (
        Author,
        ChatRequest,
        ControlFile,
        Conversation,
        PluginHost,
        Session,
        SettingRule,
        SlashCommand,
        ToolCallPart,
        ToolContext,
        ToolSpec,
        Verdict,
    )
    from chatcli_plugin_records import AgentType

    from chatcli_personas.catalog import Catalog
    from chatcli_personas.persona import Persona
    from chatcli_personas.state import ActiveStore

__all__ = ["MENTION_MODES", "PersonasPlugin"]

_, ngettext = translation(__name__)

#: ``[personas] mention``: what ``@name task`` does when ``/delegate`` exists — ``delegate``
#: hands the task to a worker of that agent type; ``answer`` lets the persona answer in the
#: conversation (without chatcli-subagents it always answers).
MENTION_MODES = ("delegate", "answer")


class PersonasPlugin:
    """Personas (``/persona``, ``/agents``, ``@name``) and command templates, for one host."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self.workspace: Path | None = None
        self._catalog: Catalog | None = None
        self._store: ActiveStore | None = None
        self._warned: set[str] = set()

    # ------------------------------------------------------------------ state

    def warn(self, line: str) -> None:
        """Report ``line`` once, where the host's warnings go."""
        if line in self._warned:
            return
        self._warned.add(line)
        if self.host is not None:
            self.host.warn(line)
        else:
            print(_("chatcli: warning: {message}").format(message=line), file=sys.stderr)

    def catalog(self) -> Catalog:
        """The personas of this run (project, user, packages)."""
        if self._catalog is None:
            from chatcli_personas.catalog import Catalog

            self._catalog = Catalog(self.host, self.workspace, warn=self.warn)
        return self._catalog

    def store(self) -> ActiveStore:
        """Where conversations' personas are remembered across runs."""
        if self._store is None:
            from chatcli_personas.state import ActiveStore

            self._store = ActiveStore()
        return self._store

    def speaker(self, conversation: Conversation | None) -> Persona | None:
        """The persona answering ``conversation`` now, if any (the catalog is read, and
        imported, only when a name asks for it: no ``@name`` and no persona set, nobody)."""
        from chatcli_personas.state import active_name, mentioned_name, speaker

        if conversation is None or (mentioned_name(conversation) is None
                                    and active_name(conversation, self.store()) is None):
            return None
        return speaker(conversation, self.catalog(), self.store())

    def mention_mode(self, settings: Any) -> str:
        """``[personas] mention`` of ``settings`` (``delegate`` when unset or not understood;
        the latter is reported once)."""
        table = settings.plugin_table("personas") if settings is not None else {}
        value = table.get("mention", MENTION_MODES[0])
        if value in MENTION_MODES:
            return str(value)
        self.warn(_("[personas] mention = {value!r} is not one of: {names}; using {default!r}")
                  .format(value=value, names=", ".join(MENTION_MODES), default=MENTION_MODES[0]))
        return MENTION_MODES[0]

    def route_mention(self, app: Any, text: str) -> str | None:
        """``/delegate NAME TASK`` for a message ``@NAME TASK`` that names a persona, when the
        ``/delegate`` command exists (chatcli-subagents) and ``[personas] mention`` is
        ``delegate``; else None (the persona answers in the conversation, as without it)."""
        from chatcli_personas.state import mention

        name = mention(text)
        if name is None:
            return None
        task = text.lstrip()[len(name) + 1:].strip()
        host = getattr(app, "host", None) or self.host
        if not task or host is None or "delegate" not in host.slash_commands():
            return None
        if self.mention_mode(getattr(app, "settings", None)) != "delegate":
            return None
        persona = self.catalog().get(name)
        return f"/delegate {persona.name} {task}" if persona is not None else None

    # ------------------------------------------------------------------ set-up

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        """Declare this plugin's hook, register_persona_sources:
        persona packs add folders of personas."""
        from chatcli_personas import hookspecs

        add(hookspecs)

    @hookimpl
    def configure(self, host: PluginHost, workspace: Path) -> None:
        self.host, self.workspace = host, workspace
        self._catalog, self._store = None, None
        self._warned.clear()

    @hookimpl
    def register_setting_rules(self, register: Callable[[SettingRule | ControlFile], None]
                               ) -> None:
        """A project's Claude Code agents are control files: workspace trust covers them."""
        from chatcli import ControlFile

        from chatcli_personas.catalog import CONTROL_PATTERNS

        for pattern in CONTROL_PATTERNS:
            register(ControlFile(pattern))

    @hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
    def route_input(self, app: Any, text: str) -> str | None:
        """A sent line to run instead of ``text`` (``@name task`` → ``/delegate name task``)."""
        return self.route_mention(app, text)

    @hookimpl(optionalhook=True)  # chatcli-subagents declares it, when installed
    def register_agent_types(self, register: Callable[[AgentType], None]) -> None:
        """Every persona is an agent type (a worker a delegation can start)."""
        from chatcli_personas.typecache import agent_types

        for agent in agent_types(self.catalog(), self.warn):
            register(agent)

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from pathlib import Path

        from chatcli_personas.commands import agents_command, persona_command, template_command
        from chatcli_personas.templates import find_templates, template_folders

        register(persona_command(self))
        register(agents_command(self))  # /personas, alias /agents
        workspace = (self.workspace or Path.cwd()).resolve()
        for template in find_templates(template_folders(workspace), self.warn):
            register(template_command(self, template))

    # ------------------------------------------------------------------ sessions and turns

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation) -> None:
        from chatcli_personas.state import METADATA_KEY, RESTORE_KEY, SESSION, active_name

        conversation.stash[SESSION] = session
        if isinstance(conversation.metadata.get(METADATA_KEY), str):  # a fork carries it
            store = self.store()
            name = conversation.metadata[METADATA_KEY]
            record = store.get(conversation.id)
            if record is None or record.get("persona") != name:
                store.put(conversation.id, {"persona": name,
                                            "restore": conversation.metadata.get(RESTORE_KEY)})
            return
        active_name(conversation, self.store())

    @hookimpl(tryfirst=True)
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        from chatcli_personas.prompt import SECTION_NAME, allows, section
        from chatcli_personas.state import COMMAND_TOOLS

        limit = conversation.stash.get(COMMAND_TOOLS, None)
        if limit is not None:
            request.tools = [t for t in request.tools if allows(limit[1], t.name)]
        persona = self.speaker(conversation)
        if persona is None:
            return
        request.system = [s for s in request.system if s.name != SECTION_NAME]
        request.system.append(section(persona))
        if persona.tools is not None:
            request.tools = [t for t in request.tools if allows(persona.tools, t.name)]
        self._use_model(request, conversation, persona)

    def _use_model(self, request: ChatRequest, conversation: Conversation,
                   persona: Persona) -> None:
        """An ``@name`` persona's model for this answer, when it is one of the provider in use
        (``/persona`` switches the session instead)."""
        from chatcli_personas.state import SESSION, mentioned

        if not persona.model or mentioned(conversation, self.catalog()) != persona:
            return
        session = conversation.stash.get(SESSION, None)
        provider = session.provider_name if session is not None else None
        if persona.provider and persona.provider != provider:
            self.warn(_("persona {name} asks for {provider}/{model}; an @{name} message keeps "
                        "the provider in use — /persona {name} switches to it").format(
                            name=persona.name, provider=persona.provider, model=persona.model))
            return
        request.model = persona.model

    @hookimpl
    def answer_author(self, conversation: Conversation) -> Author | None:
        from chatcli_personas.prompt import author

        persona = self.speaker(conversation)
        return author(persona) if persona is not None else None

    @hookimpl(tryfirst=True)
    def authorize_tool_call(self, call: ToolCallPart, tool: ToolSpec, context: ToolContext
                            ) -> Verdict | None:
        from chatcli import Decision, Verdict

        from chatcli_personas.prompt import allows
        from chatcli_personas.state import COMMAND_TOOLS

        conversation = context.conversation
        limit = (conversation.stash.get(COMMAND_TOOLS, None) if conversation is not None
                 else None)
        if limit is not None and not allows(limit[1], call.name):
            listed = ", ".join(limit[1]) or _("none")
            return Verdict(Decision.DENY, _("/{command} allows only these tools: {tools} (not "
                                            "{tool})").format(command=limit[0], tools=listed,
                                                              tool=call.name))
        persona = self.speaker(conversation)
        if persona is None or allows(persona.tools, call.name):
            return None
        listed = ", ".join(persona.tools or ()) or _("none")
        return Verdict(Decision.DENY, _("the persona {name} may use only these tools: {tools} "
                                        "(not {tool}); answer without it or ask the user to "
                                        "switch persona").format(name=persona.name,
                                                                 tools=listed, tool=call.name))


_PLUGIN = PersonasPlugin()

add_hookspecs = _PLUGIN.add_hookspecs
configure = _PLUGIN.configure
register_slash_commands = _PLUGIN.register_slash_commands
session_start = _PLUGIN.session_start
before_request = _PLUGIN.before_request
answer_author = _PLUGIN.answer_author
authorize_tool_call = _PLUGIN.authorize_tool_call
register_setting_rules = _PLUGIN.register_setting_rules
register_agent_types = _PLUGIN.register_agent_types
route_input = _PLUGIN.route_input
