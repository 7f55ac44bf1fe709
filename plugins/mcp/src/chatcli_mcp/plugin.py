"""Entry module of chatcli-mcp (hook implementations only; the SDK loads when a server starts).

:class:`McpPlugin` holds one :class:`chatcli_mcp.manager.Manager`; the entry point's instance
is ``_PLUGIN`` (its hooks are this module's names) and tests register instances of their own.
Nothing but ``chatcli.hookimpl`` is imported here, so ``chatcli --help`` pays nothing for MCP.

- ``register_tools``: starts the configured servers (in parallel, first need) and registers
  their tools as ``mcp__server__tool`` (and ``mcp_search``);
- ``prompt_sections`` (a wrapper: it sees whether an agent mode's section is there) and
  ``before_request`` (tryfirst: before anyone reads the request): the prompt economy;
- ``register_pull_kinds``: ``mcp_tools`` for ``context_pull``;
- ``authorize_tool_call``: a tool on its server's ``allow`` list runs without asking (the
  permission policy still refuses what it denies);
- ``message_appended`` (tryfirst: before a session store writes it): ``@server:uri``;
- ``register_slash_commands``: ``/mcp`` and the servers' prompts; ``register_commands``:
  ``chatcli mcp …``;
- ``session_start``/``session_end``: the servers stop soon after the last conversation ends
  (and at exit);
- ``register_setting_rules``: the project's ``.mcp.json`` as a ``ControlFile`` (its servers
  start only once the user trusted the project as it is), and what of ``[mcp]`` a project's
  ``.chatcli/config.toml`` may set (never ``import``, a server's ``allow`` list, or trust).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeAlias

    import click
    from chatcli import (
        ChatRequest,
        ControlFile,
        Conversation,
        Decision,
        Message,
        PluginHost,
        PromptSection,
        Session,
        SettingRule,
        Settings,
        SlashCommand,
        Tool,
        ToolCallPart,
        ToolContext,
        ToolSpec,
        Verdict,
    )
    from chatcli_plugin_records import PullKind

    from chatcli_mcp.economy import Economy
    from chatcli_mcp.manager import Manager

    #: prompt_sections' results as a wrapper of that hook receives (and returns) them
    Sections: TypeAlias = list[list[PromptSection] | None]

__all__ = ["McpPlugin"]

_, ngettext = translation(__name__)


class McpPlugin:
    """MCP servers' tools, prompts and resources in chatcli, for one plugin host."""

    def __init__(self) -> None:
        self._manager: Manager | None = None
        self._economy: Economy | None = None
        #: ``configure`` ran (a session opened), whether or not MCP is configured
        self._configured = False
        #: the provider and model of the model call being prepared (prompt_sections sees them,
        #: before_request does not)
        self._call: tuple[str, str] = ("", "")

    @property
    def manager(self) -> Manager:
        if self._manager is None:
            from chatcli_mcp.manager import Manager

            self._manager = Manager()
        return self._manager

    @property
    def economy(self) -> Economy:
        if self._economy is None:
            from chatcli_mcp.economy import Economy

            self._economy = Economy(self.manager)
        return self._economy

    def _active(self) -> bool:
        """Whether MCP is in use in this run (configured, with servers): cheap when not."""
        manager = self._manager
        return manager is not None and manager.configured and bool(manager.load().servers)

    # ------------------------------------------------------------------ set-up

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self._configured = True
        table = settings.plugin_table("mcp")
        if not table and self._manager is None and not _has_project_file(workspace, host):
            return  # nothing configured: MCP costs nothing in this run
        self.manager.configure(host, settings, workspace)

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        if not self._active():
            return
        manager = self.manager
        manager.start()
        manager.flush()
        tools = manager.chatcli_tools()
        for tool in tools:
            register(tool)
        if tools:
            from chatcli_mcp.economy import search_tool

            register(search_tool(self.economy))

    @hookimpl(optionalhook=True)  # chatcli-context declares it, when installed
    def register_pull_kinds(self, register: Callable[[PullKind], None]) -> None:
        if not self._active():
            return
        from chatcli_plugin_records import PullKind

        from chatcli_mcp.economy import PULL_KIND, fetch_kind

        register(PullKind(
            name=PULL_KIND,
            description="descriptions and JSON schemas of MCP tools (the prompt lists them by "
                        "name only); the tools returned "
                        "can then be called",  # untranslated: the model's
            fetch=lambda arguments, context: fetch_kind(self.economy, arguments, context),
            arguments="name (a tool, or several separated by commas), server (all of one "
                      "server's tools), query (words to search for)"))

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_mcp.status import mcp_command

        register(mcp_command(self))
        if self._manager is None and self._configured:
            return  # a session opened and nothing is configured
        patient = not self._configured  # before any session: chatcli -p "/…"
        if not self.manager.ensure_configured():
            return
        from chatcli_mcp.prompts import prompt_commands

        for command in prompt_commands(self.manager, patient=patient):
            register(command)

    @hookimpl
    def register_setting_rules(self, register: Callable[[SettingRule | ControlFile], None]
                               ) -> None:
        from chatcli import ControlFile, SettingRule

        from chatcli_mcp.project import PROJECT_FILE

        register(ControlFile(PROJECT_FILE))  # the project's servers: trust covers the file

        # a project's servers are programs: they wait for trust (the default); files to import
        # from anywhere, allow lists that run tools unasked and trust itself: never
        for key in ("mcp.import", "mcp.servers.*.allow", "mcp.trust_project"):
            register(SettingRule(key, "never"))

    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        from chatcli_cli import LazyGroup

        cli.add_command(LazyGroup("mcp",
            lambda: _("MCP servers: list, add, remove and test them; serve chatcli's "
                      "tools over MCP."),
            "chatcli_mcp.cli:mcp"))

    # ------------------------------------------------------------------ sessions

    @hookimpl
    def session_start(self, session: Session, settings: Settings) -> None:
        if self._manager is not None:
            self._manager.retain()
            self.economy.settings = settings

    @hookimpl
    def session_end(self) -> None:
        if self._manager is not None:
            self._manager.release()

    # ------------------------------------------------------------------ a turn

    @hookimpl(wrapper=True)
    def prompt_sections(self, settings: Settings, provider: str, model: str
                        ) -> Generator[None, Sections, Sections]:
        lists = yield
        if not self._active():
            return lists
        names = {s.name for group in (lists or []) for s in (group or [])}
        self.economy.settings = settings
        self._call = (provider, model)
        # the sections do not depend on the conversation (only the tools it enabled do, which
        # before_request applies)
        plan = self.economy.plan(agent=_is_agent(names), settings=settings, provider=provider,
                                 model=model, conversation_id=None)
        return [*(lists or []), plan.sections] if plan.sections else lists

    @hookimpl(tryfirst=True)
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        if not self._active():
            return
        manager = self.manager
        manager.flush()
        settings = self.economy.settings or manager.settings
        host = manager.host
        if settings is None or host is None:
            return
        names = {s.name for s in request.system}
        provider = self._call[0] or settings.provider or ""
        called = {call.name for message in request.messages for call in message.tool_calls
                  if call.name.startswith("mcp__")}
        plan = self.economy.plan(agent=_is_agent(names), settings=settings, provider=provider,
                                 model=request.model, conversation_id=conversation.id,
                                 called=called)
        self.economy.apply(request, plan)

    @hookimpl
    def authorize_tool_call(self, call: ToolCallPart, tool: ToolSpec, context: ToolContext
                            ) -> Decision | Verdict | None:
        if not tool.name.startswith("mcp__") or not self._active():
            return None
        if self.manager.allowed(tool.name):
            from chatcli import Decision, Verdict

            return Verdict(Decision.ALLOW, _("allowed by its MCP server's allow list"))
        return None

    @hookimpl(tryfirst=True)
    def message_appended(self, message: Message) -> None:
        if "@" not in message.text or not self._active():
            return
        from chatcli_mcp.prompts import attach_resources

        attach_resources(self.manager, message)


def _is_agent(section_names: set[str]) -> bool:
    from chatcli_mcp.economy import AGENT_SECTIONS

    return bool(section_names & AGENT_SECTIONS)


def _has_project_file(workspace: Path, host: PluginHost) -> bool:
    from chatcli_mcp.project import project_file

    try:
        return project_file(workspace, host) is not None
    except OSError:
        return False


_PLUGIN = McpPlugin()

configure = _PLUGIN.configure
register_tools = _PLUGIN.register_tools
register_pull_kinds = _PLUGIN.register_pull_kinds
register_slash_commands = _PLUGIN.register_slash_commands
register_commands = _PLUGIN.register_commands
register_setting_rules = _PLUGIN.register_setting_rules
session_start = _PLUGIN.session_start
session_end = _PLUGIN.session_end
prompt_sections = _PLUGIN.prompt_sections
before_request = _PLUGIN.before_request
authorize_tool_call = _PLUGIN.authorize_tool_call
message_appended = _PLUGIN.message_appended
