"""Worktrees of isolated workers with real git: made outside the repository, finished into a
commit on the worker's branch, merged (or not: a conflict names the files and changes nothing),
discarded without a trace, cleaned after a killed chatcli, and never running a program a hostile
repository's config names."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from chatcli_subagents.worktree import (
    WorktreeError,
    clean_stale,
    create,
    discard,
    finish,
    merge,
    worktrees_folder,
)
from chatcli_workspace import safe_git

_IDENTITY = {"GIT_AUTHOR_NAME": "User", "GIT_AUTHOR_EMAIL": "user@example.com",
             "GIT_COMMITTER_NAME": "User", "GIT_COMMITTER_EMAIL": "user@example.com"}


def git(cwd: Path, *args: str, identity: bool = True) -> str:
    """Plain git (the test's own, trusted set-up and checks); its output."""
    env = {**os.environ, **(_IDENTITY if identity else {})}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout


def worktrees(repo: Path) -> list[str]:
    """The folders of ``git worktree list``."""
    return [line.split(" ", 1)[1] for line in git(repo, "worktree", "list", "--porcelain")
            .splitlines() if line.startswith("worktree ")]


def branches(repo: Path) -> list[str]:
    return git(repo, "branch", "--format=%(refname:short)").split()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit (README.md, src/app.py) on ``main``."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# demo\n\nfirst line\n")
    (root / "src" / "app.py").write_text("x = 1\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_create_finish_merge_a_clean_change(repo: Path, home: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    wt = create(repo, "w1")
    assert wt.branch.startswith("chatcli/w1-") and wt.base == head
    assert wt.path == wt.root and wt.path.is_dir()
    assert wt.root.is_relative_to(home / "data" / "worktrees")  # outside the repository
    assert not wt.root.is_relative_to(repo)
    assert worktrees_folder(repo) == wt.root.parent
    assert sorted(worktrees(repo)) == sorted([str(repo), str(wt.root)])
    assert (wt.path / "README.md").read_text() == "# demo\n\nfirst line\n"

    (wt.path / "README.md").write_text("# demo\n\nfirst line, improved\n")
    (wt.path / "src" / "new.py").write_text("y = 2\n")
    result = finish(wt)
    assert not result.empty and result.branch == wt.branch
    assert result.files == ["README.md", "src/new.py"]
    assert "2 files changed, 2 insertions(+), 1 deletion(-)" in result.diffstat
    assert not wt.root.exists() and worktrees(repo) == [str(repo)]
    assert wt.branch in branches(repo)  # kept for the merge
    author = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", wt.branch).strip()
    assert author == "chatcli <chatcli@localhost>|chatcli <chatcli@localhost>"
    assert git(repo, "rev-parse", "HEAD").strip() == head  # the main line untouched so far

    merged = merge(repo, wt.branch)
    assert merged.merged and merged.conflicts == []
    assert merged.line.startswith(f"merged {wt.branch} into main: 2 files changed")
    assert (repo / "README.md").read_text() == "# demo\n\nfirst line, improved\n"
    assert (repo / "src" / "new.py").read_text() == "y = 2\n"
    parents = git(repo, "log", "-1", "--format=%P").split()
    assert len(parents) == 2 and parents[0] == head  # --no-ff: a merge commit
    assert git(repo, "status", "--porcelain") == ""
    assert wt.branch not in branches(repo)  # merged: nothing left behind
    assert list(worktrees_folder(repo).iterdir()) == []


def test_a_worker_that_changed_nothing_leaves_nothing(repo: Path) -> None:
    wt = create(repo, "w1")
    result = finish(wt)
    assert result.empty and result.files == [] and result.diffstat == ""
    assert branches(repo) == ["main"] and worktrees(repo) == [str(repo)]
    assert list(worktrees_folder(repo).iterdir()) == []


def test_a_workspace_in_a_sub_folder_gets_the_same_sub_folder(repo: Path) -> None:
    wt = create(repo / "src", "w1")
    assert wt.path == wt.root / "src" and (wt.path / "app.py").is_file()
    (wt.path / "app.py").write_text("x = 2\n")
    assert finish(wt).files == ["src/app.py"]
    assert merge(repo / "src", wt.branch).merged
    assert (repo / "src" / "app.py").read_text() == "x = 2\n"


def test_two_workers_editing_the_same_lines_conflict_and_no_edit_is_lost(repo: Path) -> None:
    first, second = create(repo, "w1"), create(repo, "w2")
    (first.path / "README.md").write_text("# demo\n\nfirst line by w1\n")
    (second.path / "README.md").write_text("# demo\n\nfirst line by w2\n")
    (second.path / "src" / "app.py").write_text("x = 22\n")
    one, two = finish(first), finish(second)
    assert one.files == ["README.md"] and two.files == ["README.md", "src/app.py"]

    assert merge(repo, one.branch).merged
    head = git(repo, "rev-parse", "HEAD").strip()
    refused = merge(repo, two.branch)
    assert not refused.merged
    assert refused.conflicts == ["README.md"]
    assert "README.md" in refused.line and "\n" not in refused.line
    assert refused.line.startswith(f"not merged: {two.branch} conflicts with main in README.md")
    # the main tree is as it was: no half merge, no conflict markers
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "README.md").read_text() == "# demo\n\nfirst line by w1\n"
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"
    assert not (repo / ".git" / "MERGE_HEAD").exists()
    # both edits kept: w1's merged, w2's on its branch
    assert two.branch in branches(repo)
    assert git(repo, "show", f"{two.branch}:README.md") == "# demo\n\nfirst line by w2\n"
    assert git(repo, "show", f"{two.branch}:src/app.py") == "x = 22\n"


