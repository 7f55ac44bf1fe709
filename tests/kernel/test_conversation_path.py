"""``Conversation.messages()`` keeps the path between calls: after an append only the new message
is looked up, and whatever moves the head (rewind, undo, clear, a branch, setting ``head``)
still gives the path from the root to the head."""

from __future__ import annotations

from typing import Any

from chatcli import Conversation, Message
from hypothesis import given, settings
from hypothesis import strategies as st


class _CountingLog(dict[str, Any]):
    lookups = 0

    def __getitem__(self, key: str) -> Any:
        _CountingLog.lookups += 1
        return super().__getitem__(key)


def _walked(conversation: Conversation) -> list[Message]:
    """The path as walking the log from the head gives it."""
    path, cursor = [], conversation.head
    while cursor is not None:
        path.append(conversation.log[cursor])
        cursor = conversation.log[cursor].parent_id
    return path[::-1]


def test_after_an_append_only_the_new_message_is_looked_up() -> None:
    conversation = Conversation()
    conversation._log = _CountingLog()
    for n in range(500):
        conversation.append(Message.user(f"m{n}"))
    assert len(conversation.messages()) == 500
    _CountingLog.lookups = 0
    conversation.append(Message.user("one more"))
    path = conversation.messages()
    assert _CountingLog.lookups == 1 and path[-1].text == "one more" and len(path) == 501
    _CountingLog.lookups = 0
    assert conversation.messages() == path and _CountingLog.lookups == 0


def test_each_call_returns_its_own_list() -> None:
    conversation = Conversation()
    conversation.append(Message.user("a"))
    first = conversation.messages()
    first.clear()
    assert [m.text for m in conversation.messages()] == ["a"]


OPERATIONS = st.lists(st.one_of(
    st.tuples(st.just("append"), st.text(max_size=3)),
    st.tuples(st.just("checkpoint"), st.just("")),
    st.tuples(st.just("rewind"), st.integers(0, 5)),
    st.tuples(st.just("undo"), st.just("")),
    st.tuples(st.just("clear"), st.just("")),
    st.tuples(st.just("head"), st.integers(0, 50)),
), max_size=40)


@settings(max_examples=60, deadline=None)
@given(OPERATIONS)
def test_the_path_follows_every_move_of_the_head(operations: list[tuple[str, Any]]) -> None:
    conversation = Conversation()
    for kind, value in operations:
        if kind == "append":
            conversation.append(Message.user(value or "x"))
        elif kind == "checkpoint":
            conversation.checkpoint("cp")
        elif kind == "rewind" and conversation.checkpoints:
            conversation.rewind(conversation.checkpoints[value % len(conversation.checkpoints)].id)
        elif kind == "undo":
            conversation.undo()
        elif kind == "clear":
            conversation.clear()
        elif kind == "head" and conversation.log:
            conversation.head = list(conversation.log)[value % len(conversation.log)]
        assert conversation.messages() == _walked(conversation)
