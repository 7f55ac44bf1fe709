"""What the user-hooks plugin knows: the hooks configured for the run (``CONFIG``, set by the
historic ``configure``) and, per conversation, what its hooks said (a :class:`State` in the
conversation's stash, ``STATE``), so that two sessions in one process never mix their turns.

Apart from ``events`` so that the entry module's hooks find the state (and learn that no hook
is configured) without importing what runs hooks.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli_agent.user_hooks.settings import Hook

__all__ = ["CONFIG", "STATE", "Config", "State", "state_of"]


@dataclass
class Config:
    """The hooks of this run and the folder they run in (set by ``configure``)."""

    hooks: list[Hook] = field(default_factory=list)
    workspace: Path = field(default_factory=Path.cwd)


@dataclass
class State:
    """What one conversation's hooks said, for its next model calls."""

    #: context from SessionStart hooks: sent with every model call of the conversation
    session_context: list[str] = field(default_factory=list)
    #: context from UserPromptSubmit hooks: sent with the model calls of this turn
    turn_context: list[str] = field(default_factory=list)
    #: what PostToolUse hooks told the model: sent with the next model call only
    feedback: list[str] = field(default_factory=list)
    #: a UserPromptSubmit hook blocked this turn's prompt: no tool runs in the turn
    blocked: str | None = None
    #: calls that were authorized and started (PostToolUse runs only for them)
    running: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


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
