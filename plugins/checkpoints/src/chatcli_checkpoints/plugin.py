"""Entry module: hookimpls only (git, the file walker and the store load on first use).

:class:`CheckpointsPlugin` holds the state; the module's own hook implementations delegate to
one instance of it, which is what the ``checkpoints`` entry point registers. Tests register
their own instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from chatcli import (
        Checkpoint,
        Conversation,
        SettingRule,
        Settings,
        SlashCommand,
        ToolCallPart,
        ToolSpec,
    )
    from chatcli_plugin_records import RestorePoint

    from chatcli_checkpoints._core import Checkpoints

__all__ = ["CheckpointsPlugin"]


class CheckpointsPlugin:
    """The plugin as an object: ``host.register(CheckpointsPlugin(), "checkpoints")``."""

    def __init__(self) -> None:
        self._core: Checkpoints | None = None

    @property
    def core(self) -> Checkpoints:
        """The :class:`chatcli_checkpoints._core.Checkpoints` doing the work."""
        if self._core is None:
            from chatcli_checkpoints._core import Checkpoints

            self._core = Checkpoints()
        return self._core

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        """Declare ``workspace_diff`` (what changed since a recorded state)."""
        from chatcli_checkpoints import hookspecs

        add(hookspecs)

    @hookimpl
    def configure(self, settings: Settings, workspace: Path) -> None:
        """Remember the workspace and read the ``[checkpoints]`` settings."""
        self.core.configure(settings, workspace)

    @hookimpl
    def workspace_diff(self, conversation: Conversation, since: str) -> str | None:
        """The unified diff of the workspace since a recorded state (None: none recorded)."""
        from chatcli_checkpoints._core import _base
        from chatcli_checkpoints._layout import records_folder

        if not records_folder(_base(), conversation.id).is_dir():  # nothing recorded, ever
            return None
        from chatcli_checkpoints._diff import diff_since

        return diff_since(self.core, conversation, since)

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        """``/diff``: what this session changed (``last``: its latest step; ``--git``: against
        git's HEAD; ``--stat``: the counts only)."""
        from chatcli import SlashCommand, translation

        _, _n = translation(__name__)

        def run(app: Any, text: str) -> None:
            from chatcli_checkpoints._command import diff_command

            diff_command(self.core, app, text)

        register(SlashCommand(
            name="diff", help=_("what this session changed: /diff [last] [--git] [--stat]"),
            run=run, subcommands=["last", "--git", "--stat"]))

    @hookimpl
    def checkpoint_created(self, conversation: Conversation, checkpoint: Checkpoint) -> None:
        """The next write/execute call records the workspace's state for this checkpoint."""
        self.core.checkpoint_created(conversation, checkpoint)

    @hookimpl
    def tool_call_decided(self, call: ToolCallPart, tool: ToolSpec, allowed: bool,
                          conversation: Conversation | None) -> None:
        """Record the workspace before the first file-changing call after a checkpoint."""
        if allowed and conversation is not None:
            self.core.before_tool_call(call, tool, conversation)

    @hookimpl
    def head_moved(self, conversation: Conversation, head: str | None, reason: str) -> None:
        """Mirror the conversation's undo stack (which rewind restored files)."""
        self.core.head_moved(conversation, head, reason)

    @hookimpl
    def workspace_restore_point(self, conversation: Conversation, checkpoint: Checkpoint
                                ) -> RestorePoint | None:
        """What differs between the checkpoint's files and now, and how to put them back."""
        return self.core.restore_point(conversation, checkpoint)

    @hookimpl
    def workspace_undo(self, conversation: Conversation) -> str | None:
        """Put back what the last code rewind replaced."""
        return self.core.undo(conversation)


_plugin = CheckpointsPlugin()


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare ``workspace_diff`` (what changed since a recorded state)."""
    _plugin.add_hookspecs(add)


@hookimpl
def configure(settings: Settings, workspace: Path) -> None:
    """Remember the workspace and read the ``[checkpoints]`` settings."""
    _plugin.configure(settings, workspace)


@hookimpl
def workspace_diff(conversation: Conversation, since: str) -> str | None:
    """The unified diff of the workspace since a recorded state (None: none recorded)."""
    return _plugin.workspace_diff(conversation, since)


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """``/diff``: what this session changed."""
    _plugin.register_slash_commands(register)


@hookimpl
def checkpoint_created(conversation: Conversation, checkpoint: Checkpoint) -> None:
    """The next write/execute call records the workspace's state for this checkpoint."""
    _plugin.checkpoint_created(conversation, checkpoint)


@hookimpl
def tool_call_decided(call: ToolCallPart, tool: ToolSpec, allowed: bool,
                      conversation: Conversation | None) -> None:
    """Record the workspace before the first file-changing call after a checkpoint."""
    _plugin.tool_call_decided(call, tool, allowed, conversation)


@hookimpl
def head_moved(conversation: Conversation, head: str | None, reason: str) -> None:
    """Mirror the conversation's undo stack (which rewind restored files)."""
    _plugin.head_moved(conversation, head, reason)


@hookimpl
def workspace_restore_point(conversation: Conversation, checkpoint: Checkpoint
                            ) -> RestorePoint | None:
    """What differs between the checkpoint's files and now, and how to put them back."""
    return _plugin.workspace_restore_point(conversation, checkpoint)


@hookimpl
def workspace_undo(conversation: Conversation) -> str | None:
    """Put back what the last code rewind replaced."""
    return _plugin.workspace_undo(conversation)


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    """A project's config never turns checkpoints off (``[checkpoints] enabled = false``
    would leave what the agent changes there without an undo): the user's choice only."""
    from chatcli import SettingRule

    register(SettingRule("checkpoints.enabled", "never"))
