"""``chatcli_render.diff`` (made, read back, folded, coloured) and what the chat's approval
prints with it (``chatcli_repl.approval_view``): unit tests, and Hypothesis for the reader, which
takes any text."""

from __future__ import annotations

import difflib
import io

from chatcli_render.diff import (
    MINUS,
    FileStat,
    classify,
    fold,
    plus_minus,
    render,
    stat_lines,
    stats,
    unified,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

# ------------------------------------------------------------------------ made and read back


def test_a_change_reads_back_as_its_counts() -> None:
    diff = unified("a\nb\nc\n", "a\nB\nc\nd\n", "x.py")
    assert diff == "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
    assert stats(diff) == [FileStat("x.py", 2, 1)]


def test_added_deleted_renamed_and_unchanged_files() -> None:
    assert unified(None, "new\n", "n.txt").startswith("--- /dev/null\n+++ b/n.txt\n")
    assert stats(unified(None, "new\n", "n.txt")) == [FileStat("n.txt", 1, 0)]
    gone = unified("old\nolder\n", None, "o.txt")
    assert gone.startswith("--- a/o.txt\n+++ /dev/null\n")
    assert stats(gone) == [FileStat("o.txt", 0, 2)]  # named by its old path
    assert unified("same\n", "same\n", "s.txt") == ""
    assert unified("same\n", "same\n", "s.txt", "t.txt") == "rename from s.txt\nrename to t.txt\n"
    moved = unified("a\n", "b\n", "s.txt", "t.txt")
    assert moved.startswith("--- a/s.txt\n+++ b/t.txt\n")


def test_a_missing_final_newline_is_marked_and_not_counted() -> None:
    diff = unified("a\nb", "a\nb\n", "f")
    assert "\\ No newline at end of file" in diff
    assert stats(diff) == [FileStat("f", 1, 1)]


#: Removed and added lines that look like file or hunk headers, or notes, inside a hunk.
HEADER_LOOKALIKES = [
    ("-- x\n", "++ y\n"),          # "--- x" / "+++ y" inside the hunk
    ("@@ -1 +1 @@\n", "ok\n"),     # a line that reads like a hunk header
    ("\\ note\n", "\\ other\n"),   # like a "\ No newline" note
    ("--- a/f\n+++ b/f\n", ""),    # a whole fake header removed
]


def test_lines_that_look_like_headers_count_as_lines() -> None:
    for before, after in HEADER_LOOKALIKES:
        diff = unified("keep\n" + before, "keep\n" + after, "f")
        want = FileStat("f", after.count("\n"), before.count("\n"))
        assert stats(diff) == [want], (before, after, diff)


def test_git_output_with_several_files_and_metadata() -> None:
    diff = ("diff --git a/a.py b/a.py\nindex 1..2 100644\n--- a/a.py\n+++ b/a.py\n"
            "@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
            "diff --git a/b.bin b/b.bin\nBinary files a/b.bin and b/b.bin differ\n"
            "diff --git a/c.txt b/c.txt\nnew file mode 100644\n--- /dev/null\n+++ b/c.txt\t\n"
            "@@ -0,0 +1 @@\n+hi\n")
    assert stats(diff) == [FileStat("a.py", 1, 1), FileStat("c.txt", 1, 0)]


def test_the_stat_lines_and_the_minus_sign() -> None:
    assert plus_minus(4, 1) == f"+4 {MINUS}1" and MINUS == "\u2212"
    assert stat_lines([FileStat("calc.py", 4, 1), FileStat("NOTES.txt", 1, 0)]) == [
        f"calc.py   | +4 {MINUS}1", f"NOTES.txt | +1 {MINUS}0",
        f"2 files changed, +5 {MINUS}1"]
    assert stat_lines([FileStat("a", 0, 3)]) == ["a | +0 \u22123", f"1 file changed, +0 {MINUS}3"]
    assert stat_lines([]) == []


lines = st.lists(st.sampled_from(["a", "b", "c", "", "--- x", "+++ y", "@@ -1 +1 @@", "-", "+",
                                  "\\ z", " d", "é"]), max_size=12)


def _text(parts: list[str], newline: bool) -> str:
    text = "\n".join(parts)
    return text + "\n" if newline and parts else text


def _count(text: str) -> int:
    return len(text.split("\n")) - (text.endswith("\n") or not text)


@settings(max_examples=300, deadline=None)
@given(lines, lines, st.booleans(), st.booleans())
def test_counts_read_back_balance_the_line_counts(before: list[str], after: list[str],
                                                  end_a: bool, end_b: bool) -> None:
    old, new = _text(before, end_a), _text(after, end_b)
    diff = unified(old, new, "f")
    found = stats(diff)
    if old == new:
        assert diff == "" and found == []
        return
    (stat,) = found
    assert stat.added - stat.removed == _count(new) - _count(old), diff
    assert 0 < stat.added + stat.removed <= _count(new) + _count(old), diff
    # what the diff shows is what was counted
    kinds = [kind for kind, _ in classify(diff)]
    assert (kinds.count("add"), kinds.count("del")) == (stat.added, stat.removed)


def test_small_diffs_are_difflibs_own() -> None:
    for before, after in [("a\nb\nc\n", "a\nc\nb\n"), ("x\ny\n", "y\nx\ny\n"),
                          ("1\n2\n3\n4\n", "1\n3\n2\n4\n")]:
        ours = unified(before, after, "f")
        theirs = "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                              "a/f", "b/f"))
        assert ours == theirs


def test_a_large_file_with_scattered_edits_is_diffed_quickly() -> None:
    """difflib alone takes minutes here (100,000 distinct lines, 2,000 of them changed)."""
    import random
    import time

    rng = random.Random(7)
    old = [f"line {rng.randrange(10**9)}\n" for _ in range(100_000)]
    new = list(old)
    for i in range(0, len(new), 50):
        new[i] = f"changed {i}\n"
    start = time.perf_counter()
    diff = unified("".join(old), "".join(new), "big.txt")
    assert time.perf_counter() - start < 10
    assert stats(diff) == [FileStat("big.txt", 2_000, 2_000)]


@settings(max_examples=300, deadline=None)
@given(lines, lines, st.booleans(), st.booleans())
def test_the_full_context_diff_holds_both_texts(before: list[str], after: list[str],
                                                end_a: bool, end_b: bool) -> None:
    old, new = _text(before, end_a), _text(after, end_b)
    diff = unified(old, new, "f", context=10_000)
    if old == new:
        return
    sides: dict[str, list[str]] = {"old": [], "new": []}
    last = ""
    for kind, line in classify(diff):
        if kind == "context":
            sides["old"].append(line[1:] + "\n")
            sides["new"].append(line[1:] + "\n")
        elif kind == "del":
            sides["old"].append(line[1:] + "\n")
        elif kind == "add":
            sides["new"].append(line[1:] + "\n")
        elif kind == "note":  # the line before it has no line end
            for side in (("old", "new") if last == "context" else
                         ("old",) if last == "del" else ("new",)):
                sides[side][-1] = sides[side][-1][:-1]
        last = kind
    assert "".join(sides["old"]) == old and "".join(sides["new"]) == new, diff


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "", "}"]), max_size=30),
       st.lists(st.sampled_from(["a", "b", "c", "e", "", "}"]), max_size=30))
