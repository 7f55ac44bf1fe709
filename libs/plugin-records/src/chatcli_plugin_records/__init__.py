"""chatcli-plugin-records: what plugins register through the hooks other plugins declare.

Each record belongs to a hook that a plugin declares in its ``hookspecs.py`` (kernel 2.0: the
kernel knows no plugin-to-plugin contract); the declaring plugin and its implementers both
import the record from here, since plugins never import each other. Light records
(chatcli-records-lite's ``NamedTuple``, cheap to define at each start, and the dataclasses of
compaction), depending on the kernel and chatcli-records-lite only.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from chatcli_records_lite import NamedTuple, dataclass

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli_plugin_records._compaction import CompactionJob as CompactionJob
    from chatcli_plugin_records._compaction import CompactionReport as CompactionReport
    from chatcli_plugin_records._compaction import CompactionStrategy as CompactionStrategy
    from chatcli_plugin_records._compaction import check_compaction as check_compaction
    from chatcli_plugin_records._compaction import describe_messages as describe_messages

__all__ = ["AgentType", "CompactionJob", "CompactionReport", "CompactionStrategy", "PersonaSource",
           "ProgressItem", "PullKind", "RestorePoint", "SessionCatalog", "SessionSummary",
           "SkillSource", "check_compaction", "describe_messages"]
__version__ = "1.5.0"


class SkillSource(NamedTuple):
    """A folder of skills (each a sub-folder with a ``SKILL.md``) that a skill pack contributes
    (``register_skill_sources``, declared by chatcli-skills)."""

    name: str
    path: Path


class PersonaSource(NamedTuple):
    """A folder of personas (markdown files with frontmatter, one per persona) that a persona
    pack contributes (``register_persona_sources``, declared by chatcli-personas)."""

    name: str
    path: Path


class PullKind(NamedTuple):
    """Something ``context_pull`` can bring back (``{"kind": "skill", "name": "x"}``), as
    ``register_pull_kinds`` (declared by chatcli-context) registers it.

    ``fetch(arguments, context)`` returns the text for the model (``arguments`` are the call's,
    ``context`` the :class:`chatcli.ToolContext`); ``arguments`` documents what it takes, for the
    tool's description (``"name: the skill's name"``).
    """

    name: str
    description: str
    fetch: Callable[[Mapping[str, Any], Any], str]
    arguments: str = ""


class RestorePoint(NamedTuple):
    """The workspace as it was at a conversation checkpoint, ready to be put back: what
    ``workspace_restore_point`` (declared by chatcli-sessions, for ``/rewind``) returns.

    ``summary`` says what restoring would change, for the person (``3 files: a.py, b.py, …``);
    ``restore()`` puts the files back, keeping the state it replaced so that it can be undone
    (``workspace_undo``), and returns one line saying what it did.
    """

    summary: str
    restore: Callable[[], str]


class AgentType(NamedTuple):
    """A kind of worker a delegation can start (``register_agent_types``, declared by
    chatcli-subagents): every persona is one, and so is each ``.claude/agents/*.md``.

    ``prompt`` is the worker's system prompt; ``tools`` the names of the tools it may use (None:
    the parent's; a worker never gets a tool its parent does not offer); ``model`` and
    ``provider`` what it answers with (None: the parent's; ``model`` may be a Claude Code alias,
    ``sonnet``, ``haiku``, ``opus`` or ``inherit``); ``isolation`` ``"worktree"`` to run in a
    git worktree of its own; ``max_turns`` its model-call limit (None: ``[agents]``'s);
    ``source`` where it was defined (a file, or the plugin), for ``/agents types``.
    """

    name: str
    description: str
    prompt: str = ""
    tools: tuple[str, ...] | None = None
    model: str | None = None
    provider: str | None = None
    isolation: str | None = None
    max_turns: int | None = None
    source: str = ""


@dataclass(frozen=True)
class ProgressItem:
    """One step of a conversation's work in progress, for a remote client's plan view
    (``progress_items``, declared by chatcli-remote): a subagent worker, for instance.

    ``state`` is ``queued``, ``running``, ``done``, ``failed`` or ``cancelled``.
    """

    id: str
    title: str
    state: str


@dataclass(frozen=True)
class SessionSummary:
    """A stored session as a list shows it (:class:`SessionCatalog`): its ``project`` is the
    folder it was started in (None: unknown), ``updated`` the time of its last change (seconds
    since the epoch), ``messages`` how many its log holds, ``model``/``provider`` what last
    answered (None: nothing yet). ``head`` is the id of the message the session's head points
    at — what a server replica compares with its live copy to know another replica moved the
    session (None: an empty session, or a catalog that does not tell; a server then reads the
    session again before each turn)."""

    id: str
    title: str
    project: str | None
    updated: float
    messages: int
    model: str | None
    provider: str | None
    head: str | None = None


class SessionCatalog(Protocol):
    """The stored sessions, for a server that lists, exports and deletes them without importing
    the store (``session_catalog``, declared by chatcli-sessions). Opening one goes through the
    kernel: ``SessionOptions(resume=id)``."""

    def list(self, project: str | None, limit: int = 100) -> builtins.list[SessionSummary]:
        """The sessions, newest first, at most ``limit``: every project's (``project`` None) or
        those whose project is inside the folder ``project``."""
        ...

    def info(self, session_id: str) -> SessionSummary | None:
        """One session (None: no such session)."""
        ...

    def delete(self, session_id: str) -> bool:
        """Delete a session and what belongs to it; whether there was one."""
        ...

    def export(self, session_id: str, fmt: str) -> str:
        """The session as ``"md"`` (markdown) or ``"json"`` text (raises ``chatcli.UsageError``
        for another format or an unknown session)."""
        ...


#: What :mod:`chatcli_plugin_records._compaction` holds, made when first named (a run that
#: never compacts does not pay for these classes).
_COMPACTION = frozenset({"CompactionJob", "CompactionReport", "CompactionStrategy",
                         "check_compaction", "describe_messages"})


def __getattr__(name: str) -> Any:
    if name in _COMPACTION:
        from chatcli_plugin_records import _compaction

        return getattr(_compaction, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
