"""The summarise strategy on built views: the middle becomes one structured summary that cites
the call bringing the originals back, the recent messages stay verbatim, the cut never separates
a call from its results, pinned messages of the range follow the summary unchanged, a middle too
big for one call is summarised in pieces and combined, and a failure falls through to truncate."""

from __future__ import annotations

import pytest
from chatcli import (
    BadRequestError,
    ChatcliError,
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
)
from chatcli_compaction import plugin, summarise
from chatcli_compaction.markers import find_citation, pull_call
from chatcli_compaction.sections import SECTIONS
from chatcli_testing import Reply, ScriptedProvider, scripted_plugin
from compaction_support import (
    SUMMARY,
    Summariser,
    apply_checked,
    chat_turn,
    job,
    pairs_hold,
    tool_turn,
)


def _long_chat(turns: int, size: int = 300) -> list[Message]:
    view: list[Message] = []
    for i in range(turns):
        tool_turn(view, f"question {i} " + "q" * size, "read", f"content of src/app.py {i} "
                  + "c" * size, answer=f"answer {i} " + "a" * size)
    return view


def test_the_middle_becomes_one_summary_citing_the_originals_and_recent_stay_verbatim() -> None:
    view = _long_chat(6)
    summariser = Summariser()
    done = job(view, keep_recent=4, summarize=summariser, budget=2_000)
    (compaction,) = summarise.run(done)
    after = apply_checked(view, [compaction])
    assert pairs_hold(after)
    summary = after[0]
    assert summary.role == Role.USER and summarise.is_summary(summary)
    assert summary.text.startswith("[Summary of earlier conversation: 20 messages, from "
                                   "“question 0 qqq")
    assert summary.text.endswith(f"The original messages: {pull_call(compaction.id)}")
    assert find_citation(summary.text) == compaction.id
    for name in SECTIONS:  # the structure, in order
        assert f"## {name}" in summary.text
    assert [summary.text.index(f"## {n}") for n in SECTIONS] == sorted(
        summary.text.index(f"## {n}") for n in SECTIONS)
    assert "- pytest -q" in summary.text and "- src/app.py: the retry loop" in summary.text
    assert after[1:] == view[-4:]  # the recent messages, the same objects
    (given, instructions), = summariser.calls
    assert given == view[:-4]
    assert "exact" in instructions and "never invent" in instructions


def test_the_cut_moves_earlier_rather_than_separate_a_call_from_its_results() -> None:
    view = _long_chat(4)
    # keep_recent=2 would start the recent part at the last turn's tool results
    (compaction,) = summarise.run(job(view, keep_recent=2))
    after = apply_checked(view, [compaction])
    assert after[1] is view[-3] and after[1].tool_calls  # the call stays with its results
    assert after[1:] == view[-3:]
    assert pairs_hold(after)


def test_pinned_messages_of_the_range_follow_the_summary_unchanged() -> None:
    view = _long_chat(5)
    view[0].pinned = True  # leading pinned material stays first
    view[5].pinned = True  # a call in the middle: its results stay with it
    view[8].pinned = True
    (compaction,) = summarise.run(job(view, keep_recent=4))
    after = apply_checked(view, [compaction])
    assert after[0] is view[0]
    assert summarise.is_summary(after[1])
    assert after[2:5] == [view[5], view[6], view[8]]
    assert "3 pinned messages of that part follow unchanged" in after[1].text
    assert pairs_hold(after)


def test_the_instruction_steers_the_summary() -> None:
    summariser = Summariser()
    summarise.run(job(_long_chat(5), summarize=summariser, instruction="keep the API names",
                      reason="manual"))
    assert "The user asked this of the summary: keep the API names" in summariser.calls[0][1]


