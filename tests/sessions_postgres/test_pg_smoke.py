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