def test_a_merge_the_pre_check_cannot_see_is_still_aborted_whole(repo: Path) -> None:
    """The merge itself finding the conflict (git without merge-tree --write-tree): aborted,
    the files named."""
    from chatcli_subagents import worktree

    first, second = create(repo, "w1"), create(repo, "w2")
    (first.path / "README.md").write_text("A\n")
    (second.path / "README.md").write_text("B\n")
    (second.path / "src" / "app.py").write_text("x = 3\n")
    one, two = finish(first), finish(second)
    assert merge(repo, one.branch).merged
    head = git(repo, "rev-parse", "HEAD").strip()
    saved = worktree._trial_merge
    worktree._trial_merge = lambda top, env, branch: ("unknown", [], "")
    try:
        refused = merge(repo, two.branch)
    finally:
        worktree._trial_merge = saved
    assert not refused.merged and refused.conflicts == ["README.md"]
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"


def test_uncommitted_changes_to_the_same_files_refuse_the_merge(repo: Path) -> None:
    wt = create(repo, "w1")
    (wt.path / "README.md").write_text("by the worker\n")
    (wt.path / "src" / "app.py").write_text("x = 5\n")
    result = finish(wt)
    (repo / "README.md").write_text("the user's own edit, not committed\n")
    (repo / "notes.txt").write_text("an untracked file the branch does not touch\n")
    refused = merge(repo, result.branch)
    assert not refused.merged and refused.blocked == ["README.md"]
    assert refused.line == (
        f"not merged: the workspace has uncommitted changes to README.md, which {result.branch}"
        " also changes; commit or stash them, then merge")
    assert (repo / "README.md").read_text() == "the user's own edit, not committed\n"
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"

    (repo / "README.md").write_text("# demo\n\nfirst line\n")  # the user gives up the edit
    assert merge(repo, result.branch).merged
    assert (repo / "notes.txt").is_file()  # other uncommitted files stay as they are
    assert (repo / "src" / "app.py").read_text() == "x = 5\n"


def test_a_merge_never_aborts_the_users_own_merge_in_progress(repo: Path) -> None:
    wt = create(repo, "w1")
    (wt.path / "src" / "app.py").write_text("x = 9\n")
    result = finish(wt)
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "README.md").write_text("side\n")
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("main\n")
    git(repo, "commit", "-q", "-am", "main")
    with pytest.raises(subprocess.CalledProcessError):
        git(repo, "merge", "side")  # the user's conflict, left to resolve
    refused = merge(repo, result.branch)
    assert not refused.merged and "in the middle of a merge" in refused.line
    assert (repo / ".git" / "MERGE_HEAD").exists()  # still the user's merge


def test_discard_leaves_nothing(repo: Path) -> None:
    wt = create(repo, "w1")
    (wt.path / "README.md").write_text("thrown away\n")
    line = discard(repo, wt.branch)
    assert line.startswith("discarded worktree ") and f"branch {wt.branch}" in line
    assert not wt.root.exists() and worktrees(repo) == [str(repo)]
    assert branches(repo) == ["main"]
    assert list(worktrees_folder(repo).iterdir()) == []
    assert (repo / "README.md").read_text() == "# demo\n\nfirst line\n"

    finished = create(repo, "w2")
    (finished.path / "README.md").write_text("also thrown away\n")
    result = finish(finished)
    assert discard(repo, result.branch) == f"discarded branch {result.branch}"
    assert branches(repo) == ["main"]
    assert discard(repo, result.branch) == f"nothing left of {result.branch}"
    assert not merge(repo, result.branch).merged


def test_no_repository_or_no_commit_is_a_clear_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WorktreeError, match="is not in a git repository: a worker can only"):
        create(plain, "w1")
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(WorktreeError, match="has no commit yet: commit once"):
        create(empty, "w1")
    assert git(empty, "worktree", "list").count("\n") == 1


_OWNER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from chatcli_subagents.worktree import create

    wt = create(Path(sys.argv[1]), "w9")
    (wt.path / "half-done.txt").write_text("work in progress\\n")
    print(wt.root, wt.branch, flush=True)
    time.sleep(120)
