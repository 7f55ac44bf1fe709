"""Scripted conversations on a real Session against the OpenAI and Anthropic wire servers: a
trigger word injects the body once; the next turn carries the "already above" notice; after
``/clear``, a rewind, a compaction or a session reloaded without it, the body returns; an
edited SKILL.md is re-injected; over budget the body is a pointer naming the exact
``context_pull`` call, and that call brings it back."""

from __future__ import annotations

import pytest
from chatcli import Compaction, Conversation, Message, Role
from chatcli_skills.inject import NOTICE
from chatcli_testing import Reply, ToolCall
from skills_support import (
    conversation_text,
    messages_of,
    pull_arguments,
    pull_kinds,
    write_skill,
)

BODY = "Write the summary line in the imperative mood, at most 60 characters. (SENTINEL-1)"
POINTER = 'Before applying this skill, call context_pull with {"kind": "skill", "name": "commit"}'


@pytest.fixture
def commit(user_skills):
    """A user skill that the words "commit message" activate."""
    return write_skill(user_skills, "commit", f"# Commits\n\n{BODY}\n",
                       triggers=["commit message"])


def _count(request, text=BODY):
    return conversation_text(request).count(text)


def test_a_trigger_injects_the_body_once_then_the_notice(chat, commit):
    c = chat()
    c.turn("Write a commit message for the staged changes")
    c.turn("Now another commit message, for the fix")
    c.turn("Thanks, that is all")
    first, second, third = c.server.requests
    assert _count(first) == 1
    user = messages_of(first)[-1][1]
    assert user.startswith("Write a commit message for the staged changes\n\n")
    assert 'Skill "commit" applies (the message mentions "commit message").' in user
    assert '<skill name="commit" fingerprint="sha256:' in user
    # the body is above (same bytes), and the new message carries the notice instead
    assert _count(second) == 1
    assert messages_of(second)[0] == messages_of(first)[-1]
    last = messages_of(second)[-1][1]
    assert last == ("Now another commit message, for the fix\n\n[chatcli skills — added to this "
                    'message by chatcli]\nSkill "commit" applies (the message mentions "commit '
                    f'message"). {NOTICE}')
    # a turn that matches nothing adds nothing
    assert messages_of(third)[-1][1] == "Thanks, that is all"
    assert _count(third) == 1
    # the log keeps what the user typed
    assert [m.text for m in c.conversation.messages() if m.role == Role.USER] == [
        "Write a commit message for the staged changes", "Now another commit message, for the "
        "fix", "Thanks, that is all"]


def test_after_clear_the_body_returns(chat, commit):
    c = chat()
    c.turn("a commit message please")
    c.conversation.clear()
    c.turn("a commit message again")
    assert _count(c.server.requests[1]) == 1
    assert NOTICE not in conversation_text(c.server.requests[1])
    c.conversation.undo()  # the cleared messages are back, with their body
    c.turn("one more commit message")
    assert _count(c.server.requests[2]) == 1
    assert NOTICE in messages_of(c.server.requests[2])[-1][1]


def test_a_rewind_that_removed_the_body_brings_it_back(chat, commit):
    c = chat()
    c.turn("first a question")
    c.turn("a commit message please")
    c.turn("one more commit message")
    assert NOTICE in conversation_text(c.server.requests[2])
    # back to before the message that carried the body: the body returns
    before_body = c.conversation.checkpoints[1]
    c.conversation.rewind(before_body.id)
    c.turn("the commit message, again")
    assert _count(c.server.requests[3]) == 1
    assert NOTICE not in conversation_text(c.server.requests[3])
    # back to after it (before "one more commit message"): the body is in view, so the notice
    c.conversation.rewind(c.conversation.checkpoints[2].id)
    c.turn("a commit message once more")
    assert _count(c.server.requests[4]) == 1
    assert NOTICE in messages_of(c.server.requests[4])[-1][1]


def test_a_compaction_that_summarised_the_body_away_brings_it_back(chat, commit):
    c = chat()
    c.turn("a commit message please")
    c.turn("thanks")
    view = c.conversation.view()
    c.conversation.compact(Compaction(first=view[0].id, last=view[1].id, replacement=[
        Message.user("Summary: the user asked for a commit message and got one.")]))
    c.turn("another commit message")
    assert _count(c.server.requests[2]) == 1
    assert NOTICE not in conversation_text(c.server.requests[2])
    c.session.conversation.undo_compaction()
    c.turn("yet another commit message")
    assert _count(c.server.requests[3]) == 2  # the original copy and the one after it


def test_a_conversation_restored_without_the_record_gets_the_body_again(chat, commit):
    """A session store keeps the log, not what the request added to it: after a load the
    model has no copy, so the body is injected again."""
    c = chat()
    c.turn("a commit message please")
    old = c.conversation
    restored = Conversation.restore(id="s_restored", messages=old.all_messages(),
                                    head=old.head)
    c.set_conversation(restored)
    c.turn("another commit message")
    request = c.server.requests[1]
    assert _count(request) == 1
    assert messages_of(request)[0][1] == "a commit message please"


def test_an_edited_skill_md_is_injected_again(chat, commit):
    c = chat()
    c.turn("a commit message please")
    path = commit / "SKILL.md"
    path.write_text(path.read_text().replace("(SENTINEL-1)", "(SENTINEL-2)"))
    c.turn("another commit message")
    request = c.server.requests[1]
    assert conversation_text(request).count("(SENTINEL-1)") == 1  # the old copy, above
    last = messages_of(request)[-1][1]
    assert "(SENTINEL-2)" in last and NOTICE not in last
    c.turn("a third commit message")
    assert NOTICE in messages_of(c.server.requests[2])[-1][1]


