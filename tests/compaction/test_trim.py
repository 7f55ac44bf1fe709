"""The trim strategy on built views: reasoning, markup, duplicates, injected copies, long and
old tool results — each shortened message a compaction of its own that the kernel's check
accepts, roles and call/result pairs kept, pinned and recent messages untouched, and every
shortened result citing the context_pull call that brings back the whole original."""

from __future__ import annotations

import json

from chatcli import Conversation, Message, Role
from chatcli_compaction import trim
from chatcli_compaction.markers import find_citation, find_cut, pull_call
from compaction_support import apply_checked, chat_turn, job, pairs_hold, tool_turn

BIG = "".join(f"line {n}: some output of the tool\n" for n in range(800))  # ~26,000 chars


def big(i: int) -> str:
    """A long tool output of its own (no copy of another)."""
    return "".join(f"line {n} of file {i}: some output of the tool\n" for n in range(800))


def _conversation(view: list[Message]) -> Conversation:
    conversation = Conversation()
    for message in view:
        conversation.append(message)
    return conversation


def _compact(conversation: Conversation, compactions: list) -> None:
    for compaction in compactions:
        conversation.compact(compaction)


def test_reasoning_blocks_leave_old_answers_and_calls_keep_their_results() -> None:
    view: list[Message] = []
    call = tool_turn(view, "read it", "read", "short output")
    view[1].parts.insert(0, Message.assistant(
        "<think>" + "let me consider this carefully. " * 20 + "</think>I will read it.").parts[0])
    chat_turn(view, "and?", "<reasoning>" + "more thinking " * 30 + "</reasoning>It is fine.")
    for i in range(3):
        chat_turn(view, f"recent {i}", f"<think>{'recent thinking ' * 20}</think>answer {i}")
    done = job(view, keep_recent=4)
    after = apply_checked(view, trim.run(done))
    assert pairs_hold(after)
    assert [m.role for m in after] == [m.role for m in view]
    assert after[1].text == "I will read it." and after[1].tool_calls == [call]
    assert after[5].text == "It is fine."
    # the four recent messages are untouched, reasoning and all
    assert after[-4:] == view[-4:]
    assert "<think>" in after[-1].text


def test_markup_in_tool_outputs_is_made_compact() -> None:
    xml = "<root>\n" + "".join(
        f"  <!-- item {i} -->\n  <item id=\"{i}\">\n    <name>n{i}</name>\n  </item>\n\n\n"
        for i in range(40)) + "</root>\n"
    view: list[Message] = []
    tool_turn(view, "fetch the feed", "fetch", xml)
    for i in range(3):
        chat_turn(view, f"q{i}", f"a{i}")
    after = apply_checked(view, trim.run(job(view, keep_recent=2, compaction={"age_after": 9})))
    content = after[2].tool_results[0].content
    assert "<!--" not in content and '<item id="3"><name>n3</name></item>' in content
    assert len(content) < len(xml) * 0.6


def test_a_message_identical_to_the_one_before_is_dropped() -> None:
    view: list[Message] = []
    chat_turn(view, "hello", "hi")
    view.append(Message.user("please look at the error"))
    view.append(Message.user("please look at the error"))
    view.append(Message.assistant("looking"))
    chat_turn(view, "thanks", "welcome")
    compactions = trim.run(job(view, keep_recent=2))
    assert len(compactions) == 1 and compactions[0].replacement == []
    after = apply_checked(view, compactions)
    assert [m.text for m in after].count("please look at the error") == 1


def test_an_injected_copy_leaves_the_newest_copy_and_a_note_that_names_it() -> None:
    context = "# Project notes\n" + "the build uses make; tests run with pytest.\n" * 100
    view: list[Message] = []
    chat_turn(view, context + "\nfirst question", "first answer")
    chat_turn(view, "an unrelated question", "an answer")
    chat_turn(view, context + "\nsecond question", "second answer")
    done = job(view, keep_recent=2)
    compactions = trim.run(done)
    after = apply_checked(view, compactions)
    assert after[4] is view[4]  # the newest copy stays whole
    note = after[0].text
    assert context not in note and note.endswith("\nfirst question")
    assert "come again in a later user message (“# Project notes”)" in note
    assert find_citation(note) == compactions[0].id