def test_the_anchored_diff_of_long_changes_holds_both_texts(before: list[str],
                                                            after: list[str]) -> None:
    """With every changed part treated as long (the anchoring on unique lines, recursive)."""
    from chatcli_render import diff as module

    saved, module._DIRECT = module._DIRECT, 1
    try:
        old, new = _text(before, True), _text(after, True)
        diff = unified(old, new, "f", context=10_000)
    finally:
        module._DIRECT = saved
    if old == new:
        assert diff == ""
        return
    kept_old = [line[1:] for kind, line in classify(diff) if kind in ("context", "del")]
    kept_new = [line[1:] for kind, line in classify(diff) if kind in ("context", "add")]
    assert kept_old == before and kept_new == after, diff


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_read_without_failing(text: str) -> None:
    kinds = list(classify(text))
    assert len(kinds) == _count(text)
    for stat in stats(text):
        assert stat.added >= 0 and stat.removed >= 0
    assert len(stats(text)) <= text.count("\n+++ ") + text.startswith("+++ ")
    _shown, hidden = fold(text, 5)
    assert hidden == max(_count(text) - 5, 0)
    render(text)


# ------------------------------------------------------------------------ folded and coloured


def test_fold_keeps_the_head_and_counts_the_rest() -> None:
    text = "".join(f"{n}\n" for n in range(10))
    assert fold(text, 4) == ("0\n1\n2\n3", 6)
    assert fold(text, 10) == (text.rstrip("\n"), 0)


