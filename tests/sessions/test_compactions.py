"""The view's compactions in the session store: written on ``view_changed`` (added or undone),
given back on resume (so the view stays compacted and undo works after a restart), copied by a
fork, carried by a JSON export, and a database of the first schema migrated in place."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from chatcli import Compaction, Conversation, Message, PluginHost, Settings
from chatcli_sessions.export import to_json
from chatcli_sessions.restore import read_export
from chatcli_sessions.schema import MIGRATIONS, SCHEMA_VERSION
from chatcli_sessions.store import SessionStore
from sessions_helpers import new_conversation, turn


def _summarised(conversation: Conversation, first: int, last: int, text: str) -> Compaction:
    view = conversation.view()
    compaction = Compaction(first=view[first].id, last=view[last].id,
                            replacement=[Message.user(text)], strategy="summarise")
    conversation.compact(compaction)
    return compaction


def _resume(host: PluginHost, conversation_id: str) -> Conversation:
    return host.hooks.open_conversation(settings=Settings(), resume=conversation_id,
                                        continue_last=False)


def test_compactions_are_written_as_they_change_and_come_back_on_resume(
        host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    for i in range(5):
        turn(conversation, f"question {i}")
    first = _summarised(conversation, 0, 3, "summary one")
    second = _summarised(conversation, 0, 5, "summary two")
    resumed = _resume(host, conversation.id)
    assert [c.id for c in resumed.compactions] == [first.id, second.id]
    assert resumed.compactions[1] == second  # every field, replacement included
    assert [m.text for m in resumed.view()] == [m.text for m in conversation.view()]
    assert resumed.view()[0].text == "summary two"

    # undo after the restart, and the undo is stored too
    from chatcli import attach_hooks

    attach_hooks(resumed, host)
    assert resumed.undo_compaction() == second
    again = _resume(host, conversation.id)
    assert [c.id for c in again.compactions] == [first.id]
    assert again.view()[0].text == "summary one"


def test_undoing_an_older_compaction_rewrites_the_ones_after_it(host: PluginHost,
                                                                db_path: Path) -> None:
    conversation = new_conversation(host)
    for i in range(6):
        turn(conversation, f"question {i}")
    early = _summarised(conversation, 0, 1, "early")
    late = _summarised(conversation, 5, 8, "late")
    path = conversation.messages()
    conversation.move_head(path[5].id, "rewind")  # the late one no longer applies...
    assert conversation.undo_compaction() == early  # ...so undo takes the early one
    with SessionStore(db_path) as store:
        assert [c.id for c in store.compactions(conversation.id)] == [late.id]
        rows = store.db.execute("SELECT position FROM compactions WHERE session_id = ?",
                                (conversation.id,)).fetchall()
    assert rows == [(0,)]


def test_a_fork_and_a_json_export_keep_the_compacted_view(host: PluginHost,
                                                          db_path: Path) -> None:
    conversation = new_conversation(host)
    for i in range(4):
        turn(conversation, f"question {i}")
    compaction = _summarised(conversation, 0, 3, "the summary")
    with SessionStore(db_path) as store:
        forked = store.fork(conversation)
        assert [c.id for c in store.load(forked.id).compactions] == [compaction.id]
        exported = to_json(store.load(conversation.id))
    assert json.loads(exported)["compactions"][0]["id"] == compaction.id
    imported = read_export(exported.encode(), "s.json", new_id="s_copy")
    assert imported.conversation.view()[0].text == "the summary"
    older = json.loads(exported)
    del older["compactions"]  # an export of an older chatcli still imports
    assert read_export(json.dumps(older).encode(), "old.json").conversation.compactions == []


def test_a_database_of_the_first_schema_is_migrated_in_place(home: Path, db_path: Path
                                                            ) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(db_path, isolation_level=None)
    MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.close()
    with SessionStore(db_path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        assert store.compactions("s_none") == []
