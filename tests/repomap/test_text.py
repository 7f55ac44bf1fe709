"""Everything the map and the environment quote from a repository, for any text: one line,
no control characters, bounded; git's status output for any bytes; mentions; the budget."""

from __future__ import annotations

import json

from chatcli_repomap.build import mentioned_files
from chatcli_repomap.environment import parse_status
from chatcli_repomap.render import render
from chatcli_repomap.tags import extract
from chatcli_repomap.text import clean_line, shown_path
from hypothesis import given, settings
from hypothesis import strategies as st

ANY = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)


def _one_line(text: str) -> bool:
    return all(c.isprintable() for c in text)


@settings(max_examples=200, deadline=None)
@given(ANY, st.integers(2, 200))
def test_clean_line_is_one_printable_bounded_line(text: str, limit: int) -> None:
    line = clean_line(text, limit)
    assert _one_line(line) and len(line) <= limit


@settings(max_examples=200, deadline=None)
@given(ANY)
def test_a_shown_path_is_one_line_and_names_the_file_exactly(path: str) -> None:
    shown = shown_path(path)
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    if shown != path:
        assert json.loads(shown) == path


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_status_output_parses(raw: bytes) -> None:
    state = parse_status(raw)
    assert min(state.staged, state.modified, state.untracked, state.conflicted) >= 0
    assert len(state.names) <= 4
    for name in (state.branch, state.tracking, *state.names):
        assert "\n" not in name and "\x1b" not in name


def test_status_output_is_read_as_git_writes_it() -> None:
    raw = (b"## main...origin/main [ahead 2, behind 1]\0 M a.py\0M  b.py\0MM c.py\0"
           b"R  new.py\0old.py\0?? n.txt\0UU conflict.py\0")
    state = parse_status(raw)
    assert (state.branch, state.tracking) == ("main", "ahead 2, behind 1")
    assert (state.staged, state.modified, state.untracked, state.conflicted) == (3, 2, 1, 1)
    assert state.names[0] == "conflict.py" and "old.py" not in state.names
    assert parse_status(b"## No commits yet on trunk\0").branch == "trunk (no commits yet)"
    assert parse_status(b"## HEAD (no branch)\0").branch == "(detached HEAD)"


FILES = ["app/models.py", "app/views.py", "web/models.py", "README.md", "deep/x/unique.rs"]


@settings(max_examples=200, deadline=None)
@given(ANY)
def test_mentions_are_files_of_the_project(text: str) -> None:
    assert set(mentioned_files([text], FILES)) <= set(FILES)


def test_mentions_by_path_and_by_a_unique_name() -> None:
    found = mentioned_files(["fix ./app/views.py, then unique.rs; models.py is ambiguous"],
                            FILES)
    assert found == ["app/views.py", "deep/x/unique.rs"]


RANKED = st.lists(st.tuples(st.sampled_from(["a.py", "b/c.py", "d\ne.py"]), st.just("n"),
                            st.integers(0, 500), ANY), max_size=40)


@settings(max_examples=100, deadline=None)
@given(RANKED, st.integers(0, 2000))
def test_the_map_keeps_to_its_budget(ranked, budget: int) -> None:
    text, files, defs = render(ranked, budget)
    assert len(text) <= budget
    assert files <= 3 and defs <= len(ranked)
    whole, _, _ = render(ranked, None)
    assert len(whole.splitlines()) == files_of(whole) + len({(f, r) for f, _, r, _ in ranked})


def files_of(text: str) -> int:
    return sum(1 for line in text.splitlines() if not line.startswith(" "))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=600), st.sampled_from(["python", "javascript", "tsx", "go", "c"]))
def test_any_bytes_parse_without_failing(source: bytes, language: str) -> None:
    tags = extract(source, language)
    assert tags is not None
    assert all(isinstance(name, str) and name for name, *_ in tags.defs)
