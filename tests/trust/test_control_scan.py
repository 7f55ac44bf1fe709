"""The scan for control files: it reads only the folders a pattern can match, finds what a full
walk of the project finds, and is kept for the process while no folder it read changed — a
control file added, removed or renamed later (during a long REPL session) is still seen."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli import _trust
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PATTERNS = [".chatcli/config.toml", ".mcp.json", ".chatcli/skills/**", "*/.chatcli/skills/**",
            "*/*/.claude/skills/**", "a/**/b.json", "*.md", "x?/*/y.txt", "[ab]/c.txt"]
NAMES = [".chatcli", "skills", ".claude", "a", "b", "x1", "config.toml", "b.json", "r.md",
         "y.txt", "c.txt", ".mcp.json", "q"]


def full_walk(root: str, patterns: list[str]) -> tuple[str, ...]:
    """What the scan must find: every regular file of the tree whose path a pattern matches."""
    found = set()
    for folder, _dirs, files in os.walk(root):
        for name in files:
            relative = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if any(_trust._glob_regex(p).match(relative) for p in patterns):
                found.add(relative)
    return tuple(sorted(found))


@pytest.fixture
def root() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="chatcli-scan-"))
    _trust.forget()
    try:
        yield made
    finally:
        _trust.forget()
        shutil.rmtree(made, ignore_errors=True)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the scan lists (os.scandir calls)."""
    listed: list[str] = []
    real = os.scandir

    def counting(path):  # type: ignore[no-untyped-def]
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return listed


def make(root: Path, *files: str) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5), max_size=30))
def test_the_scan_finds_what_a_full_walk_finds(paths: list[list[str]]) -> None:
    base = tempfile.mkdtemp(prefix="chatcli-scan-")
    try:
        for parts in paths:
            with contextlib.suppress(OSError):  # a name already taken by a file or folder
                make(Path(base), "/".join(parts))
        _trust.forget()
        assert _trust._present(base, PATTERNS) == full_walk(base, PATTERNS)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_scan_does_not_walk_folders_no_pattern_can_reach(root: Path,
                                                             reads: list[str]) -> None:
    make(root, "pkg/.chatcli/skills/s/SKILL.md", "deep/er/still/more/file.txt",
         "node_modules/lib/x/y/z.js")
    assert _trust._present(str(root), ["*/.chatcli/skills/**"]) == (
        "pkg/.chatcli/skills/s/SKILL.md",)
    listed = {os.path.relpath(path, root) for path in reads}
    assert "deep/er" not in listed and "node_modules/lib" not in listed
    assert "pkg/.chatcli/skills/s" in listed


@pytest.mark.parametrize("change", [
    "add a control file",
    "add a nested skill",
    "remove a control file",
    "rename the skills folder",
])
def test_a_change_after_the_scan_was_kept_is_seen(root: Path, reads: list[str],
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  change: str) -> None:
    monkeypatch.setattr(_trust, "_RACY_NS", 0)  # the folders count as old at once
    make(root, ".chatcli/skills/one/SKILL.md", "sub/.chatcli/skills/two/SKILL.md",
         ".chatcli/config.toml")
    time.sleep(0.05)  # past the file system's clock tick
    first = _trust._present(str(root), PATTERNS)
    reads.clear()
    assert _trust._present(str(root), PATTERNS) == first  # kept: no folder listed again
    assert reads == []
    time.sleep(0.05)
    if change == "add a control file":
        make(root, ".mcp.json")
    elif change == "add a nested skill":
        make(root, "sub/.chatcli/skills/two/extra.md")
    elif change == "remove a control file":
        (root / ".chatcli/config.toml").unlink()
    else:
        (root / "sub/.chatcli/skills").rename(root / "sub/.chatcli/skills-old")
    assert _trust._present(str(root), PATTERNS) == full_walk(str(root), PATTERNS) != first


def test_a_folder_changed_moments_ago_is_not_kept(root: Path, reads: list[str]) -> None:
    make(root, ".chatcli/config.toml")
    _trust._present(str(root), PATTERNS)
    reads.clear()
    _trust._present(str(root), PATTERNS)
    assert reads  # listed again: a change in the same clock tick could hide in the times


def test_a_scan_that_meets_a_link_is_not_kept(root: Path, reads: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_trust, "_RACY_NS", 0)
    elsewhere = Path(tempfile.mkdtemp(prefix="chatcli-scan-target-"))
    try:
        make(elsewhere, "skills/one/SKILL.md")
        (root / ".chatcli").mkdir()
        (root / ".chatcli/skills").symlink_to(elsewhere / "skills")
        time.sleep(0.05)
        assert _trust._present(str(root), PATTERNS) == (".chatcli/skills/one/SKILL.md",)
        make(elsewhere, "skills/two/SKILL.md")  # the link's target changes, not the project
        assert _trust._present(str(root), PATTERNS) == (".chatcli/skills/one/SKILL.md",
                                                        ".chatcli/skills/two/SKILL.md")
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)
