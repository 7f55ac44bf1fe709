"""chatcli_plugin_records.check_compaction: a proposed compaction keeps pinned messages and
never separates a tool call from its result (chatcli-compaction checks each one a strategy
makes)."""

from __future__ import annotations

from chatcli import Compaction, Conversation, Message, Role, ToolCallPart, ToolResultPart
from chatcli_plugin_records import check_compaction


def _chat(n: int, size: int = 10) -> Conversation:
    conversation = Conversation()
    for i in range(n):
        conversation.append(Message.user(f"q{i} " + "x" * size))
        conversation.append(Message.assistant(f"a{i} " + "y" * size))
    return conversation


def _summary(text: str = "summary") -> Message:
    return Message(role=Role.USER, parts=[Message.user(text).parts[0]])


def test_check_refuses_dropping_a_pinned_message_or_splitting_a_call_from_its_result() -> None:
    conversation = _chat(3)
    pinned = conversation.append(Message.user("the rules", ))
    pinned.pinned = True
    call = ToolCallPart(name="read", arguments={"path": "a"})
    conversation.append(Message.assistant("", [call]))
    conversation.append(Message(role=Role.TOOL, parts=[
        ToolResultPart(call_id=call.id, name="read", content="text")]))
    conversation.append(Message.assistant("done"))
    view = conversation.view()
    drop_pin = Compaction(first=view[0].id, last=view[6].id, replacement=[_summary()])
    assert "pinned" in (check_compaction(view, drop_pin) or "")
    keep_pin = Compaction(first=view[0].id, last=view[6].id, replacement=[_summary(), pinned])
    assert check_compaction(view, keep_pin) is None
    split = Compaction(first=view[0].id, last=view[7].id, replacement=[_summary(), pinned])
    assert "tool call" in (check_compaction(view, split) or "")
    assert "not on the view" in (check_compaction(view, Compaction(
        first="nope", last=view[1].id)) or "")
