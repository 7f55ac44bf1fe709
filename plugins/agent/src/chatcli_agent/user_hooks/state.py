"""What the user-hooks plugin knows: the hooks configured for the run (``CONFIG``, set by the
historic ``configure``) and, per conversation, what its hooks said (a :class:`State` in the
conversation's stash, ``STATE``), so that two sessions in one process never mix their turns.

Apart from ``events`` so that the entry module's hooks find the state (and learn that no hook
is configured) without importing what runs hooks.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli_agent.user_hooks.settings import Hook

__all__ = ["CONFIG", "PROJECT_CLAUDE_FILES", "PROJECT_CONFIG", "STATE", "Config", "State",
           "nothing_configured", "state_of"]

#: The project's Claude Code settings files (relative to the project root) whose hooks run once
#: the project is trusted; the project's ``.chatcli/config.toml`` is the kernel's control file.
PROJECT_CLAUDE_FILES = (".claude/settings.json", ".claude/settings.local.json")
PROJECT_CONFIG = ".chatcli/config.toml"


# Plain classes, not dataclasses: making a dataclass costs about a millisecond at import, and
# this module is imported by every run.
class Config:
    """The hooks of this run and the folder they run in (set by ``configure``)."""

    def __init__(self, hooks: list[Hook] | None = None, workspace: Path | None = None) -> None:
        self.hooks: list[Hook] = [] if hooks is None else hooks
        self.workspace: Path = Path.cwd() if workspace is None else workspace


class State:
    """What one conversation's hooks said, for its next model calls."""

    def __init__(self) -> None:
        #: context from SessionStart hooks: sent with every model call of the conversation
        self.session_context: list[str] = []
        #: context from UserPromptSubmit hooks: sent with the model calls of this turn
        self.turn_context: list[str] = []
        #: what PostToolUse hooks told the model: sent with the next model call only
        self.feedback: list[str] = []
        #: a UserPromptSubmit hook blocked this turn's prompt: no tool runs in the turn
        self.blocked: str | None = None
        #: calls that were authorized and started (PostToolUse runs only for them)
        self.running: set[str] = set()
        self.lock = threading.Lock()


CONFIG = Config()
#: A conversation's :class:`State`, in its stash (made on first need).
STATE: StashKey[State] = StashKey()
#: The state of tool calls made outside any conversation.
_UNATTACHED = State()
_made = threading.Lock()


def state_of(conversation: Any) -> State | None:
    """The hooks' state of ``conversation`` (made on first need); None when no hook is
    configured, so that nothing else is done or imported."""
    if not CONFIG.hooks:
        return None
    if conversation is None:
        return _UNATTACHED
    state: State | None = conversation.stash.get(STATE, None)
    if state is None:
        with _made:
            state = conversation.stash.setdefault(STATE, State())
    return state


def nothing_configured(settings: Any, workspace: Path, user_file: Path | None,
                       host: Any = None) -> bool:
    """True when no setting and no file could configure a hook for ``workspace`` (most runs):
    no ``[hooks]`` setting, no user config file, no Claude Code ``settings.json``, no project
    ``.chatcli/config.toml`` or ``.claude/settings*.json``. Then ``configure`` needs neither
    the reading of hooks (:mod:`.settings`) nor what runs them; False means: look."""
    if settings.plugin_table("hooks") or (user_file is not None and os.path.lexists(user_file)):
        return False
    claude_home = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(
        os.path.expanduser("~"), ".claude")
    if os.path.lexists(os.path.join(claude_home, "settings.json")):
        return False
    from chatcli import project_trust

    root = project_trust(workspace, host).root
    return root is None or not any(os.path.lexists(root / name)
                                   for name in (PROJECT_CONFIG, *PROJECT_CLAUDE_FILES))
