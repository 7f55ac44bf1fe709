"""A worker's conversation (a subagent's, ``Conversation(parent=…)``) is kept as a branch of the
session that delegated to it: stored with its parent and what the delegation said of it, left
out of lists, ``-c`` and counts, listed by ``workers()`` and ``sessions show``, loaded back with
its metadata, and deleted with its parent."""

from __future__ import annotations

from pathlib import Path

from chatcli import Conversation, PluginHost, attach_hooks
from chatcli_sessions.store import SessionStore
from sessions_helpers import new_conversation, path_texts, turn


def _worker(host: PluginHost, parent: Conversation, worker_id: str, kind: str) -> Conversation:
    child = Conversation(parent=parent, title=f"{worker_id} {kind}: look around",
                         metadata={"subagent": {"id": worker_id, "type": kind,
                                                "task": "find the config loader"}})
    attach_hooks(child, host)
    turn(child, f"task of {worker_id}", f"result of {worker_id}")
    return child


def test_workers_are_branches_of_their_session(host: PluginHost, db_path: Path) -> None:
    root = new_conversation(host)
    turn(root, "delegate two searches", "on it")
    first = _worker(host, root, "w1", "explore")
    second = _worker(host, root, "w2", "general")
    with SessionStore(db_path) as store:
        assert [info.id for info in store.list()] == [root.id]  # workers are not sessions to pick
        assert store.count() == 1
        assert store.latest() is not None and store.latest().id == root.id  # `-c` goes on here
        workers = store.workers(root.id)
        assert [(info.id, said["id"], said["type"]) for info, said in workers] == [
            (first.id, "w1", "explore"), (second.id, "w2", "general")]
        assert all(info.parent == root.id for info, _ in workers)
        loaded = store.load(first.id)
        assert path_texts(loaded) == ["task of w1", "result of w1"]
        assert loaded.metadata["parent"] == root.id
        assert loaded.metadata["subagent"]["task"] == "find the config loader"
        assert store.delete(root.id)
        assert store.info(first.id) is None and store.info(second.id) is None
