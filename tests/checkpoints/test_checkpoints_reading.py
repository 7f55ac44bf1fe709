"""What the plugin reads: the files a write call names (its arguments, the files of a patch) and
the ``.gitignore`` rules of a workspace outside git."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli_checkpoints._files import Limits, scan
from chatcli_checkpoints._ignore import IgnoreRules, parse_gitignore
from chatcli_checkpoints._targets import patch_paths, touched_paths


def test_the_paths_of_write_calls() -> None:
    assert touched_paths({"path": "src/a.py", "content": "x"}) == ["src/a.py"]
    assert touched_paths({"edits": [{"path": "a.py", "old": "1", "new": "2"},
                                    {"path": "b.py", "old": "1", "new": "2"},
                                    {"path": "a.py", "old": "3", "new": "4"}]}) == ["a.py", "b.py"]
    assert touched_paths({"file_path": "x.txt", "paths": ["y.txt", "z.txt"]}) == [
        "x.txt", "y.txt", "z.txt"]
    assert touched_paths({"text": "not a path", "count": 3}) == []
    assert touched_paths({"path": "line one\nline two"}) == []  # text, not a path


def test_the_files_of_a_unified_diff() -> None:
    patch = (
        "diff --git a/src/x.py b/src/x.py\n"
        "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n"
        "--- /dev/null\n+++ b/new.py\t2024-01-01 00:00:00\n@@ -0,0 +1 @@\n+n\n"
        "--- gone.py\n+++ /dev/null\n"
        "diff --git a/old.py b/moved.py\nrename from old.py\nrename to moved.py\n"
    )
    found = patch_paths(patch)
    for name in ("src/x.py", "new.py", "gone.py", "old.py", "moved.py"):
        assert name in found
    assert "/dev/null" not in found
    assert touched_paths({"patch": patch}) == found


def test_the_files_of_a_begin_patch_envelope() -> None:
    patch = (
        "*** Begin Patch\n"
        "*** Update File: src/app.py\n@@ def f():\n-    return 1\n+    return 2\n"
        "*** Move to: src/main.py\n"
        "*** Add File: docs/new.md\n+# New\n"
        "*** Delete File: legacy.py\n"
        "*** End Patch\n"
    )
    assert patch_paths(patch) == ["src/app.py", "src/main.py", "docs/new.md", "legacy.py"]
    assert touched_paths({"input": patch}) == patch_paths(patch)


@pytest.mark.parametrize(("lines", "path", "is_dir", "ignored"), [
    ("*.log", "a.log", False, True),
    ("*.log", "deep/down/a.log", False, True),
    ("*.log\n!keep.log", "keep.log", False, False),
    ("build/", "build", True, True),
    ("build/", "build", False, False),  # a trailing slash: folders only
    ("/top.txt", "top.txt", False, True),
    ("/top.txt", "sub/top.txt", False, False),  # anchored
    ("docs/*.md", "docs/a.md", False, True),
    ("docs/*.md", "docs/sub/a.md", False, False),  # * does not cross a slash
    ("docs/**/*.md", "docs/sub/deeper/a.md", False, True),
    ("**/cache", "x/y/cache", True, True),
    ("a?c", "abc", False, True),
    ("[ab].txt", "b.txt", False, True),
    ("[!ab].txt", "b.txt", False, False),
    ("# a comment\n\\#hash", "#hash", False, True),
    ("trailing   ", "trailing", False, True),
])
def test_gitignore_patterns(tmp_path: Path, lines: str, path: str, is_dir: bool,
                            ignored: bool) -> None:
    (tmp_path / ".gitignore").write_text(lines + "\n")
    rules = IgnoreRules(tmp_path)
    rules.enter("")
    assert rules.ignored(path, is_dir) is ignored


def test_a_deeper_gitignore_overrides_and_an_ignored_folder_is_not_entered(tmp_path) -> None:
    (tmp_path / ".gitignore").write_text("*.tmp\nout/\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("!keep.tmp\n")
    for name in ("x.tmp", "sub/keep.tmp", "sub/other.tmp", "out/!keep.tmp", "src/a.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found, ignored, cut = scan(tmp_path, Limits())
    assert sorted(found) == [".gitignore", "src/a.py", "sub/.gitignore", "sub/keep.tmp"]
    assert sorted(ignored) == ["out/", "sub/other.tmp", "x.tmp"]
    assert not cut
    assert len(parse_gitignore("# only\n\n  \n")) == 0


def test_the_walk_stops_at_the_file_cap(tmp_path) -> None:
    for n in range(10):
        (tmp_path / f"f{n}").write_text("x")
    found, _, cut = scan(tmp_path, Limits(max_files=4))
    assert len(found) == 4 and cut