def test_a_retry_does_not_inject_twice(chat, commit):
    c = chat()
    c.turn("a commit message please")
    user = c.conversation.last(Role.USER)
    c.conversation.move_head(user.id, "retry")
    c.server.script("again")
    list(c.session.run(None))
    retried = c.server.requests[1]
    assert messages_of(retried) == messages_of(c.server.requests[0])


def test_over_budget_the_body_is_a_pointer_and_context_pull_returns_it(chat, commit):
    c = chat(skills={"budget": 50})
    c.turn("a commit message please",
           Reply(tool_calls=[ToolCall("context_pull", {"kind": "skill", "name": "commit"})]),
           "Here it is.")
    first, second = c.server.requests
    last = messages_of(first)[-1][1]
    assert _count(first) == 0
    assert last.endswith(POINTER)
    arguments = pull_arguments(last)
    assert arguments == {"kind": "skill", "name": "commit"}
    # the model made that call: the tool result holds the body
    assert _count(second) == 1
    results = [text for role, text in messages_of(second) if role == "tool"]
    assert results and results[0].startswith('<skill name="commit"')
    # the copy it read counts as "above"
    c.turn("another commit message")
    assert NOTICE in messages_of(c.server.requests[2])[-1][1]
    assert _count(c.server.requests[2]) == 1


def test_the_pull_kind_returns_the_same_block_a_turn_injects(chat, commit):
    c = chat()
    c.turn("a commit message please")
    kind = pull_kinds(c.host)["skill"]
    block = kind.fetch({"name": "commit"}, c.session.engine.tool_context())
    assert block.startswith('<skill name="commit"') and block.endswith("</skill>")
    assert block in messages_of(c.server.requests[0])[-1][1]


def test_the_budget_is_shared_by_the_bodies_of_one_turn(chat, user_skills):
    write_skill(user_skills, "alpha", "A" * 300, triggers=["release"])
    write_skill(user_skills, "beta", "B" * 300, triggers=["release"])
    c = chat(skills={"budget": 1_000})
    c.turn("prepare the release")
    last = messages_of(c.server.requests[0])[-1][1]
    assert "A" * 300 in last
    assert "B" * 300 not in last
    assert 'call context_pull with {"kind": "skill", "name": "beta"}' in last
    # the next turn has a budget of its own
    c.turn("the release again")
    again = messages_of(c.server.requests[1])[-1][1]
    assert "B" * 300 in again and NOTICE in again


def test_without_a_way_to_read_it_back_nothing_is_deferred(chat, commit):
    c = chat(plugins=(), skills={"budget": 50})
    c.turn("a commit message please")
    last = messages_of(c.server.requests[0])[-1][1]
    assert BODY in last and "context_pull" not in last


def test_with_only_a_read_tool_the_pointer_names_the_file(chat, commit, workspace):
    from skills_support import ReadTool

    c = chat(plugins=(ReadTool(workspace),), skills={"budget": 50})
    c.turn("a commit message please")
    last = messages_of(c.server.requests[0])[-1][1]
    assert last.endswith("Before applying this skill, read its instructions with the read "
                         f"tool: {commit / 'SKILL.md'}")


def test_auto_off_activates_only_what_the_user_asks_for(chat, commit):
    c = chat(skills={"auto": False})
    c.turn("a commit message please")
    assert _count(c.server.requests[0]) == 0


def test_a_disabled_skill_is_neither_listed_nor_activated(chat, commit):
    c = chat(skills={"disabled": ["commit"]})
    c.turn("a commit message please")
    request = c.server.requests[0]
    assert _count(request) == 0
    assert "- commit:" not in request.json["messages"][0]["content"]


def test_the_anthropic_request_keeps_the_bytes_of_earlier_turns(anthropic_chat, commit):
    c = anthropic_chat()
    c.turn("a commit message please")
    c.turn("another commit message")
    c.turn("and a third commit message")
    first, second, third = (r.json["messages"] for r in c.server.requests)
    assert second[0] == {**first[0], "content": second[0]["content"]}
    texts = [[b["text"] for b in m["content"]] for m in (first[0], second[0], third[0])]
    assert texts[0] == texts[1] == texts[2]
    assert sum(BODY in t for m in third for t in
               [b.get("text", "") for b in m["content"]]) == 1


def test_with_chatcli_contexts_context_pull_the_pointer_is_followed(chat, commit):
    """End to end with the real ``context_pull`` (chatcli-context): the pointer's call, and a
    model's sloppier spelling of it, both bring the body back."""
    from chatcli_context.plugin import ContextPlugin

    c = chat(plugins=(ContextPlugin(),), skills={"budget": 50})
    c.turn("a commit message please",
           Reply(tool_calls=[ToolCall("context_pull", {"cmd": "skill", "skill": "commit"})]),
           "Here it is.")
    first, second = c.server.requests
    assert messages_of(first)[-1][1].endswith(POINTER)
    assert "context_pull" in [t["function"]["name"] for t in first.json["tools"]]
    results = [text for role, text in messages_of(second) if role == "tool"]
    assert results[0].startswith('<skill name="commit"') and BODY in results[0]
    c.turn("another commit message")
    assert NOTICE in messages_of(c.server.requests[2])[-1][1]
    assert _count(c.server.requests[2]) == 1
