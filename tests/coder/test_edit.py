"""edit and multiedit: exact replacement, the matching cascade (line endings, trailing
whitespace, indentation), errors quoting the closest lines, all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli_coder._common import AmbiguousMatch, NoMatch, ToolError
from chatcli_coder._matching import plan_edit, replace_text
from coder_support import Agent
from hypothesis import assume, given, settings
from hypothesis import strategies as st


def edited(agent, workspace, name: str, text: str, **edit) -> str:
    (workspace / name).write_bytes(text.encode())
    agent.ok("read", path=name)
    agent.ok("edit", path=name, **edit)
    return (workspace / name).read_bytes().decode()


# ------------------------------------------------------------------------------ through the engine


def test_exact_text_is_replaced_once_and_the_result_shows_the_new_lines(agent, workspace):
    (workspace / "a.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    agent.ok("read", path="a.py")
    text = agent.ok("edit", path="a.py", old="return 2", new="return 20")
    assert text.startswith("edited a.py (1 replacement, +1 −1); it now reads:")
    assert "     6\t    return 20" in text
    assert (workspace / "a.py").read_text().endswith("    return 20\n")


def test_text_found_several_times_needs_more_context_or_replace_all(agent, workspace):
    (workspace / "a.py").write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    agent.ok("read", path="a.py")
    error = agent.fails("edit", path="a.py", old="x = 1", new="x = 9")
    assert "AmbiguousMatch: old is found 3 times in 'a.py' (lines 1, 3, 4)" in error
    assert "replace_all" in error
    assert (workspace / "a.py").read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"
    done = agent.ok("edit", path="a.py", old="x = 1", new="x = 9", replace_all=True)
    assert "(3 replacements, +3 −3)" in done
    assert (workspace / "a.py").read_text() == "x = 9\ny = 2\nx = 9\nx = 9\n"


def test_old_written_with_lf_matches_a_crlf_file_which_stays_crlf(agent, workspace):
    result = edited(agent, workspace, "w.bat", "@echo off\r\nset A=1\r\nset B=2\r\n",
                    old="set A=1\nset B=2\n", new="set A=10\nset B=20\n")
    assert result == "@echo off\r\nset A=10\r\nset B=20\r\n"


def test_trailing_whitespace_is_ignored_when_nothing_matches_exactly(agent, workspace):
    (workspace / "a.py").write_text("if x:   \n    go()\t\nend\n")
    agent.ok("read", path="a.py")
    text = agent.ok("edit", path="a.py", old="if x:\n    go()\n", new="if y:\n    stop()\n")
    assert "found ignoring trailing whitespace" in text
    assert (workspace / "a.py").read_text() == "if y:\n    stop()\nend\n"


def test_a_block_given_with_other_indentation_is_found_and_new_is_reindented(agent, workspace):
    source = "class A:\n    def f(self):\n        if ok:\n            return 1\n        return 0\n"
    result = edited(agent, workspace, "a.py", source,
                    old="if ok:\n    return 1\nreturn 0\n",
                    new="if ok:\n    return 2\n\nreturn -1\n")
    assert result == ("class A:\n    def f(self):\n        if ok:\n            return 2\n\n"
                      "        return -1\n")
    # and the other way round: old indented more deeply than the file
    result = edited(agent, workspace, "b.py", "def f():\n    pass\n",
                    old="        def f():\n            pass\n",
                    new="        def f():\n            return 1\n")
    assert result == "def f():\n    return 1\n"


def test_no_match_quotes_the_closest_lines_on_one_line(agent, workspace):
    (workspace / "a.py").write_text(
        "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n")
    agent.ok("read", path="a.py")
    error = agent.fails("edit", path="a.py",
                        old="def load(path):\n    with open(path, 'rb') as f:\n",
                        new="def load(path):\n    with open(path, 'rt') as f:\n")
    assert "\n" not in error
    assert "NoMatch: old is not in 'a.py'" in error
    assert "the closest is lines 4-5" in error
    assert '"def load(path):\\n    with open(path) as f:"' in error
    whitespace = agent.fails("edit", path="a.py", old="def load(path):\n\twith open(path) as f:",
                             new="x")
    assert "the same but for whitespace" in whitespace


def test_edit_refuses_empty_or_unchanged_text_binary_and_missing_files(agent, workspace):
    (workspace / "a.txt").write_text("abc\n")
    (workspace / "b.bin").write_bytes(b"\x00\x01binary")
    (workspace / "c.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    agent.turn(("read", {"path": "a.txt"}), ("read", {"path": "c.txt"}))
    assert "old is empty" in agent.fails("edit", path="a.txt", old="", new="x")
    assert "nothing would change" in agent.fails("edit", path="a.txt", old="abc", new="abc")
    assert "BinaryFile" in agent.fails("edit", path="b.bin", old="binary", new="x")
    assert "not UTF-8 text" in agent.fails("edit", path="c.txt", old="caf", new="x")
    missing = agent.fails("edit", path="d.txt", old="a", new="b")
    assert "no file or folder 'd.txt'; to create a file use the write tool" in missing


def test_multiedit_applies_every_edit_in_order_across_files(agent, workspace):
    (workspace / "a.py").write_text("A = 1\nB = 2\n")
    (workspace / "b.py").write_text("from a import A\n")
    agent.turn(("read", {"path": "a.py"}), ("read", {"path": "b.py"}))
    text = agent.ok("multiedit", edits=[
        {"path": "a.py", "old": "A = 1", "new": "ALPHA = 1"},
        {"path": "a.py", "old": "ALPHA = 1\nB", "new": "ALPHA = 1\nBETA"},
        {"path": "b.py", "old": "import A", "new": "import ALPHA"},
    ])
    assert text == ("applied 3 edits: a.py (2 replacements, +2 −2), "
                    "b.py (1 replacement, +1 −1)")
    assert (workspace / "a.py").read_text() == "ALPHA = 1\nBETA = 2\n"
    assert (workspace / "b.py").read_text() == "from a import ALPHA\n"


def test_multiedit_changes_nothing_when_one_edit_fails(agent, workspace):
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("B = 2\n")
    agent.turn(("read", {"path": "a.py"}), ("read", {"path": "b.py"}))
    error = agent.fails("multiedit", edits=[
        {"path": "a.py", "old": "A = 1", "new": "A = 10"},
        {"path": "b.py", "old": "C = 3", "new": "C = 30"},
    ])
    assert error.startswith("multiedit failed: NoMatch: edit 2 of 2:")
    assert "no file was changed" in error
    assert (workspace / "a.py").read_text() == "A = 1\n"
    assert (workspace / "b.py").read_text() == "B = 2\n"


def test_multiedit_restores_every_file_when_a_write_fails(workspace):
    class FailingSecondWrite:
        """The disk, but its second write fails."""

        def __init__(self) -> None:
            self.calls: list[str] = []

        def read_text(self, path: Path) -> str:
            return path.read_bytes().decode()

        def write_text(self, path: Path, text: str) -> None:
            self.calls.append(path.name)
            if len(self.calls) == 2:
                raise OSError("no space left on device")
            path.write_bytes(text.encode())

    agent = Agent(workspace, files=FailingSecondWrite())
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("B = 2\n")
    agent.turn(("read", {"path": "a.py"}), ("read", {"path": "b.py"}))
    error = agent.fails("multiedit", edits=[
        {"path": "a.py", "old": "A = 1", "new": "A = 10"},
        {"path": "b.py", "old": "B = 2", "new": "B = 20"},
    ])
    assert "no space left on device" in error
    assert (workspace / "a.py").read_text() == "A = 1\n"  # put back
    assert (workspace / "b.py").read_text() == "B = 2\n"


# ------------------------------------------------------------------------------ properties

_CHARS = st.sampled_from([*list("ab x=():\t "), "\r", "\n", "é"])
_WORD = st.text(alphabet="abcxyz=():", min_size=1, max_size=6)
_LINE = st.builds(lambda lead, word, rest: lead + word + rest,
                  st.sampled_from(["", " ", "  ", "    ", "\t"]), _WORD,
                  st.text(alphabet="ab=() ", max_size=6).map(str.rstrip))


@settings(max_examples=300, deadline=None)
@given(text=st.text(_CHARS, max_size=60), old=st.text(_CHARS, max_size=20),
       new=st.text(_CHARS, max_size=20), replace_all=st.booleans())
def test_the_cascade_never_raises_anything_but_a_tool_error(text, old, new, replace_all):
    try:
        spans, _how = plan_edit(text, old, new, replace_all)
    except ToolError as err:
        assert "\n" not in str(err)
        return
    result = replace_text(text, spans)
    assert isinstance(result, str)
    assert spans


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=12), data=st.data(),
       new=st.text(_CHARS, max_size=30))
def test_an_exact_unique_edit_changes_exactly_that_text(lines, data, new):
    text = "".join(line + "\n" for line in lines)
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    old = text[start:end]
    assume(text.find(old, text.find(old) + 1) < 0 and old != new)  # once, overlaps included
    spans, how = plan_edit(text, old, new)
    assert how == "exact"
    assert replace_text(text, spans) == text[:start] + new + text[end:]


def _expected_block(lines: list[str], first: int, count: int, new_lines: list[str],
                    eol: str = "\n") -> str:
    return eol.join(lines[:first] + new_lines + lines[first + count:]) + eol


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=10), data=st.data(),
       new_lines=st.lists(_LINE, min_size=1, max_size=4))
def test_trailing_whitespace_differences_still_find_the_one_block(lines, data, new_lines):
    first = data.draw(st.integers(0, len(lines) - 1))
    count = data.draw(st.integers(1, len(lines) - first))
    padded = [line + data.draw(st.sampled_from(["", " ", "\t", "  "])) for line in lines]
    text = "".join(line + "\n" for line in padded)
    old = "".join(line + "\n" for line in lines[first:first + count])
    new = "".join(line + "\n" for line in new_lines)
    assume(old not in text and old != new)
    windows = [i for i in range(len(lines) - count + 1)
               if [x.rstrip() for x in padded[i:i + count]] ==
               [x.rstrip() for x in lines[first:first + count]]]
    assume(windows == [first])
    spans, how = plan_edit(text, old, new)
    assert how == "ignoring trailing whitespace"
    assert replace_text(text, spans) == _expected_block(padded, first, count, new_lines)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=10), data=st.data(),
       new_lines=st.lists(_LINE, min_size=1, max_size=4),
       prefix=st.sampled_from(["  ", "    ", "\t", "        "]), deeper=st.booleans())
def test_a_block_shifted_by_one_indentation_is_found_and_new_shifted_alike(
        lines, data, new_lines, prefix, deeper):
    first = data.draw(st.integers(0, len(lines) - 1))
    count = data.draw(st.integers(1, len(lines) - first))
    block = lines[first:first + count]
    if deeper:  # the file is indented more than old: new gains the prefix
        file_block = [prefix + line for line in block]
        old_block = block
        expected_new = [prefix + line for line in new_lines]
    else:  # old is indented more than the file: new loses it
        file_block = block
        old_block = [prefix + line for line in block]
        expected_new = new_lines
        new_lines = [prefix + line for line in new_lines]
    file_lines = lines[:first] + file_block + lines[first + count:]
    text = "".join(line + "\n" for line in file_lines)
    old = "".join(line + "\n" for line in old_block)
    new = "".join(line + "\n" for line in new_lines)
    assume(old not in text and old != new)
    assume(not any(
        [x.rstrip() for x in file_lines[i:i + count]] == [x.rstrip() for x in old_block]
        for i in range(len(file_lines) - count + 1)))
    candidates = [i for i in range(len(file_lines) - count + 1)
                  if [x.strip() for x in file_lines[i:i + count]] == [x.strip() for x in block]]
    assume(candidates == [first])
    spans, how = plan_edit(text, old, new)
    assert how == "adjusting the indentation"
    assert replace_text(text, spans) == _expected_block(file_lines, first, len(file_block),
                                                        expected_new)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(_LINE, min_size=2, max_size=10), data=st.data(),
       new_lines=st.lists(_LINE, min_size=1, max_size=4))
def test_lf_edits_of_crlf_files_keep_crlf(lines, data, new_lines):
    first = data.draw(st.integers(0, len(lines) - 2))
    count = data.draw(st.integers(2, len(lines) - first))
    text = "".join(line + "\r\n" for line in lines)
    old = "".join(line + "\n" for line in lines[first:first + count])
    new = "".join(line + "\n" for line in new_lines)
    crlf_old = old.replace("\n", "\r\n")
    places = [i for i in range(len(text)) if text.startswith(crlf_old, i)]  # overlapping too
    assume(len(places) == 1 and old != new)
    spans, how = plan_edit(text, old, new)
    assert how == "line endings"
    assert replace_text(text, spans) == _expected_block(lines, first, count, new_lines, "\r\n")


def test_errors_are_the_documented_kinds():
    with pytest.raises(AmbiguousMatch):
        plan_edit("a\na\n", "a", "b")
    with pytest.raises(NoMatch):
        plan_edit("a\n", "zzz", "b")
