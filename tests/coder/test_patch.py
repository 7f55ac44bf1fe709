"""apply_patch: unified diffs and the Begin Patch format, adds, deletes, renames, the matching
cascade, all or nothing; the parser never raises anything but PatchError and applies a
generated diff exactly."""

from __future__ import annotations

import difflib

from chatcli_coder._common import PatchError
from chatcli_coder._patch import apply_hunks, parse_patch
from hypothesis import assume, given, settings
from hypothesis import strategies as st


def read_all(agent, *names):
    agent.turn(*[("read", {"path": name}) for name in names])


def test_a_git_diff_updates_adds_and_deletes_files(agent, workspace):
    (workspace / "app.py").write_text("def main():\n    print('hi')\n    return 0\n")
    (workspace / "old.txt").write_text("bye\n")
    read_all(agent, "app.py", "old.txt")
    patch = (
        "diff --git a/app.py b/app.py\n"
        "index 1111111..2222222 100644\n"
        "--- a/app.py\n"
        "+++ b/app.py\n"
        "@@ -1,3 +1,4 @@\n"
        " def main():\n"
        "-    print('hi')\n"
        "+    print('hello')\n"
        "+    print('world')\n"
        "     return 0\n"
        "diff --git a/new/mod.py b/new/mod.py\n"
        "new file mode 100644\n"
        "--- /dev/null\n"
        "+++ b/new/mod.py\n"
        "@@ -0,0 +1,2 @@\n"
        "+X = 1\n"
        "+Y = 2\n"
        "diff --git a/old.txt b/old.txt\n"
        "deleted file mode 100644\n"
        "--- a/old.txt\n"
        "+++ /dev/null\n"
        "@@ -1 +0,0 @@\n"
        "-bye\n")
    text = agent.ok("apply_patch", patch=patch)
    assert text == ("applied the patch (+4 −2): updated app.py (1 hunk), added new/mod.py, "
                    "deleted old.txt")
    assert (workspace / "app.py").read_text() == (
        "def main():\n    print('hello')\n    print('world')\n    return 0\n")
    assert (workspace / "new" / "mod.py").read_text() == "X = 1\nY = 2\n"
    assert not (workspace / "old.txt").exists()
    # what the patch wrote counts as read
    agent.ok("edit", path="new/mod.py", old="Y = 2", new="Y = 3")


def test_the_begin_patch_format_with_anchors_moves_and_end_of_file(agent, workspace):
    (workspace / "calc.py").write_text(
        "class Calc:\n    def add(self, a, b):\n        return a + b\n\n"
        "    def sub(self, a, b):\n        return a + b\n")
    (workspace / "notes.md").write_text("# notes\n")
    read_all(agent, "calc.py", "notes.md")
    patch = (
        "*** Begin Patch\n"
        "*** Update File: calc.py\n"
        "@@     def sub(self, a, b):\n"
        "-        return a + b\n"
        "+        return a - b\n"
        "*** End of File\n"
        "*** Update File: notes.md\n"
        "*** Move to: docs/NOTES.md\n"
        "@@\n"
        " # notes\n"
        "+\n"
        "+sub was wrong.\n"
        "*** Add File: tests/test_calc.py\n"
        "+from calc import Calc\n"
        "+\n"
        "+def test_sub():\n"
        "+    assert Calc().sub(3, 1) == 2\n"
        "*** End Patch\n")
    text = agent.ok("apply_patch", patch=patch)
    assert "updated calc.py (1 hunk)" in text
    assert "moved notes.md to docs/NOTES.md (1 hunks)" in text
    assert "added tests/test_calc.py" in text
    calc = (workspace / "calc.py").read_text()
    assert calc.count("return a + b") == 1 and calc.endswith("return a - b\n")
    assert not (workspace / "notes.md").exists()
    assert (workspace / "docs" / "NOTES.md").read_text() == "# notes\n\nsub was wrong.\n"
    assert (workspace / "tests" / "test_calc.py").read_text().startswith("from calc import")


def test_hunks_are_found_through_the_cascade_and_wrong_counts_do_not_matter(agent, workspace):
    (workspace / "a.py").write_text(
        "class A:\n    def f(self):   \n        x = 1\n        return x\n")
    read_all(agent, "a.py")
    patch = ("--- a/a.py\n+++ b/a.py\n"
             "@@ -10,7 +10,9 @@\n"  # wrong numbers and counts
             " def f(self):\n"  # four spaces less, and no trailing spaces
             "-    x = 1\n"
             "+    x = 2\n"
             "+    y = 3\n"
             "     return x\n")
    text = agent.ok("apply_patch", patch=patch)
    assert "note: hunk 1 of a.py matched with its indentation adjusted" in text
    # context lines stay as the file has them; added lines take the file's indentation
    assert (workspace / "a.py").read_text() == (
        "class A:\n    def f(self):   \n        x = 2\n        y = 3\n        return x\n")


def test_a_patch_that_does_not_apply_changes_no_file_and_quotes_the_closest_lines(
        agent, workspace):
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("def g():\n    return 'b'\n")
    read_all(agent, "a.py", "b.py")
    patch = ("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"
             "--- a/b.py\n+++ b/b.py\n@@ -1,2 +1,2 @@\n def g():\n-    return 'c'\n"
             "+    return 'd'\n")
    error = agent.fails("apply_patch", patch=patch)
    assert "PatchError: hunk 1 of b.py does not apply" in error
    assert "the closest is lines 1-2" in error and "return 'b'" in error
    assert "nothing was changed" in error
    assert (workspace / "a.py").read_text() == "A = 1\n"


