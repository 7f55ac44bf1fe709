"""The append-only conversation log: head, checkpoints, rewind and undo."""

from __future__ import annotations

import pytest
from chatcli import Compaction, Conversation, Message, PluginHost, attach_hooks, hookimpl


def texts(conversation: Conversation) -> list[str]:
    return [m.text for m in conversation.messages()]


def test_rewind_moves_head_keeps_log_and_branches() -> None:
    conv = Conversation()
    cp1 = conv.checkpoint("first")
    conv.append(Message.user("one"))
    conv.append(Message.assistant("1"))
    cp2 = conv.checkpoint("second")
    conv.append(Message.user("two"))
    conv.append(Message.assistant("2"))
    assert texts(conv) == ["one", "1", "two", "2"]

    conv.rewind(cp2.id)
    assert texts(conv) == ["one", "1"]
    assert len(conv.log) == 4  # nothing deleted
    conv.append(Message.user("other"))
    assert texts(conv) == ["one", "1", "other"]
    assert len(conv.log) == 5

    conv.rewind(cp1.id[:6])
    assert texts(conv) == []
    assert conv.undo()
    assert texts(conv) == ["one", "1", "other"]
    assert conv.undo()  # undo the first rewind too
    assert texts(conv) == ["one", "1", "two", "2"]
    assert not conv.undo()


def test_checkpoints_are_capped_and_unknown_ids_rejected() -> None:
    conv = Conversation(max_checkpoints=3)
    for i in range(5):
        conv.checkpoint(f"c{i}")
        conv.append(Message.user(str(i)))
    assert [c.label for c in conv.checkpoints] == ["c2", "c3", "c4"]
    with pytest.raises(KeyError):
        conv.rewind("nope")
    with pytest.raises(KeyError):
        conv.move_head("msg_missing", "rewind")


def test_the_lifecycle_hooks_see_every_change() -> None:
    seen: list[str] = []

    class Spy:
        @hookimpl
        def message_appended(self, conversation, message):
            seen.append(f"append:{message.text}")

        @hookimpl
        def checkpoint_created(self, conversation, checkpoint):
            seen.append(f"checkpoint:{checkpoint.label}")

        @hookimpl
        def head_moved(self, conversation, head, reason):
            seen.append(f"head:{reason}")

        @hookimpl
        def view_changed(self, conversation, reason, strategy, removed):
            seen.append(f"view:{reason}:{strategy}:{removed}")

    host = PluginHost(warn=lambda line: seen.append(f"failure: {line}"))
    host.register(Spy(), "spy")
    conv = Conversation()
    attach_hooks(conv, host)
    cp = conv.checkpoint("x")
    first = conv.append(Message.user("hi"))
    last = conv.append(Message.assistant("hello"))
    conv.compact(Compaction(first=first.id, last=last.id, strategy="trim",
                            replacement=[Message.user("short")]))
    conv.undo_compaction()
    conv.rewind(cp.id)
    conv.undo()
    conv.clear()
    assert seen == ["checkpoint:x", "append:hi", "append:hello", "view:compact:trim:2",
                    "view:undo::0", "head:rewind", "head:undo", "head:clear"]


def test_restore_rebuilds_the_same_view() -> None:
    conv = Conversation(title="t")
    conv.append(Message.user("a"))
    conv.append(Message.assistant("b"))
    stored = [Message.model_validate_json(m.model_dump_json()) for m in conv.log.values()]
    again = Conversation.restore(conv.id, list(reversed(stored)), conv.head, title="t")
    assert texts(again) == ["a", "b"] and again.id == conv.id


def test_the_log_is_read_only_and_lists_every_branch_in_append_order() -> None:
    import pytest

    conv = Conversation()
    first = conv.append(Message.user("one"))
    conv.append(Message.assistant("answer"))
    conv.move_head(first.id, "rewind")
    branch = conv.append(Message.assistant("another answer"))
    assert [m.text for m in conv.all_messages()] == ["one", "answer", "another answer"]
    assert [m.text for m in conv.messages()] == ["one", "another answer"]
    with pytest.raises(TypeError):
        conv.log[branch.id] = Message.user("written behind the log's back")  # type: ignore[index]
    restored = Conversation.restore("s_x", conv.all_messages(), branch.id,
                                    metadata={"session_name": "kept"})
    assert restored.metadata == {"session_name": "kept"}
    assert [m.text for m in restored.messages()] == ["one", "another answer"]
