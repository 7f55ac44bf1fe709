"""Entry module of chatcli-skills (entry point ``skills``): hook implementations only.

The hooks delegate to :class:`chatcli_skills.core.Skills`, made on first use; this module
imports nothing but ``chatcli.hookimpl``, so ``chatcli --help`` loads neither PyYAML nor the
loader. Tests and the bench register :class:`SkillsPlugin` instances of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    import click
    from chatcli import (
        ChatRequest,
        ControlFile,
        Conversation,
        Message,
        PluginHost,
        PromptSection,
        Session,
        SettingRule,
        Settings,
        SlashCommand,
    )
    from chatcli_plugin_records import PullKind

    from chatcli_skills.core import Skills

__all__ = ["SkillsPlugin"]

_, ngettext = translation(__name__)


class SkillsPlugin:
    """The hooks of chatcli-skills for one plugin host."""

    def __init__(self, dedup: bool = True) -> None:
        self._dedup = dedup
        self._core: Skills | None = None

    @property
    def core(self) -> Skills:
        if self._core is None:
            from chatcli_skills.core import Skills

            self._core = Skills(dedup=self._dedup)
        return self._core

    # ------------------------------------------------------------------ set-up

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        """Declare this plugin's hook, register_skill_sources:
        skill packs add folders of skills."""
        from chatcli_skills import hookspecs

        add(hookspecs)

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self.core.reset(host, settings, workspace)

    @hookimpl(optionalhook=True)  # chatcli-context declares it, when installed
    def register_pull_kinds(self, register: Callable[[PullKind], None]) -> None:
        from chatcli_skills.pull import pull_kinds

        core = self.core
        for kind in pull_kinds(core.catalog, lambda: set(core.options().disabled)):
            register(kind)

    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        from chatcli_cli import LazyGroup

        cli.add_command(LazyGroup("skills",
            lambda: _("Agent Skills (SKILL.md folders): list, show, validate them, and "
                      "where they live."),
            "chatcli_skills.cli:skills"))

    @hookimpl(trylast=True)
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_skills.commands import slash_commands

        for command in slash_commands(self.core):
            register(command)

    # ------------------------------------------------------------------ sessions and turns

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        core = self.core
        core.settings = settings
        core.workspace = session.workspace
        if session.interactive:
            # what is wrong with a skill is said as the session starts (an untrusted project's
            # skills are in the kernel's one notice); a one-shot run reads the skills for its
            # prompt next, which says the same lines
            core.catalog()

    @hookimpl
    def register_setting_rules(self, register: Callable[[SettingRule | ControlFile], None]
                               ) -> None:
        from chatcli import ControlFile, SettingRule

        from chatcli_skills.trust import control_patterns

        register(SettingRule("skills.trust_project", "never"))  # a project cannot trust itself
        for pattern in control_patterns():  # the project's skill folders
            register(ControlFile(pattern))

    @hookimpl
    def user_prompt_submitted(self, conversation: Conversation, message: Message) -> None:
        self.core.prompt_submitted(conversation, message)

    @hookimpl
    def head_moved(self, conversation: Conversation, reason: str) -> None:
        if reason == "retry":
            self.core.retried(conversation)

    @hookimpl
    def prompt_sections(self, settings: Settings, workspace: Path,
                        messages: list[Message]) -> list[PromptSection] | None:
        core = self.core
        core.settings, core.workspace = settings, workspace
        return core.sections(messages) or None

    @hookimpl
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        self.core.before_request(request, conversation)


_PLUGIN = SkillsPlugin()

add_hookspecs = _PLUGIN.add_hookspecs
configure = _PLUGIN.configure
register_pull_kinds = _PLUGIN.register_pull_kinds
register_commands = _PLUGIN.register_commands
register_slash_commands = _PLUGIN.register_slash_commands
session_start = _PLUGIN.session_start
user_prompt_submitted = _PLUGIN.user_prompt_submitted
head_moved = _PLUGIN.head_moved
register_setting_rules = _PLUGIN.register_setting_rules
prompt_sections = _PLUGIN.prompt_sections
before_request = _PLUGIN.before_request