def test_tool_results_age_to_head_and_tail_then_one_line_citing_the_original() -> None:
    view: list[Message] = []
    calls = [tool_turn(view, f"step {i}", "read", big(i)) for i in range(10)]
    conversation = _conversation(view)
    config = {"age_after": 3, "age_one_line_after": 8, "tool_output_max": 100_000}
    done = job(conversation.view(), keep_recent=4, compaction=config)
    compactions = trim.run(done)
    _compact(conversation, compactions)
    shown = conversation.view()
    assert pairs_hold(shown)
    results = [m.tool_results[0] for m in shown if m.tool_results]
    assert [r.call_id for r in results] == [c.id for c in calls]
    # turn i has 9 - i user turns after it
    one_line, head_tail, whole = results[:2], results[2:7], results[7:]
    for result in one_line:
        assert "\n" not in result.content and result.content.startswith("[result of read")
        assert f"{len(big(0)):,} characters" in result.content  # how long it was
    for result in head_tail:
        cut = find_cut(result.content)
        assert cut is not None and result.content.startswith("line 0 of file ")
        assert len(result.content) < 2_000
        assert result.content.rstrip().endswith("line 799 of file "
                                                f"{results.index(result)}: some output of the tool")
    for number, result in enumerate((*one_line, *head_tail)):
        cited = find_citation(result.content)
        assert pull_call(cited) in result.content
        assert f'context_pull {json.dumps({"kind": "history", "id": cited})}' in result.content
        original = conversation.archived(cited)
        assert len(original) == 1 and original[0].tool_results[0].content == big(number)
    assert [r.content for r in whole] == [big(7), big(8), big(9)]  # still young

    # more turns later, the head-and-tail copies shrink to one line that still cites the
    # compaction holding the full original (not the head-and-tail copy)
    for i in range(4):
        conversation.append(Message.user(f"later {i}"))
        conversation.append(Message.assistant("ok"))
    _compact(conversation, trim.run(job(conversation.view(), keep_recent=4,
                                        compaction=config)))
    results = [m.tool_results[0] for m in conversation.view() if m.tool_results]
    for number, result in enumerate(results[:6]):  # turn i: 13 - i user turns after it
        assert "\n" not in result.content
        full = conversation.archived(find_citation(result.content))
        assert full[0].tool_results[0].content == big(number)


def test_a_long_result_is_cut_whatever_its_age_but_recent_and_pinned_ones_stay() -> None:
    view: list[Message] = []
    tool_turn(view, "run the tests", "exec", "x" * 20_000)
    tool_turn(view, "read the rules", "read", "y" * 20_000)
    view[-2].pinned = view[-3].pinned = True  # the rules' call and result are pinned
    tool_turn(view, "once more", "exec", "z" * 20_000)
    done = job(view, keep_recent=3)
    compactions = trim.run(done)
    assert [c.first for c in compactions] == [view[2].id]
    after = apply_checked(view, compactions)
    assert len(after[2].tool_results[0].content) < 2_000
    assert after[6] is view[6] and after[10] is view[10]


def test_trimming_again_changes_nothing_and_the_settings_can_turn_it_off() -> None:
    view: list[Message] = []
    for i in range(6):
        tool_turn(view, f"step {i}", "read", big(i))
    tool_turn(view, "again", "read", big(0))
    once = apply_checked(view, trim.run(job(view, keep_recent=4)))
    assert trim.run(job(once, keep_recent=4)) == []
    assert trim.run(job(view, keep_recent=4, compaction={"strategies": ["summarise"]})) == []


def test_roles_stay_and_user_turns_are_counted_without_tool_results() -> None:
    view: list[Message] = []
    tool_turn(view, "a", "read", "r")
    chat_turn(view, "b", "c")
    assert trim.user_turns_after(view) == [1, 1, 1, 1, 0, 0]
    assert all(m.role in (Role.USER, Role.ASSISTANT, Role.TOOL) for m in view)
