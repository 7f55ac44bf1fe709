"""First checks of the PostgreSQL store (the contract suite covers the rest)."""

from __future__ import annotations

from sessions_postgres_support import path_texts, turn, wired


def test_round_trip(open_store) -> None:
    store = open_store()
    conversation = wired(store)
    turn(conversation, "one")
    turn(conversation, "two")
    conversation.rewind(conversation.checkpoints[1].id)
    turn(conversation, "two again")
    [info] = store.list()
    assert info.id == conversation.id and info.messages == 6 and info.title == "one"
    other = open_store()
    restored = other.load(conversation.id)
    assert path_texts(restored) == path_texts(conversation)
    assert set(restored.log) == set(conversation.log)
    assert restored.undo()
    assert [h.snippet for h in other.search("agai")] == ["answer to two [again]", "two [again]"]


def test_limits_read_as_the_sqlite_store_reads_them(open_store) -> None:
    store = open_store()
    conversations = [wired(store) for _ in range(3)]
    for n, conversation in enumerate(conversations):
        turn(conversation, f"limit question {n}")
    assert len(store.list(limit=0)) == 0 and len(store.list(limit=2)) == 2
    assert len(store.list(limit=-1)) == 3  # negative: no limit
    assert len(store.search("limit", limit=0)) == 0
    assert len(store.search("limit", limit=4)) == 4
    assert len(store.search("limit", limit=-1)) == 6
    assert len(store.search("limit-question", limit=-1)) == 6  # a phrase
