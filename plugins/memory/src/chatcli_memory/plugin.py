"""Entry module of the memory plugin (entry point ``memory``): hook implementations only.

The hooks delegate to :class:`MemoryPlugin`; the module keeps one instance for the entry point
and tests register instances of their own (with a clock they move). Nothing but
``chatcli.hookimpl`` is imported here: SQLite, the model of memory and the worker load inside
the hooks, so ``chatcli --help`` pays nothing for memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    import click
    from chatcli import (
        ChatcliError,
        Conversation,
        Message,
        PluginHost,
        PromptSection,
        Session,
        Settings,
        SlashCommand,
        Tool,
    )
    from chatcli_memory_api import MemoryBackendSpec
    from chatcli_plugin_records import PullKind

    from chatcli_memory.runtime import Runtime

__all__ = ["MemoryPlugin"]

_, ngettext = translation(__name__)


class MemoryPlugin:
    """Long-term memory for one plugin host; ``clock`` tells the time (tests move it)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.runtime: Runtime | None = None

    def current(self, app: Any = None) -> Runtime:
        """The runtime (made from the app's or the environment's settings when no session
        configured one: ``chatcli -p /memory …`` configures first, tests may not)."""
        if self.runtime is None:
            from pathlib import Path

            from chatcli import load_settings

            from chatcli_memory.runtime import Runtime

            host = getattr(app, "host", None)
            settings = getattr(app, "settings", None) or load_settings()
            self.runtime = Runtime(host, settings, Path.cwd().resolve(), clock=self.clock)
        return self.runtime

    # ------------------------------------------------------------------ set-up

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        """Declare this plugin's hook, register_memory_backends:
        storage backends are plugins of this plugin."""
        from chatcli_memory import hookspecs

        add(hookspecs)

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        from chatcli_memory.runtime import Runtime

        if self.runtime is not None:
            self.runtime.close()
        self.runtime = Runtime(host, settings, workspace, clock=self.clock)

    @hookimpl
    def register_memory_backends(self, register: Callable[[MemoryBackendSpec], None]) -> None:
        from chatcli_memory_api import MemoryBackendSpec

        from chatcli_memory.runtime import sqlite_factory

        register(MemoryBackendSpec("sqlite", sqlite_factory,
                                   _("an embedded SQLite file under the data folder (FTS5)")))

    @hookimpl(optionalhook=True)  # chatcli-context declares it, when installed
    def register_pull_kinds(self, register: Callable[[PullKind], None]) -> None:
        from chatcli_memory.tools import pull_kind

        register(pull_kind(lambda: self.runtime))

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        runtime = self.runtime
        if runtime is None or not runtime.enabled or runtime.open() is None:
            return
        from chatcli_memory.tools import make_tools

        for tool in make_tools(self.current):
            register(tool)

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_memory.commands import slash_command

        register(slash_command(self.current))

    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        from chatcli_cli import LazyGroup

        cli.add_command(LazyGroup("memory",
            lambda: _("Long-term memory: list, search, add, forget, edit, export and "
                      "import it."),
            "chatcli_memory.cli:memory"))

    # ------------------------------------------------------------------ sessions and turns

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        self.current().start_session(session, conversation, settings)

    @hookimpl
    def session_end(self, conversation: Conversation) -> None:
        if self.runtime is not None:
            self.runtime.end_session(conversation)

    @hookimpl
    def prompt_sections(self, messages: list[Message], conversation: Conversation | None
                        ) -> list[PromptSection] | None:
        runtime = self.runtime
        if runtime is None or not runtime.enabled:
            return None
        return runtime.sections(messages, conversation) or None

    @hookimpl
    def before_request(self) -> None:
        """A turn's model call is about to be sent: the session is busy until the turn's last
        answer (extraction waits for it)."""
        if self.runtime is not None:
            self.runtime.busy = True

    @hookimpl
    def after_response(self, message: Message | None, error: ChatcliError | None,
                       conversation: Conversation) -> None:
        if self.runtime is not None:
            self.runtime.after_answer(message, error, conversation)


_PLUGIN = MemoryPlugin()

add_hookspecs = _PLUGIN.add_hookspecs
configure = _PLUGIN.configure
register_memory_backends = _PLUGIN.register_memory_backends
register_pull_kinds = _PLUGIN.register_pull_kinds
register_tools = _PLUGIN.register_tools
register_slash_commands = _PLUGIN.register_slash_commands
register_commands = _PLUGIN.register_commands
session_start = _PLUGIN.session_start
session_end = _PLUGIN.session_end
prompt_sections = _PLUGIN.prompt_sections
before_request = _PLUGIN.before_request
after_response = _PLUGIN.after_response
