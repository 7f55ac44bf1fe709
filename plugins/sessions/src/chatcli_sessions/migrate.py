"""``chatcli sessions migrate --to NAME``: copy every session from one store to another through
the :class:`chatcli_sessions_api.SessionStore` protocol only (so any registered store can be the
target), then read each one back and compare.

What is copied: every root session and, under it, its workers' sessions (recursively): the log
with parents in ``seq`` order, head, every checkpoint, the undo stack (head events), the
compactions, name, title, times, provider/model, ``forked_from``, project, folder, and what the
delegation said of a worker. Idempotent: a session already in the target with the same content
is skipped; one there with other content is a problem (never overwritten).

Verification: each session is read back from the target and its content hash (everything
above) compared with the source's; the counts of sessions and messages must match.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Conversation
    from chatcli_sessions_api import SessionInfo, SessionStore

__all__ = ["Migration", "content_hash", "migrate", "read_session", "sessions_of"]

_, ngettext = translation(__name__)


@dataclass
class Migration:
    """What a migration did: sessions copied now (and their messages), sessions found already
    there, sessions verified, and one line per problem."""

    copied: int = 0
    messages: int = 0
    skipped: int = 0
    verified: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every session is in the target with the source's content."""
        return not self.problems

    def summary(self) -> str:
        """``migrated N sessions (M messages), verified`` (or what failed)."""
        counts = {
            "count": self.copied,
            "messages": ngettext("{count} message", "{count} messages",
                                 self.messages).format(count=self.messages),
            "already": ngettext("{count} already there", "{count} already there",
                                self.skipped).format(count=self.skipped),
            "problems": ngettext("{count} problem", "{count} problems",
                                 len(self.problems)).format(count=len(self.problems)),
        }
        if self.ok and not self.skipped:
            # i18n: {messages} is "N messages"
            line = ngettext("migrated {count} session ({messages}), verified",
                            "migrated {count} sessions ({messages}), verified", self.copied)
        elif self.ok:
            # i18n: {messages} is "N messages", {already} "N already there"
            line = ngettext("migrated {count} session ({messages}), {already}, verified",
                            "migrated {count} sessions ({messages}), {already}, verified",
                            self.copied)
        elif not self.skipped:
            # i18n: {messages} is "N messages", {problems} "N problems"
            line = ngettext(
                "migrated {count} session ({messages}), verification failed: {problems}",
                "migrated {count} sessions ({messages}), verification failed: {problems}",
                self.copied)
        else:
            # i18n: {messages} is "N messages", {already} "N already there", {problems}
            # "N problems"
            line = ngettext(
                "migrated {count} session ({messages}), {already}, verification failed: "
                "{problems}",
                "migrated {count} sessions ({messages}), {already}, verification failed: "
                "{problems}", self.copied)
        return line.format(**counts)


def sessions_of(store: SessionStore) -> Iterator[tuple[SessionInfo, dict[str, Any]]]:
    """Every session of ``store``: each root session (oldest updated first), then its workers'
    (recursively), each with what the delegation said of it ({} for a root)."""
    seen: set[str] = set()

    def walk(info: SessionInfo, worker: dict[str, Any]
             ) -> Iterator[tuple[SessionInfo, dict[str, Any]]]:
        if info.id in seen:
            return
        seen.add(info.id)
        yield info, worker
        for child, said in store.workers(info.id):
            yield from walk(child, said)

    for root in reversed(store.list()):
        yield from walk(root, {})


def read_session(store: SessionStore, info: SessionInfo, worker: dict[str, Any]
                 ) -> tuple[Conversation, list[str | None]]:
    """The session as a conversation ready for ``import_session`` (every checkpoint, the
    folder, parent and worker in its metadata) and its undo stack."""
    from chatcli import Conversation as _Conversation

    checkpoints = store.checkpoints(info.id)
    metadata: dict[str, Any] = {}
    if info.cwd is not None:
        metadata["cwd"] = info.cwd
    if info.parent is not None:
        metadata["parent"] = info.parent
        if worker:
            metadata["subagent"] = worker
    conversation = _Conversation.restore(
        id=info.id, messages=store.messages(info.id), head=info.head, checkpoints=checkpoints,
        title=info.title, max_checkpoints=max(len(checkpoints), 1),
        compactions=store.compactions(info.id), metadata=metadata)
    return conversation, store.head_history(info.id)


def content_hash(store: SessionStore, info: SessionInfo, worker: dict[str, Any]) -> str:
    """A SHA-256 of everything a migration copies of one session, as ``store`` gives it back."""
    record = {
        "session": {k: v for k, v in info.to_dict().items() if k != "messages"},
        "worker": worker,
        "messages": [m.model_dump(mode="json") for m in store.messages(info.id)],
        "checkpoints": [c.model_dump(mode="json") for c in store.checkpoints(info.id)],
        "head_history": store.head_history(info.id),
        "compactions": [c.model_dump(mode="json") for c in store.compactions(info.id)],
    }
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _worker_of(store: SessionStore, info: SessionInfo) -> dict[str, Any]:
    """What the delegation said of ``info``'s session, read from ``store`` ({} for a root)."""
    if info.parent is None:
        return {}
    return next((said for child, said in store.workers(info.parent) if child.id == info.id), {})


def migrate(source: SessionStore, target: SessionStore,
            progress: Callable[[str], None] | None = None) -> Migration:
    """Copy every session of ``source`` into ``target`` (skipping those already there with the
    same content), then verify each one; problems are collected, one line each."""
    from chatcli import ChatcliError

    result = Migration()
    expected: list[tuple[SessionInfo, dict[str, Any], str]] = []
    failed: set[str] = set()  # told already: not verified again
    for info, worker in sessions_of(source):
        digest = content_hash(source, info, worker)
        expected.append((info, worker, digest))
        there = target.info(info.id)
        if there is not None:
            if content_hash(target, there, _worker_of(target, there)) == digest:
                result.skipped += 1
            else:
                failed.add(info.id)
                result.problems.append(_("session {session}: already in the target with other "
                                         "content (left as it is there)").format(
                    session=info.id))
            continue
        conversation, history = read_session(source, info, worker)
        try:
            target.import_session(
                conversation, name=info.name, created_at=info.created_at,
                updated_at=info.updated_at, provider=info.provider, model=info.model,
                forked_from=info.forked_from, project=info.project, head_history=history)
        except ChatcliError as err:
            failed.add(info.id)
            result.problems.append(_("session {session}: not copied: {error}").format(
                session=info.id, error=err))
            continue
        result.copied += 1
        result.messages += len(conversation.log)
        if progress is not None:
            progress(ngettext("copied {session} ({count} messages)",
                              "copied {session} ({count} messages)",
                              len(conversation.log)).format(session=info.id,
                                                            count=len(conversation.log)))
    for info, _worker, digest in expected:
        if info.id in failed:
            continue
        there = target.info(info.id)
        if there is None:
            result.problems.append(_("session {session}: missing from the target").format(
                session=info.id))
            continue
        if there.messages != info.messages:
            result.problems.append(ngettext(
                "session {session}: {target} messages in the target, {source} in the source",
                "session {session}: {target} messages in the target, {source} in the source",
                there.messages).format(session=info.id, target=there.messages,
                                       source=info.messages))
        elif content_hash(target, there, _worker_of(target, there)) != digest:
            result.problems.append(_("session {session}: the target holds other content "
                                     "(content hash differs)").format(session=info.id))
        else:
            result.verified += 1
    return result
