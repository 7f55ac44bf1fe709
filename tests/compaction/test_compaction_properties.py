"""Property tests (hypothesis) for what compaction parses and rewrites: the pull citations and
head-and-tail notes it reads back, the reasoning and markup scanners, the summary's sections and
the search for injected copies. None of them raises on any text; each round-trips what it
writes."""

from __future__ import annotations

import re

from chatcli_compaction.copies import Text, later_copies, shared_block
from chatcli_compaction.markers import (
    find_citation,
    find_cut,
    head_and_tail,
    is_one_line,
    note,
    one_line,
    pull_call,
)
from chatcli_compaction.sections import SECTIONS, parse_summary, paths_in
from chatcli_compaction.text import compact_markup, strip_reasoning
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

ids = st.text("0123456789abcdef", min_size=1, max_size=16).map(lambda s: "cmp_" + s)
#: text with plenty of the characters the parsers look for
noisy = st.lists(st.sampled_from([
    *"ab <>/{}[]\":,.…\n\t#*-_", "context_pull ", "[… ", "characters cut; the full text: ",
    '{"kind": "history"', '"id": ',
    '"cmp_1"}', "<think>", "</think>", "<!--", "-->", "## Files read\n", "- none\n", "İ",
    "\r\n", "src/app.py"]), max_size=60).map("".join)
anything = st.one_of(st.text(max_size=300), noisy)
plain = st.text(st.characters(blacklist_characters="<>"), max_size=80)

settings.register_profile("compaction", deadline=None, max_examples=300)
settings.load_profile("compaction")


@given(anything)
def test_the_readers_never_raise(text: str) -> None:
    find_citation(text)
    find_cut(text)
    is_one_line(text)
    strip_reasoning(text)
    compact_markup(text)
    parse_summary(text).render()
    paths_in(text)


@given(anything, anything, ids)
def test_a_citation_is_found_wherever_it_stands(before: str, after: str, cid: str) -> None:
    assume(find_citation(after) is None)
    assert find_citation(before + pull_call(cid) + after) == cid


@given(anything, st.integers(200, 2_000), ids)
def test_head_and_tail_keeps_both_ends_and_its_note_reads_back(text: str, keep: int,
                                                              cid: str) -> None:
    assume(find_cut(text) is None)
    text = text * (1 + 3 * keep // max(len(text), 1)) if text else "x" * (keep * 2)
    cut = head_and_tail(text, keep, cid)
    if len(text) <= keep:
        assert cut == text
        return
    found = find_cut(cut)
    assert found is not None and found.compaction_id == cid
    head, _, tail = cut.partition(f"\n{note(found.chars, cid)}\n")
    assert text.startswith(head) and text.endswith(tail)
    assert found.chars == len(text) - len(head) - len(tail)
    assert len(cut) <= keep + 200


@given(st.sampled_from(["read", "exec", "search"]), anything, st.integers(0, 10**7),
       st.integers(0, 999), ids)
def test_one_line_is_one_line_that_cites_its_compaction(tool: str, text: str, chars: int,
                                                        turns: int, cid: str) -> None:
    line = one_line(tool, text, chars, turns, cid)
    assert "\n" not in line and "\r" not in line
    assert is_one_line(line) and find_citation(line) == cid


@given(plain, plain, plain, st.sampled_from(["think", "thinking", "reasoning", "THINK"]))
def test_closed_reasoning_blocks_go_and_the_rest_stays(before: str, body: str, after: str,
                                                       tag: str) -> None:
    text = f"{before}<{tag}>{body}</{tag}>{after}"
    stripped = strip_reasoning(text)
    assert f"<{tag}>" not in stripped
    assert " ".join(stripped.split()) == " ".join((before + after).split())


@given(plain)
def test_text_without_tags_is_left_alone(text: str) -> None:
    assert strip_reasoning(text) == text
    assert compact_markup(text) == text


names = st.text("abcxyz", min_size=1, max_size=5)
values = st.text("abc 123", max_size=10)


@st.composite
def markup(draw: st.DrawFn) -> str:
    space = st.sampled_from(["", " ", "\n", "\n\n  ", "\t"])
    out = []
    for _ in range(draw(st.integers(10, 30))):
        name = draw(names)
        out.append(f"{draw(space)}<{name}>{draw(values)}</{name}>{draw(space)}")
    return "<root>" + "".join(out) + "</root>"


@given(markup())
def test_compacting_markup_keeps_every_tag_and_never_grows(text: str) -> None:
    compact = compact_markup(text)
    assert re.findall(r"<[^>]*>", compact) == re.findall(r"<[^>]*>", text)
    assert len(compact) <= len(text)


@given(anything)
def test_a_summary_reads_back_to_the_same_normal_form(text: str) -> None:
    once = parse_summary(text).render()
    assert parse_summary(once).render() == once
    positions = [once.find(f"## {name}") for name in SECTIONS]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)


@given(anything, anything)
def test_a_shared_block_is_one_the_other_text_holds(text: str, other: str) -> None:
    found = shared_block(Text(("a", 0), text, "a"), Text(("b", 0), other, "b"), 5)
    if found is not None:
        start, end = found
        assert end - start >= 5 and text[start:end].rstrip("\r\n") in other


@given(plain, plain, plain, plain)
@example("\r", "", "", "")  # a line break of another kind just before the block
def test_a_block_that_comes_again_is_found_in_the_earlier_text(a: str, b: str, c: str,
                                                               d: str) -> None:
    block = "".join(f"line {n} of the attached file\n" for n in range(40))
    earlier = f"{a}\n{block}{b}"
    later = f"{c}\n{block}{d}"
    found = later_copies([Text(("m1", 0), earlier, "first"), Text(("m2", 0), later, "second")],
                         500)
    assert ("m2", 0) not in found  # the newest copy stays
    copy = found[("m1", 0)]
    assert copy.where == "second" and block.rstrip("\n") in earlier[copy.start:copy.end]
