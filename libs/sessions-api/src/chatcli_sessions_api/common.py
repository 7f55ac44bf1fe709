"""Store-neutral helpers every session store may reuse, so that SQLite and PostgreSQL derive
titles, order a log, build a fork and restore a conversation the same way.

Nothing here touches a database: a store reads its rows, then calls these.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Checkpoint, Compaction, Conversation, Message

    from chatcli_sessions_api.records import SessionInfo

__all__ = [
    "UNSTORABLE_ARGUMENTS",
    "answered",
    "assemble",
    "closing_message",
    "current_project",
    "cwd",
    "derive_title",
    "fork_of",
    "is_utf8",
    "message_json",
    "message_text",
    "new_session_id",
    "parents_first",
    "repair",
    "snippet",
    "title_of",
    "unreachable",
    "unsaved_chain",
    "worker_dict",
    "worker_json",
]
_, ngettext = translation(__name__)

#: What a tool call's arguments become in the store when JSON cannot hold them.
UNSTORABLE_ARGUMENTS = "(arguments not stored: nested too deeply to write as JSON)"


def current_project(folder: str | None = None) -> str:
    """The project root of ``folder`` (default: the current folder), as an absolute path with
    symbolic links resolved (:func:`chatcli.project_root`: the nearest folder holding
    ``.chatcli/``, else the git root, else the folder itself). The home folder is its own
    project here."""
    from chatcli import project_root

    start = os.path.realpath(folder or cwd())
    return project_root(start) or start


def cwd() -> str:
    """The current folder (the filesystem root when it was deleted under us)."""
    try:
        return os.getcwd()
    except OSError:
        return os.sep


def is_utf8(text: str) -> bool:
    """False for text holding lone surrogates (undecodable bytes from argv or a file name)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def answered(conversation: Conversation) -> bool:
    """Whether the conversation holds an answer (a session is written from its first one)."""
    return any(m.role.value == "assistant" for m in conversation.all_messages())


def new_session_id() -> str:
    """A new session id (``s_…``)."""
    from chatcli import new_id

    return new_id("s_")


def title_of(text: str) -> str:
    """A session title from a message: its first line, shortened."""
    lines = text.strip().splitlines()
    if not lines:
        return ""
    return lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"


def derive_title(conversation: Conversation) -> str:
    """The title from the first user message of the conversation's log."""
    for message in sorted(conversation.all_messages(), key=lambda m: m.created_at):
        if message.role.value == "user" and message.text.strip():
            return title_of(message.text)
    return ""


def message_text(message: Message) -> str:
    """What a full-text index holds of a message: its text, or its tool results' text."""
    text = message.text
    if not text and message.tool_results:
        text = "\n".join(r.content for r in message.tool_results)[:4000]
    return text


def message_json(message: Message) -> str:
    """The message as pydantic JSON. Arguments nested deeper than JSON serialisers go are stored
    as a note instead (the rest of the message is kept)."""
    try:
        return message.model_dump_json()
    except ValueError:  # PydanticSerializationError: maximum serialization depth exceeded
        from chatcli import ToolCallPart

        parts = [p.model_copy(update={"arguments": {}, "raw_arguments": UNSTORABLE_ARGUMENTS})
                 if isinstance(p, ToolCallPart) else p for p in message.parts]
        return message.model_copy(update={"parts": parts}).model_dump_json()


def worker_json(worker: Any) -> str | None:
    """What a delegation said of a worker (``metadata["subagent"]``) as stored JSON."""
    if not isinstance(worker, dict):
        return None
    return json.dumps(worker, default=str, ensure_ascii=False)