def test_patch_refusals_name_the_problem(agent, workspace):
    (workspace / "there.txt").write_text("x\n")
    read_all(agent, "there.txt")
    assert "no file changes found" in agent.fails("apply_patch", patch="just some prose")
    exists = agent.fails("apply_patch", patch="--- /dev/null\n+++ b/there.txt\n@@ -0,0 +1 @@\n+y\n")
    assert "'there.txt' already exists" in exists
    missing = agent.fails("apply_patch",
                          patch="--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n")
    assert "no file or folder 'nope.txt' to update" in missing
    outside = agent.fails("apply_patch",
                          patch="*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch\n")
    assert "OutsideWorkspace" in outside
    assert not (workspace.parent / "evil.txt").exists()
    bad = agent.fails("apply_patch", patch="*** Begin Patch\n*** Update File: there.txt\n"
                                           "?? what\n*** End Patch\n")
    assert "patch line 3: a hunk line starts with ' ', '-' or '+'" in bad


def test_no_newline_at_end_of_file_markers_are_honoured(agent, workspace):
    (workspace / "a.txt").write_text("one\ntwo")
    read_all(agent, "a.txt")
    patch = ("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n"
             "\\ No newline at end of file\n+three\n")
    agent.ok("apply_patch", patch=patch)
    assert (workspace / "a.txt").read_text() == "one\nthree\n"


def test_crlf_files_keep_their_line_endings(agent, workspace):
    (workspace / "w.bat").write_bytes(b"@echo off\r\nset A=1\r\n")
    read_all(agent, "w.bat")
    agent.ok("apply_patch", patch="--- a/w.bat\n+++ b/w.bat\n@@ -1,2 +1,2 @@\n @echo off\n"
                                  "-set A=1\n+set A=2\n")
    assert (workspace / "w.bat").read_bytes() == b"@echo off\r\nset A=2\r\n"


# ------------------------------------------------------------------------------ properties

_LINE = st.text(alphabet="ab =():-+@*\\ \t", max_size=8)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*"ab -+@* \n\\", "*** ", "@@ ", "--- ", "+++ ",
                                 "*** Begin Patch\n", "*** Update File: f\n",
                                 "*** Add File: g\n", "*** Delete File: h\n",
                                 "*** Move to: i\n", "*** End of File\n", "*** End Patch",
                                 "@@ -1,2 +1 @@\n", "/dev/null", "\r\n", "diff --git a/f b/f\n",
                                 "rename from x\n", "rename to y\n"]),
                max_size=80).map("".join),
       st.text(alphabet="ab \n", max_size=40))
def test_the_parser_and_applier_raise_nothing_but_patch_errors(patch, text):
    try:
        files = parse_patch(patch)
    except PatchError as err:
        assert "\n" not in str(err)
        return
    for file in files:
        if file.action == "update" and file.hunks:
            try:
                result, _notes = apply_hunks(text, file.hunks, "f")
            except PatchError as err:
                assert "\n" not in str(err)
            else:
                assert isinstance(result, str)


def _once(a: list[str], block: list[str]) -> bool:
    size = len(block)
    return sum(a[i:i + size] == block for i in range(len(a) - size + 1)) == 1


@settings(max_examples=300, deadline=None)
@given(a=st.lists(_LINE, min_size=1, max_size=15), b=st.lists(_LINE, max_size=15),
       context=st.integers(0, 3))
def test_a_generated_unified_diff_applies_exactly(a, b, context):
    old = [line + "\n" for line in a]
    new = [line + "\n" for line in b]
    assume(old != new)
    diff = "".join(difflib.unified_diff(old, new, "a/f.txt", "b/f.txt", n=context))
    (patch,) = parse_patch(diff)
    assert patch.path == "f.txt" and patch.action == "update"
    result, _notes = apply_hunks("".join(old), patch.hunks, "f.txt")
    assert result == "".join(new)


@settings(max_examples=300, deadline=None)
@given(a=st.lists(_LINE, min_size=1, max_size=15), b=st.lists(_LINE, max_size=15),
       context=st.integers(1, 3))
def test_a_generated_begin_patch_applies_exactly(a, b, context):
    assume(a != b)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    body = ["*** Begin Patch", "*** Update File: f.txt"]
    for group in matcher.get_grouped_opcodes(context):
        body.append("@@")
        old_block = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                body.extend(" " + line for line in a[i1:i2])
                old_block.extend(a[i1:i2])
            if tag in ("replace", "delete"):
                body.extend("-" + line for line in a[i1:i2])
                old_block.extend(a[i1:i2])
            if tag in ("replace", "insert"):
                body.extend("+" + line for line in b[j1:j2])
        # the format locates chunks by their lines alone: only unique ones are well defined
        assume(_once(a, old_block))
        # a bare empty line means an empty context line
        assume(all(line for line in old_block[-1:]))
    body.append("*** End Patch")
    (patch,) = parse_patch("\n".join(body) + "\n")
    text = "".join(line + "\n" for line in a)
    result, _notes = apply_hunks(text, patch.hunks, "f.txt")
    assert result == "".join(line + "\n" for line in b)