def _ansi(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="standard", width=100).print(renderable)
    return out.getvalue()


def test_render_colours_each_kind_as_the_whole_diff_reads() -> None:
    diff = unified("keep\n-- old\n", "keep\n++ new\n", "f")
    shown = _ansi(render(diff))
    assert "\x1b[32m+++ new" in shown and "\x1b[31m--- old" in shown  # lines, not headers
    assert "\x1b[1m--- a/f" in shown and "\x1b[36m@@ -1,2 +1,2 @@" in shown
    tail = _ansi(render(diff, start=4))  # the rest of a folded diff keeps its colours
    assert "\x1b[31m--- old" in tail and "a/f" not in tail


# ------------------------------------------------------------------------ the approval's view


def _describe(arguments: dict[str, object], preview: str | None, height: int = 30
              ) -> tuple[object, str]:
    from chatcli_repl.approval_view import describe

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=100,
                      height=height)
    return describe(console, "tool", arguments, preview), out.getvalue()


def test_the_approval_names_the_file_and_counts_and_folds_a_long_diff() -> None:
    shown, printed = _describe({"path": "calc.py"}, unified("a\n", "b\n", "calc.py"))
    assert shown.brief == f"tool(calc.py +1 {MINUS}1)" and shown.hidden == 0
    assert "\x1b[32m+b" in printed
    long = unified(None, "".join(f"{n}\n" for n in range(100)), "big.txt")
    shown, printed = _describe({}, long, height=30)
    assert shown.brief == f"tool(big.txt +100 {MINUS}0)"
    assert shown.hidden == 103 - 16 and "+15\n" not in printed and "87 more diff lines" in printed
    two = unified("a\n", "b\n", "x") + unified(None, "c\n", "y")
    assert _describe({}, two)[0].brief == f"tool(2 files +2 {MINUS}1)"


#: Arguments shown to the person: (arguments, the title's part, text printed above it).
ARGUMENTS = [
    ({"text": "a"}, "tool(text='a')", None),
    ({"command": "echo " + "x" * 120}, "tool(the command above)", "$ echo " + "x" * 120),
    ({"command": "ls\nrm -rf build"}, "tool(the command above)", "$ ls\nrm -rf build"),
    ({"command": "echo " + "y" * 80, "timeout": 5}, "tool(the command above)", "timeout=5"),
    ({"query": "q" * 100}, "tool(the arguments above)", "query: " + "q" * 100),
]


def test_arguments_are_shown_whole_never_cut() -> None:
    for arguments, brief, above in ARGUMENTS:
        shown, printed = _describe(arguments, None)
        assert shown.brief == brief, arguments
        flat = "".join(printed.split("\n")) if above and "\n" not in above else printed
        assert above is None or above in flat, (arguments, printed)
        assert "…" not in printed and "…" not in shown.brief


#: Key-shaped text in what the approval shows (a diff, a command) is never printed.
KEY = "sk-ant-api03-" + "K" * 40
SECRETS = [
    ({}, unified(None, f"KEY = '{KEY}'\n", "settings.py")),
    ({"command": f"curl -H 'x-api-key: {KEY}' https://example.com/" + "p" * 40}, None),
]


def test_keys_are_redacted_in_what_the_approval_shows() -> None:
    for arguments, preview in SECRETS:
        shown, printed = _describe(arguments, preview)
        assert KEY not in printed and "K" * 20 not in printed, printed
        assert KEY not in shown.brief
