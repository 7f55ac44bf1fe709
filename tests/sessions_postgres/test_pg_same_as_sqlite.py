"""The PostgreSQL store ends exactly where the SQLite store does: one conversation, driven by
hypothesis through turns, rewinds, undos, clears and compactions, is written to both stores at
once by the same hooks; every view of the stores (list, info, log in order, checkpoints, undo
stack, compactions, a resumed conversation, searches) is then the same."""

from __future__ import annotations

import tempfile
from pathlib import Path

from chatcli import Compaction, Conversation, Message, PluginHost, attach_hooks
from chatcli_sessions.store import SessionStore as SqliteStore
from chatcli_sessions_api import SessionStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sessions_postgres_support import StoreHooks, turn

#: Characters on which FTS5's ``unicode61`` tables and Python's agree (both stores cut the same
#: words): letters with and without accents, digits, punctuation, quotes and stars, spaces.
#: NUL and lone surrogates become U+FFFD in PostgreSQL (see test_pg_any_character);
#: emoji and letters of recent Unicode versions are cut differently by SQLite's older tables.
CHARS = st.sampled_from(list("abcxyzABXYZ0129 -_.,:;!?'\"*()[]/→éÉüÜßçñåøαβΓжЖ中文\n\t"))
TEXT = st.text(CHARS, max_size=40) | st.sampled_from(
    ["alpha beta", "Beta gamma", "café au lait", "deploy → prod", "α β γ", "x_y z-w",
     "file.py and file", "pre-commit hooks", "commit pre"])

OPS = st.lists(st.one_of(
    st.tuples(st.just("turn"), TEXT, TEXT),
    st.tuples(st.just("rewind"), st.integers(0, 30)),
    st.tuples(st.just("undo")),
    st.tuples(st.just("clear")),
    st.tuples(st.just("compact"), st.integers(0, 30), st.integers(0, 30), TEXT),
    st.tuples(st.just("uncompact")),
    st.tuples(st.just("name"), st.sampled_from(["first name", "second", "café"])),
), min_size=1, max_size=14)


def _both(stores: tuple[SessionStore, SessionStore], max_checkpoints: int) -> Conversation:
    host = PluginHost(warn=lambda line: (_ for _ in ()).throw(AssertionError(line)))
    for n, store in enumerate(stores):
        assert host.register(StoreHooks(store), f"store-{n}")
    conversation = Conversation(max_checkpoints=max_checkpoints)
    attach_hooks(conversation, host)
    return conversation


def _apply(conversation: Conversation, stores: tuple[SessionStore, ...], op: tuple) -> None:
    kind = op[0]
    if kind == "turn":
        turn(conversation, op[1] or "?", op[2])
    elif kind == "rewind" and conversation.checkpoints:
        conversation.rewind(conversation.checkpoints[op[1] % len(conversation.checkpoints)].id)
    elif kind == "undo":
        conversation.undo()
    elif kind == "clear":
        conversation.clear()
    elif kind == "compact":
        view = conversation.view()
        if len(view) >= 2:
            first, last = sorted((op[1] % len(view), op[2] % len(view)))
            conversation.compact(Compaction(first=view[first].id, last=view[last].id,
                                            replacement=[Message.user(op[3] or "summary")],
                                            strategy="summarise"))
    elif kind == "uncompact":
        conversation.undo_compaction()
    elif kind == "name" and stores[0].info(conversation.id) is not None:
        for store in stores:
            store.save(conversation, name=f"{op[1]} {conversation.id[-6:]}")


def _views(store: SessionStore, session_id: str) -> dict:
    info = store.info(session_id)
    if info is None:
        return {}
    summary = info.to_dict()
    summary.pop("updated_at")  # each store stamps its own write
    summary.pop("created_at")
    resumed = store.load(session_id)
    words = [w for m in store.messages(session_id) for w in m.text.split()[:2]][:6]
    queries = [*words]
    for message in store.messages(session_id)[:4]:  # two words, the last cut short: a prefix
        pair = message.text.split()[:2]
        if len(pair) == 2 and len(pair[1]) > 1:
            queries += [" ".join(pair), f"{pair[0]} {pair[1][:-1]}"]
    return {
        "info": summary,
        "listed": [i.id for i in store.list()].count(session_id),
        "log": [m.model_dump() for m in store.messages(session_id)],
        "checkpoints": [c.model_dump() for c in store.checkpoints(session_id)],
        "undo": store.head_history(session_id),
        "compactions": [c.model_dump() for c in store.compactions(session_id)],
        "resumed": ([m.id for m in resumed.view()], resumed.head, resumed.title),
        "searches": {q: sorted(h.message_id for h in store.search(q, limit=1000)
                               if h.session_id == session_id)
                     for q in queries
                     if all(any(ch.isalnum() for ch in w) for w in q.split())},
    }


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=OPS, max_checkpoints=st.integers(1, 4))
def test_both_stores_end_the_same(open_store_once, ops, max_checkpoints: int) -> None:
    postgres, _ = open_store_once
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteStore(Path(folder) / "sessions.db")
        try:
            stores = (sqlite, postgres)
            conversation = _both(stores, max_checkpoints)
            conversation.metadata["cwd"] = folder
            for op in ops:
                _apply(conversation, stores, op)
            expected = _views(sqlite, conversation.id)
            assert bool(expected) == any(op[0] == "turn" for op in ops)
            assert _views(postgres, conversation.id) == expected
        finally:
            sqlite.close()