""")


def test_the_worktree_of_a_killed_chatcli_is_cleaned_at_the_next_start(repo: Path) -> None:
    mine = create(repo, "w1")  # this process is alive: its worktree stays
    owner = subprocess.Popen([sys.executable, "-c", _OWNER, str(repo)], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert owner.stdout is not None
        root_text, branch = owner.stdout.readline().split()
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait(10)
    root = Path(root_text)
    assert root.is_dir() and str(root) in worktrees(repo)

    done = clean_stale(repo)
    assert len(done) == 1
    assert done[0].startswith(f"removed the worktree {root.name} of ended process {owner.pid}")
    assert f"kept on branch {branch}" in done[0]
    assert not root.exists()
    assert sorted(worktrees(repo)) == sorted([str(repo), str(mine.root)])
    # the dead worker's uncommitted work was saved on its branch, not lost
    assert git(repo, "show", f"{branch}:half-done.txt") == "work in progress\n"
    assert clean_stale(repo) == []  # nothing more

    discard(repo, branch)
    discard(repo, mine.branch)
    assert worktrees(repo) == [str(repo)] and branches(repo) == ["main"]


def test_a_killed_worker_without_work_leaves_no_branch(repo: Path) -> None:
    script = _OWNER.replace('(wt.path / "half-done.txt").write_text("work in progress\\n")', "")
    owner = subprocess.Popen([sys.executable, "-c", script, str(repo)], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert owner.stdout is not None
        owner.stdout.readline()
    finally:
        owner.kill()
        owner.wait(10)
    (line,) = clean_stale(repo)
    assert "and its branch chatcli/w9-" in line and "(no work on it)" in line
    assert worktrees(repo) == [str(repo)] and branches(repo) == ["main"]
    assert list(worktrees_folder(repo).iterdir()) == []


def test_a_hostile_repository_config_runs_nothing(repo: Path, home: Path) -> None:
    """Hooks, fsmonitor, filters, a merge driver and textconv all named by the repository: the
    whole life of two worktrees (create, finish, a clean merge, a conflicting one, discard,
    clean_stale) runs none of them; plain git does, so the trap is real."""
    canary = home / "canary"  # under the test's home
    (repo / ".gitattributes").write_text("* filter=evil merge=evil diff=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    hooks = repo / ".git" / "evil-hooks"
    hooks.mkdir()
    trap = f"#!/bin/sh\necho \"$0\" >> '{canary}'\n"
    for name in ("pre-commit", "post-commit", "commit-msg", "prepare-commit-msg",
                 "post-checkout", "post-merge", "pre-merge-commit", "reference-transaction",
                 "post-rewrite", "post-index-change"):
        for folder in (hooks, repo / ".git" / "hooks"):
            (folder / name).write_text(trap)
            (folder / name).chmod(0o755)
    (hooks / "fsmonitor").write_text(trap)
    (hooks / "fsmonitor").chmod(0o755)
    command = f"sh -c 'echo ran >> {canary}; cat'"
    for key, value in (("core.hooksPath", str(hooks)), ("core.fsmonitor", str(hooks / "fsmonitor")),
                       ("filter.evil.clean", command), ("filter.evil.smudge", command),
                       ("filter.evil.required", "true"), ("merge.evil.driver", command),
                       ("diff.evil.textconv", command), ("diff.external", command)):
        git(repo, "config", key, value)

    first, second = create(repo, "w1"), create(repo, "w2")
    (first.path / "README.md").write_text("by w1\n")
    (second.path / "README.md").write_text("by w2\n")
    (second.path / "src" / "app.py").write_text("x = 7\n")
    one, two = finish(first), finish(second)
    assert merge(repo, one.branch).merged
    refused = merge(repo, two.branch)
    assert not refused.merged and refused.conflicts == ["README.md"]
    assert "README.md" in refused.line and (repo / "README.md").read_text() == "by w1\n"
    assert safe_git(["status", "--porcelain"], repo).stdout == b""  # (plain git would run them)
    third = create(repo, "w3")
    discard(repo, third.branch)
    discard(repo, two.branch)
    owner = subprocess.Popen([sys.executable, "-c", _OWNER, str(repo)], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert owner.stdout is not None
        owner.stdout.readline()
    finally:
        owner.kill()
        owner.wait(10)
    (cleaned,) = clean_stale(repo)  # its half-done work committed in the hostile repository
    assert "(1 changed file, saved now) is kept on branch chatcli/w9-" in cleaned
    assert not canary.exists(), canary.read_text()

    git(repo, "commit", "-q", "--allow-empty", "-m", "plain git")  # the trap is live
    assert canary.exists()


def test_workers_side_by_side_each_get_their_own_worktree_and_all_merge(repo: Path) -> None:
    import threading

    results: dict[str, str] = {}
    errors: list[BaseException] = []

    def worker(number: int) -> None:
        try:
            wt = create(repo, f"w{number}")
            (wt.path / "src" / f"part{number}.py").write_text(f"part = {number}\n")
            results[f"w{number}"] = finish(wt).branch
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and len(set(results.values())) == 4
    for branch in results.values():
        assert merge(repo, branch).merged
    assert sorted(p.name for p in (repo / "src").glob("part*.py")) == [
        "part1.py", "part2.py", "part3.py", "part4.py"]
    assert branches(repo) == ["main"] and worktrees(repo) == [str(repo)]
