"""The truncate strategy: the oldest middle messages go until the view fits, with one note
saying how many and from where, and how to get them back; pinned and recent messages stay; a
call goes with its results."""

from __future__ import annotations

from chatcli import Conversation, Message
from chatcli_compaction import truncate
from chatcli_compaction.markers import find_citation
from compaction_support import apply_checked, chat_turn, job, pairs_hold, tool_turn


def _view() -> list[Message]:
    view: list[Message] = []
    for i in range(10):
        tool_turn(view, f"question {i} " + "q" * 400, "read", f"output {i} " + "o" * 400,
                  answer=f"answer {i} " + "a" * 400)
    return view


def test_the_oldest_messages_go_until_the_view_fits_and_a_note_says_what_and_how() -> None:
    view = _view()
    view[5].pinned = True  # a call in the range: it stays with its results
    conversation = Conversation()
    for message in view:
        conversation.append(message)
    done = job(view, keep_recent=4, budget=2_000)
    (compaction,) = truncate.run(done)
    conversation.compact(compaction)
    after = conversation.view()
    assert pairs_hold(after) and done.count(after) <= 2_000
    note = after[0].text
    dropped = conversation.archived(find_citation(note))
    assert dropped == view[:view.index(dropped[-1]) + 1]
    count = len(dropped) - 2  # the pinned call and its results stay
    assert note.startswith(f"[Dropped to fit the context window: {count} earlier messages, "
                           f"from “question 0 qqq")
    assert 'context_pull {"kind": "history", "id": "' in note
    assert after[1:3] == [view[5], view[6]]
    assert after[-4:] == view[-4:]
    assert after[3] is view[len(dropped)]  # what is left of the middle is the newest of it


def test_nothing_is_dropped_when_the_view_fits() -> None:
    view = _view()
    assert truncate.run(job(view, keep_recent=4, budget=100_000)) == []


def test_a_call_is_dropped_with_its_results() -> None:
    view: list[Message] = []
    chat_turn(view, "a" * 2_000, "b" * 2_000)
    tool_turn(view, "c", "read", "d" * 2_000)
    chat_turn(view, "recent", "reply")
    done = job(view, keep_recent=2, budget=900)
    after = apply_checked(view, truncate.run(done))
    assert pairs_hold(after)
    assert not any(m.tool_results for m in after[:2]) or after[1].tool_calls