def test_a_middle_bigger_than_one_call_is_summarised_in_pieces_then_combined() -> None:
    view = _long_chat(30, size=1_500)  # ~36,000 tokens against a 4,000-token window
    summariser = Summariser(lambda messages: SUMMARY if "Partial summary" not in
                            messages[0].text else SUMMARY.replace("the tests pass", "combined"))
    done = job(view, keep_recent=4, summarize=summariser, context_window=4_000, budget=1_800)
    (compaction,) = summarise.run(done)
    limit = summarise.piece_limit(done, summarise.read_config({}))
    assert limit == 2_000
    pieces = [messages for messages, instructions in summariser.calls
              if "part " in instructions and "Partial" not in messages[0].text]
    assert len(pieces) >= 10
    for piece in pieces:
        rendered = Message.user("\n".join(m.text for m in piece))
        assert done.count(piece) <= limit * 1.5 or len(piece) == 1, rendered.id
    assert sum(len(p) for p in pieces) == len(view) - 4  # every message in exactly one piece
    assert [m for p in pieces for m in p] == view[:-4]
    combines = [m for m, i in summariser.calls if "Partial summary" in m[0].text]
    assert combines and "combined" in compaction.replacement[0].text


def test_a_failed_summary_falls_through_to_truncate() -> None:
    provider = ScriptedProvider()
    warnings: list[str] = []
    host = PluginHost(warn=warnings.append)
    host.register(scripted_plugin(provider), "scripted")
    host.register(plugin, "compaction")
    session = Session(host, Settings(provider="scripted", context_window=2_000,
                                     compact_keep_recent=4)).open()
    view = _long_chat(8)
    for message in view:
        session.conversation.append(message)
    provider.script(BadRequestError("the model is overloaded", provider="scripted"))
    report = session.compact()
    assert any("summarise failed: the model is overloaded" in n for n in report.notes)
    assert warnings and "summarise failed" in warnings[0]
    assert [c.strategy for c in report.compactions][-1] == "truncate"
    after = session.conversation.view()
    assert after[0].text.startswith("[Dropped to fit the context window: ")
    assert find_citation(after[0].text) == report.compactions[-1].id
    assert after[-4:] == view[-4:] and pairs_hold(after)
    assert report.tokens_after <= 1_000
    session.close()


def test_an_empty_answer_raises_and_invented_files_are_left_out() -> None:
    with pytest.raises(ChatcliError, match="empty summary"):
        summarise.run(job(_long_chat(5), summarize=Summariser("  ")))
    invented = SUMMARY.replace("- src/app.py\n", "- src/app.py\n- lib/ghost.py (never seen)\n")
    (compaction,) = summarise.run(job(_long_chat(5), summarize=Summariser(invented)))
    text = compaction.replacement[0].text
    assert "ghost.py" not in text and "- src/app.py" in text
    assert "(1 line naming files the messages never mention left out)" in text


def test_nothing_is_summarised_when_only_recent_and_pinned_messages_are_left() -> None:
    view: list[Message] = []
    chat_turn(view, "hi", "hello")
    chat_turn(view, "how are you", "fine")
    done = job(view, keep_recent=4)
    assert summarise.run(done) == []
    assert done.notes and "nothing to summarise" in done.notes[0]


def test_a_summary_no_shorter_than_the_messages_is_not_used() -> None:
    view: list[Message] = []
    for i in range(4):
        chat_turn(view, f"q{i}", f"a{i}")
    done = job(view, keep_recent=2, summarize=Summariser(SUMMARY * 3))
    assert summarise.run(done) == []
    assert "no shorter" in done.notes[-1]


def test_a_history_already_past_the_window_is_summarised_in_pieces_and_then_fits() -> None:
    from compaction_support import SummarisingProvider

    provider = SummarisingProvider(ScriptedProvider())
    host = PluginHost(warn=lambda line: pytest.fail(line))
    host.register(scripted_plugin(provider), "scripted")
    host.register(plugin, "compaction")
    session = Session(host, Settings(provider="scripted", context_window=4_000,
                                     compact_keep_recent=4)).open()
    for message in _long_chat(25, size=1_500):  # ~30,000 tokens: seven windows
        session.conversation.append(message)
    assert session.context_tokens() > 7 * 4_000
    provider.script(Reply(text="answered", usage={"input_tokens": 0, "output_tokens": 1}))
    finished = list(session.run(Message.user("where were we?")))[-1]
    assert finished.error is None and finished.text == "answered"
    assert len(provider.summary_calls) >= 3  # pieces, then the combining call
    assert any("Partial summary" in m.text for m in provider.summary_calls[-1].messages)
    request = provider.provider.requests[-1]
    assert request.messages[0].text.startswith("[Summary of earlier conversation")
    assert request.messages[-1].text == "where were we?"
    assert session.context_tokens() < 0.75 * 4_000
    session.close()
