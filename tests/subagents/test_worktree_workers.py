"""Two real workers with ``isolation = "worktree"`` (side by side, the coder's tools) editing the
same lines of the same file: each edits its own worktree, the main tree is untouched, both
branches are reported; merging them gives one clean merge and one reported conflict naming the
file — no edit lost, no worktree left behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import chatcli_coder.plugin as coder_plugin
import pytest
from chatcli import Approval
from chatcli_subagents.board import REGISTRY
from chatcli_subagents.worktree import merge, worktrees_folder
from chatcli_testing import Fault, Reply, ToolCall
from subagents_support import ContentServer, chat


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def worker_script(key: str, new: str) -> list[Reply | Fault]:
    return [Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
            Reply(tool_calls=[ToolCall("edit", {"path": "notes.txt", "old": "alpha",
                                                "new": new})]),
            Reply(text=f"{key} done")]


def isolated(task: str, description: str) -> ToolCall:
    return ToolCall("delegate", {"agent": "general", "task": task, "description": description,
                                 "isolation": "worktree"})


def test_two_isolated_workers_on_the_same_lines_conflict_at_merge_and_lose_nothing(
        repo: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[isolated("TASK-ONE make it ALPHA", "upper"),
                                     isolated("TASK-TWO make it Alpha", "title")]),
                   Reply(text="both reported")],
        "TASK-ONE": worker_script("TASK-ONE", "ALPHA"),
        "TASK-TWO": worker_script("TASK-TWO", "Alpha")})
    with server:
        session = chat(server, repo, coder_plugin, interactive=True,
                       approver=lambda *a: Approval(True))
        finished = session.turn("PARENT: both at once")
    assert finished.text == "both reported"
    board = session.conversation.stash[REGISTRY]
    one, two = board.find("w1"), board.find("w2")
    assert one is not None and two is not None and one.branch and two.branch
    assert one.state == two.state == "done" and one.branch != two.branch
    reports = [result.content for result in session.results()]
    for worker in (one, two):
        assert any(f"branch: {worker.branch}" in report for report in reports)
        assert worker.changed == ["notes.txt"]
    # each edit is on its own branch; the main tree is untouched and no worktree is left
    assert (repo / "notes.txt").read_text() == "alpha\nbeta\n"
    edits = {git(repo, "show", f"{w.branch}:notes.txt") for w in (one, two)}
    assert edits == {"ALPHA\nbeta\n", "Alpha\nbeta\n"}
    assert git(repo, "worktree", "list").count("\n") == 1
    assert list(worktrees_folder(repo).iterdir()) == []

    first = merge(repo, one.branch)
    assert first.merged, first.line
    second = merge(repo, two.branch)
    assert not second.merged and second.conflicts == ["notes.txt"]
    assert "notes.txt" in second.line
    assert (repo / "notes.txt").read_text() == "ALPHA\nbeta\n"
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "show", f"{two.branch}:notes.txt") == "Alpha\nbeta\n"  # kept


def test_the_parent_merges_one_branch_and_the_user_discards_the_conflicting_one(
        repo: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[isolated("TASK-ONE make it ALPHA", "upper"),
                                     isolated("TASK-TWO make it Alpha", "title")]),
                   Reply(tool_calls=[ToolCall("worker_branch", {"worker": "w1",
                                                                "action": "merge"}),
                                     ToolCall("worker_branch", {"worker": "w2",
                                                                "action": "merge"})]),
                   Reply(text="merged what merges")],
        "TASK-ONE": worker_script("TASK-ONE", "ALPHA"),
        "TASK-TWO": worker_script("TASK-TWO", "Alpha")})
    asked: list[str] = []

    def approve(call, tool, verdict):
        asked.append(call.name)
        return Approval(True)

    with server:
        session = chat(server, repo, coder_plugin, interactive=True, approver=approve)
        session.turn("PARENT: both, then merge")
        board = session.conversation.stash[REGISTRY]
        one, two = board.find("w1"), board.find("w2")
        results = [r.content for r in session.results() if r.name == "worker_branch"]
        assert asked.count("worker_branch") == 2  # a merge changes the tree: it is asked
        # which worker edits first is up to the threads: one merge is clean, the other
        # conflicts, names the file, changes nothing and keeps its branch
        merged = [r for r in results if "conflicting files" not in r]
        conflicted = [r for r in results if "conflicting files: notes.txt" in r]
        assert len(merged) == 1 and len(conflicted) == 1, [r.content for r in session.results()]
        kept = one if one.branch else two
        assert kept.branch and kept.branch in conflicted[0]
        assert (repo / "notes.txt").read_text() in ("ALPHA\nbeta\n", "Alpha\nbeta\n")
        assert git(repo, "status", "--porcelain") == ""
        branch = kept.branch
        shown = session.slash(f"/agents discard {kept.id}")
        assert branch in shown
    assert branch not in git(repo, "branch", "--list")
    assert git(repo, "branch", "--list").split() == ["*", "main"]


def test_a_session_start_cleans_the_worktrees_a_killed_chatcli_left(repo: Path) -> None:
    import signal
    import sys
    import textwrap

    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, time
        from pathlib import Path
        from chatcli_subagents.worktree import create

        wt = create(Path(sys.argv[1]), "w7")
        (wt.path / "draft.txt").write_text("half done\\n")
        print(wt.root, wt.branch, flush=True)
        time.sleep(120)
    """), str(repo)], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        root_text, branch = owner.stdout.readline().split()
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait(10)
    assert Path(root_text).is_dir()
    with ContentServer({}) as server:
        session = chat(server, repo)
        [line] = [w for w in session.warned if "worktree" in w]
    assert line.startswith("chatcli-subagents: removed the worktree") and branch in line
    assert not Path(root_text).exists()
    assert git(repo, "worktree", "list").count("\n") == 1
    assert git(repo, "show", f"{branch}:draft.txt") == "half done\n"  # its work is kept