def worker_dict(stored: str | None) -> dict[str, Any]:
    """The stored JSON of :func:`worker_json` read back ({} when absent or unreadable)."""
    if not stored:
        return {}
    try:
        value = json.loads(stored)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def snippet(text: str, word: str, width: int = 60) -> str:
    """About ``width`` characters of ``text`` around the first ``word`` (case-insensitive)."""
    at = text.lower().find(word.lower())
    start = max(at - width // 2, 0)
    piece = text[start : start + width].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def parents_first(messages: list[Message]) -> list[Message]:
    """Order messages so every parent precedes its children (ties keep ``messages`` order)."""
    ids = {m.id for m in messages}
    done: set[str] = set()
    result: list[Message] = []
    pending = list(messages)
    while pending:
        rest = []
        for message in pending:
            if message.parent_id is None or message.parent_id not in ids or (
                message.parent_id in done
            ):
                result.append(message)
                done.add(message.id)
            else:
                rest.append(message)
        if len(rest) == len(pending):  # a cycle cannot happen; keep everything anyway
            result.extend(rest)
            break
        pending = rest
    return result


def unsaved_chain(conversation: Conversation, message: Message,
                  stored: set[str] | None = None) -> list[Message]:
    """``message`` preceded by its ancestors in ``conversation`` that are not in ``stored``
    (the ids the store holds among them), oldest first: what an append must write. With
    ``stored`` None, only ``message``."""
    chain = [message]
    if stored is None:
        return chain
    cursor = message.parent_id
    while cursor is not None and cursor not in stored:
        parent = conversation.log.get(cursor)
        if parent is None:
            break
        chain.append(parent)
        cursor = parent.parent_id
    chain.reverse()
    return chain


def unreachable(messages: list[Message]) -> list[Message]:
    """The messages whose chain of parents does not end at a first message (a parent that is
    not stored, or a loop), in log order; usually none."""
    children: dict[str | None, list[str]] = {}
    for message in messages:
        children.setdefault(message.parent_id, []).append(message.id)
    reached: set[str] = set()
    stack = list(children.get(None, []))
    while stack:
        current = stack.pop()
        if current not in reached:
            reached.add(current)
            stack.extend(children.get(current, []))
    return [m for m in messages if m.id not in reached]


def repair(session_id: str, messages: list[Message], head: str | None,
           checkpoints: list[Checkpoint], dropped: list[Message]
           ) -> tuple[list[Message], str | None, list[Checkpoint]]:
    """The session without ``dropped`` (see :func:`unreachable`): the head moves to the newest
    message kept from before them; one warning line on stderr. The store writes the repair
    when the session goes on (``load(resume=True)``)."""
    gone = {m.id for m in dropped}
    kept = [m for m in messages if m.id not in gone]
    if head is not None and (head in gone or head not in {m.id for m in kept}):
        first = next(i for i, m in enumerate(messages) if m.id in gone)
        before = [m for m in messages[:first] if m.id not in gone]
        head = before[-1].id if before else (kept[-1].id if kept else None)
    checkpoints = [c for c in checkpoints if c.head is None or c.head not in gone]
    shown = ", ".join(m.id for m in dropped[:3]) + (" …" if len(dropped) > 3 else "")
    roles = ", ".join(sorted({m.role.value for m in dropped}))
    print(ngettext("chatcli: warning: session {id}: dropped {count} saved message ({roles}: "
                   "{shown}) whose earlier message was never saved (a fault of an older "
                   "chatcli); the rest of the session is kept",
                   "chatcli: warning: session {id}: dropped {count} saved messages ({roles}: "
                   "{shown}) whose earlier message was never saved (a fault of an older "
                   "chatcli); the rest of the session is kept", len(dropped)).format(
        id=session_id, count=len(dropped), roles=roles, shown=shown), file=sys.stderr, flush=True)
    return kept, head, checkpoints


def closing_message(messages: list[Message], head: str | None) -> Message | None:
    """Error results for the tool calls of the head message, when a killed process left them
    unanswered; None when the head needs nothing."""
    from chatcli import Message as _Message
    from chatcli import Role, ToolResultPart

    last = next((m for m in messages if m.id == head), None)
    if last is None or last.role != Role.ASSISTANT or not last.tool_calls:
        return None
    return _Message(
        role=Role.TOOL,
        parent_id=last.id,
        parts=[
            ToolResultPart(call_id=c.id, name=c.name, is_error=True,
                           content="not run: chatcli stopped before the tool finished")
            for c in last.tool_calls
        ],
    )


def assemble(info: SessionInfo, messages: list[Message], head: str | None,
             checkpoints: list[Checkpoint], history: list[str | None],
             compactions: list[Compaction], worker: dict[str, Any],
             max_checkpoints: int) -> Conversation:
    """The conversation a store's ``load`` returns, from what it read (after any repair)."""
    from chatcli import Conversation as _Conversation

    conversation = _Conversation.restore(
        id=info.id,
        messages=messages,
        head=head,
        checkpoints=checkpoints[-max_checkpoints:],
        title=info.title,
        max_checkpoints=max_checkpoints,
        head_history=history,
        compactions=compactions,
        # The provider/model to go on with are the last answer's (the kernel reads the log).
        metadata={k: v for k, v in (("session_name", info.name),
                                    ("forked_from", info.forked_from),
                                    ("parent", info.parent)) if v is not None},
    )
    if info.parent is not None and worker:
        conversation.metadata["subagent"] = worker
    return conversation


def fork_of(conversation: Conversation) -> Conversation:
    """What :meth:`SessionStore.fork` stores: a new conversation (new id) with the current path
    of ``conversation``, the checkpoints on it, its compactions, title ``fork of …`` and
    ``metadata["forked_from"]``."""
    from chatcli import Conversation as _Conversation

    path = [m.model_copy(deep=True) for m in conversation.messages()]
    on_path = {m.id for m in path} | {None}
    checkpoints = [c.model_copy(deep=True) for c in conversation.checkpoints if c.head in on_path]
    base_title = conversation.title or derive_title(conversation) or "untitled"
    title = base_title if base_title.startswith("fork of ") else f"fork of {base_title}"
    return _Conversation.restore(
        id=new_session_id(),
        messages=path,
        head=path[-1].id if path else None,
        checkpoints=checkpoints,
        title=title[:80],
        max_checkpoints=conversation.max_checkpoints,
        metadata={**{k: v for k, v in conversation.metadata.items() if k != "session_name"},
                  "forked_from": conversation.id},
        compactions=[c.model_copy(deep=True) for c in conversation.compactions],
    )
