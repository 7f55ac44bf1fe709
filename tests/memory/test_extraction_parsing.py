"""Parsing the extraction model's answer: any text gives an extraction or an
ExtractionError, never another exception; a well-formed object survives fences, prose around
it and key spellings; the wrong shapes are skipped and counted (Hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chatcli_memory.extraction import Extraction, ExtractionError, Fact, parse_extraction
from hypothesis import given, settings
from hypothesis import strategies as st

_LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40
                ).filter(lambda t: t.strip())
_FACT = st.fixed_dictionaries({"text": _LINE}, optional={
    "category": _LINE, "subject": _LINE, "scope": st.sampled_from(["project", "global"]),
    "correction": st.booleans()})
_ANSWER = st.fixed_dictionaries({}, optional={
    "daily": st.lists(_LINE, max_size=4), "long_term": st.lists(_FACT, max_size=4),
    "profile": st.fixed_dictionaries({}, optional={
        "name": _LINE, "role": _LINE, "preferences": st.lists(_LINE, max_size=3),
        "directives": st.lists(_LINE, max_size=3)}),
    "topics": st.lists(_LINE, max_size=4), "projects": st.lists(_LINE, max_size=4)})
_JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                        lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                        max_leaves=20)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _expected(answer: dict[str, Any]) -> Extraction:
    def texts(values: list[str]) -> list[str]:
        out: list[str] = []
        for value in values:
            if _norm(value) not in out:
                out.append(_norm(value))
        return out

    profile = answer.get("profile", {})
    return Extraction(
        daily=texts(answer.get("daily", [])),
        long_term=[Fact(text=_norm(f["text"]), category=_norm(f.get("category", "")),
                        subject=_norm(f.get("subject", "")),
                        scope=f.get("scope", "project"), correction=f.get("correction", False))
                   for f in answer.get("long_term", [])],
        name=_norm(profile.get("name", "")), role=_norm(profile.get("role", "")),
        preferences=texts(profile.get("preferences", [])),
        directives=texts(profile.get("directives", [])),
        topics=texts(answer.get("topics", [])), projects=texts(answer.get("projects", [])))


@settings(max_examples=300, deadline=None)
@given(answer=_ANSWER, wrapper=st.sampled_from([
    "{}", "```json\n{}\n```", "Here is the memory:\n{}\nThat is all.", "```\n{}\n```",
    "  {}  "]))
def test_well_formed_answers_round_trip(answer: dict[str, Any], wrapper: str) -> None:
    text = wrapper.replace("{}", json.dumps(answer, ensure_ascii=False))
    assert parse_extraction(text) == _expected(answer)


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=300))
def test_any_text_parses_or_is_an_extraction_error(text: str) -> None:
    try:
        result = parse_extraction(text)
    except ExtractionError:
        return
    assert isinstance(result, Extraction)


@settings(max_examples=300, deadline=None)
@given(value=_JSONISH)
def test_any_json_value_parses_or_is_an_extraction_error(value: Any) -> None:
    try:
        result = parse_extraction(json.dumps(value))
    except ExtractionError:
        assert not isinstance(value, dict) and value not in (None, [])
        return
    assert isinstance(result, Extraction)
    if isinstance(value, dict):
        assert all(isinstance(f.text, str) and f.text for f in result.long_term)


@pytest.mark.parametrize("text", ["", "   ", "nothing new", "NONE.", "{}", "null", "[]",
                                  "No new memories."])
def test_nothing_new(text: str) -> None:
    assert parse_extraction(text).empty


@pytest.mark.parametrize(("text", "reason"), [
    ("I could not find anything.", "the answer holds no JSON object"),
    ('{"long_term": [', "the answer holds no JSON object"),
    ("[1, 2]", "the answer is JSON but not an object"),
    ('"text"', "the answer is JSON but not an object"),
])
def test_malformed(text: str, reason: str) -> None:
    with pytest.raises(ExtractionError, match=reason):
        parse_extraction(text)


def test_spellings_and_shapes_are_tolerated() -> None:
    parsed = parse_extraction(json.dumps({
        "LONGTERM": ["a bare string fact", {"fact": "a fact key", "supersedes": "mem_1"}],
        "Profile_Update": {"Name": "Ada", "preference": "tabs"}, "DAILY": "one note",
        "topics": [{"name": "sqlite"}, 3, "sqlite"], "projects": None}))
    assert [f.text for f in parsed.long_term] == ["a bare string fact", "a fact key"]
    assert parsed.long_term[1].supersedes == "mem_1"
    assert (parsed.name, parsed.preferences, parsed.daily) == ("Ada", ["tabs"], ["one note"])
    assert parsed.topics == ["sqlite"] and parsed.skipped == 1
