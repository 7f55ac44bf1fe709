"""Reading a JSON export back (``chatcli sessions import``): checked whole before anything is
written, so a bad file is one line naming it and the problem, and the database is unchanged."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chatcli import UsageError, safe_json, translation

from chatcli_sessions.export import EXPORT_FORMAT, EXPORT_VERSION

if TYPE_CHECKING:
    from chatcli import Conversation

__all__ = ["Imported", "read_export"]

_, ngettext = translation(__name__)

#: The hint of a file that is not (or no longer) a usable export.
_AGAIN = _("export the session again with `chatcli sessions export ID --format json`")


@dataclass
class Imported:
    """A session read from an export, ready for :meth:`SessionStore.import_session`."""

    conversation: Conversation
    original_id: str
    name: str | None
    created_at: float
    updated_at: float
    provider: str | None
    model: str | None
    forked_from: str | None
    #: the project the session belonged to where it was exported (None: no project)
    project: str | None = None


class _Bad(Exception):
    """One problem with the file (becomes the UsageError that names the file)."""

    def __init__(self, problem: str, hint: str = _AGAIN) -> None:
        super().__init__(problem)
        self.problem, self.hint = problem, hint


def _get(mapping: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str,
         default: Any = None) -> Any:
    """``mapping[key]`` if it has type ``kind`` (missing or null: ``default``), else a _Bad."""
    value = mapping.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, kind):
        if where:
            raise _Bad(_("session {key!r} has the wrong type ({kind})").format(
                key=key, kind=type(value).__name__))
        raise _Bad(_("{key!r} has the wrong type ({kind})").format(key=key,
                                                                   kind=type(value).__name__))
    return value


def _session_id(value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 200 or not value.isprintable() \
            or any(c.isspace() for c in value):
        raise _Bad(_("the session id is missing or malformed"))
    return value


def _first_error(err: Any) -> str:
    """The first problem pydantic found, as ``field.path: message``."""
    first = err.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "value"
    return f"{where}: {first.get('msg', 'invalid')}"


def _check_tree(parents: dict[str, str | None]) -> None:
    """Every parent is in the file and no chain of parents loops (checked in one pass)."""
    done: set[str] = set()
    for start in parents:
        chain: list[str] = []
        seen: set[str] = set()
        cursor: str | None = start
        while cursor is not None and cursor not in done:
            if cursor in seen:
                raise _Bad(_("message {message} is its own ancestor").format(message=cursor))
            if cursor not in parents:
                raise _Bad(_("message {message} has the parent {parent}, which is not in the file"
                             ).format(message=chain[-1], parent=cursor))
            seen.add(cursor)
            chain.append(cursor)
            cursor = parents[cursor]
        done.update(chain)


def _parse(data: Any, new_id: str | None) -> Imported:
    from chatcli import Checkpoint, Compaction, Conversation, Message
    from pydantic import ValidationError

    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise _Bad(_('not a chatcli session export (no "format": "{format}")').format(
            format=EXPORT_FORMAT),
                   _("give a file written by `chatcli sessions export ID --format json`"))
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _Bad(_("unknown export version {version!r}").format(version=version))
    if version > EXPORT_VERSION:
        raise _Bad(_("it was written by a newer chatcli (export version {version})").format(
            version=version), _("upgrade chatcli-sessions"))
    session = _get(data, "session", dict, "", {})
    original = _session_id(session.get("id"))
    messages: list[Message] = []
    for number, raw in enumerate(_get(data, "messages", list, "", []), start=1):
        try:
            messages.append(Message.model_validate(raw))
        except ValidationError as err:
            raise _Bad(_("message {number} is invalid ({problem})").format(
                number=number, problem=_first_error(err))) from None
    parents = {m.id: m.parent_id for m in messages}
    if len(parents) != len(messages):
        raise _Bad(_("two messages have the same id"))
    _check_tree(parents)
    head = _get(data, "head", str, "", None)
    if head is not None and head not in parents:
        raise _Bad(_("the head {head} is not one of its messages").format(head=head))
    checkpoints: list[Checkpoint] = []
    for number, raw in enumerate(_get(data, "checkpoints", list, "", []), start=1):
        try:
            checkpoint = Checkpoint.model_validate(raw)
        except ValidationError as err:
            raise _Bad(_("checkpoint {number} is invalid ({problem})").format(
                number=number, problem=_first_error(err))) from None
        if checkpoint.head is not None and checkpoint.head not in parents:
            raise _Bad(_("checkpoint {number} points at {head}, not in the file").format(
                number=number, head=checkpoint.head))
        checkpoints.append(checkpoint)
    if len({c.id for c in checkpoints}) != len(checkpoints):
        raise _Bad(_("two checkpoints have the same id"))
    compactions: list[Compaction] = []
    for number, raw in enumerate(_get(data, "compactions", list, "", []), start=1):
        try:
            compactions.append(Compaction.model_validate(raw))
        except ValidationError as err:
            raise _Bad(_("compaction {number} is invalid ({problem})").format(
                number=number, problem=_first_error(err))) from None
    if len({c.id for c in compactions}) != len(compactions):
        raise _Bad(_("two compactions have the same id"))
    name = _get(session, "name", str, "session ", None)
    created = float(_get(session, "created_at", (int, float), "session ", 0.0))
    conversation = Conversation.restore(
        id=new_id or original,
        messages=messages,
        head=head,
        checkpoints=checkpoints,
        title=_get(session, "title", str, "session ", ""),
        max_checkpoints=max(len(checkpoints), 20),
        compactions=compactions,
    )
    return Imported(
        conversation=conversation,
        original_id=original,
        name=(name.strip() or None) if name else None,
        created_at=created,
        updated_at=float(_get(session, "updated_at", (int, float), "session ", created)),
        provider=_get(session, "provider", str, "session ", None),
        model=_get(session, "model", str, "session ", None),
        forked_from=_get(session, "forked_from", str, "session ", None),
        project=_get(session, "project", str, "session ", None) or None,
    )


def read_export(raw: bytes, source: str, new_id: str | None = None) -> Imported:
    """Parse the bytes of a JSON export; ``source`` names the file in errors.

    With ``new_id`` the session gets that id instead of its own. Raises
    :class:`~chatcli.UsageError` (one line, naming ``source``) for anything that is not a
    complete, consistent export.
    """
    try:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise _Bad(_("not UTF-8 text (byte {offset})").format(offset=err.start)) from None
        if not text.strip():
            raise _Bad(_("the file is empty"))
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise _Bad(_("not JSON ({problem} at line {line} column {column})").format(
                problem=err.msg, line=err.lineno, column=err.colno)) from None
        except RecursionError:
            raise _Bad(_("not JSON this chatcli can read (nested too deeply)")) from None
        # JSON can spell what nothing can store ("\ud800", "\u0000"): made safe everywhere at
        # once, ids included, so references between messages still match
        return _parse(safe_json(data), new_id)
    except _Bad as bad:
        raise UsageError(_("cannot import {path}: {problem}").format(path=source,
                                                                      problem=bad.problem),
                         bad.hint) from None
