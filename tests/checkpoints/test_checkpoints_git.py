"""Code checkpoints in a git repository: agent-like turns change files (a write tool and shell
commands), /rewind puts every file back — the one a command created is removed, the one it
deleted recreated — without touching the user's index, stash, HEAD or branches, and
/rewind undo brings the agent's version back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from chatcli import Settings
from checkpoints_helpers import GitState, git, make_repo, read_tree, shell, snapshots, write_call

START = {
    "a.py": "a = 1\n",
    "b.py": "b = 1\n",
    "old.txt": "an old file\n",
    "staged.txt": "committed\n",
    ".gitignore": "*.log\nbuild/\n",
}


def _user_state(repo: Path) -> None:
    """What a person leaves in a repository: a stash, a staged change, an untracked note, an
    ignored file, a second branch."""
    (repo / "b.py").write_text("b = 'stashed'\n")
    git(repo, "stash", "-q")
    (repo / "staged.txt").write_text("staged, not committed\n")
    git(repo, "add", "staged.txt")
    (repo / "notes.md").write_text("the user's untracked notes\n")
    (repo / "debug.log").write_text("ignored\n")
    git(repo, "branch", "feature")


def _agent_turn(app, prompt: str = "refactor a and b") -> None:
    app.turn(
        prompt,
        write_call("a.py", "a = 2  # by the agent\n"),
        shell("echo made by a command > new.txt && rm old.txt && echo 'b += 1' >> b.py "
              "&& mkdir -p pkg && echo x > pkg/mod.py"),
    )


def test_rewind_last_restores_every_file_and_leaves_git_alone(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    _user_state(repo)
    before_files = read_tree(repo)
    before = GitState(repo)
    app = make_app(repo)

    _agent_turn(app)
    changed = read_tree(repo)
    assert changed["a.py"] == "a = 2  # by the agent\n"
    assert "new.txt" in changed and "old.txt" not in changed and "pkg/mod.py" in changed
    assert GitState(repo).same_but_status(before)  # taking snapshots touched nothing

    out = app.run("/rewind last")
    assert read_tree(repo) == before_files  # new.txt and pkg/ removed, old.txt recreated
    assert not (repo / "pkg").exists()
    assert GitState(repo) == before  # status, index, stash, HEAD, branches
    assert app.texts() == []  # the conversation went back to before the prompt
    assert "Rewound to before “refactor a and b”" in out
    assert "Restored 5 files" in out and "new.txt (removed)" in out
    assert "old.txt (recreated)" in out

    out = app.run("/rewind undo")
    assert read_tree(repo) == changed  # the agent's version is back
    assert "Code rewind undone" in out and "back to 6 messages" in out
    assert GitState(repo).same_but_status(before)


def test_the_menu_offers_conversation_and_code_and_each_part_alone(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo, interactive=True)
    _agent_turn(app)
    agent_files = read_tree(repo)
    messages = app.texts()
    newest_user = len(app.conversation.checkpoints) - 1  # the menu is newest first

    app.picks = [newest_user, 2]  # the first message; then "code only"
    out = app.run("/rewind")
    title, options = app.pick_calls[1]
    assert options == ["conversation and code", "conversation only", "code only"]
    assert "a.py (changed)" in title and "new.txt (created since, removed on restore)" in title
    assert "old.txt (deleted since, recreated)" in title
    assert read_tree(repo) == START
    assert app.texts() == messages  # code only: the conversation stays
    assert "The conversation is unchanged" in out

    out = app.run("/rewind undo")  # undoes the code-only rewind, and nothing else
    assert read_tree(repo) == agent_files and app.texts() == messages
    assert "Undone: the conversation" not in out and "Code rewind undone" in out

    app.picks = [newest_user, 1]  # "conversation only"
    out = app.run("/rewind")
    assert read_tree(repo) == agent_files and app.texts() == []
    assert "Files left as they are: 5 files" in out

    app.run("/rewind undo")
    assert app.texts() == messages and read_tree(repo) == agent_files


def test_an_argument_in_the_chat_still_asks_what_to_restore(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo, interactive=True)
    _agent_turn(app)
    app.picks = [None]
    assert "Rewind cancelled" in app.run("/rewind last")
    assert "new.txt" in read_tree(repo) and app.texts()
    app.run("/rewind last both")  # a word says it: no question
    assert len(app.pick_calls) == 1 and read_tree(repo) == START and app.texts() == []


def test_each_step_has_its_own_state(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo)
    app.turn("two steps", write_call("a.py", "step one\n"), write_call("b.py", "step two\n"))
    checkpoints = app.conversation.checkpoints
    assert [c.label for c in checkpoints] == ["two steps", "two steps (step 2)",
                                              "two steps (step 3)"]
    refs = snapshots(repo, "for-each-ref", "--format=%(refname)", "refs/chatcli/").split()
    assert len(refs) == 2  # one snapshot per checkpoint that was followed by a change
    assert git(repo, "for-each-ref", "refs/chatcli/") == ""  # in chatcli's store, not the repo

    app.run("/rewind 2")  # newest first: 1 = step 3 (nothing after it), 2 = step 2
    files = read_tree(repo)
    assert files["a.py"] == "step one\n" and files["b.py"] == START["b.py"]
    point = app.host.hook.workspace_restore_point(conversation=app.conversation,
                                                   checkpoint=checkpoints[-1])
    assert point is not None and point.summary == "1 file: b.py (changed)"


def test_several_writes_after_one_checkpoint_take_one_snapshot(tmp_path, make_app) -> None:
    from chatcli_testing import Reply, ToolCall

    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo)
    app.turn("both at once", Reply(tool_calls=[
        ToolCall(name="put_file", arguments={"path": "a.py", "text": "one\n"}),
        ToolCall(name="put_file", arguments={"path": "b.py", "text": "two\n"}),
        ToolCall(name="shell", arguments={"command": "echo three > c.py"}),
    ]))
    assert len(snapshots(repo, "for-each-ref", "refs/chatcli/").splitlines()) == 1
    app.run("/rewind last")
    assert read_tree(repo) == START  # the snapshot is from before the first of them


def test_nothing_changed_means_no_code_offer(tmp_path, make_app) -> None:
    from chatcli_testing import Reply, ToolCall

    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo, interactive=True)
    app.turn("just read", Reply(tool_calls=[ToolCall(name="look", arguments={"command": "a.py"})]))
    assert snapshots(repo, "for-each-ref", "refs/chatcli/") == ""  # a read tool records nothing
    app.turn("a write that changes nothing", write_call("a.py", START["a.py"]))
    assert len(snapshots(repo, "for-each-ref", "refs/chatcli/").splitlines()) == 1  # recorded
    app.picks = [len(app.conversation.checkpoints) - 1]
    out = app.run("/rewind")
    assert len(app.pick_calls) == 1 and app.texts() == []  # no second question
    assert "Restored" not in out


def test_a_workspace_inside_a_repository_restores_only_its_folder(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", {**START, "sub/x.py": "x = 1\n"})
    app = make_app(repo / "sub")
    app.turn("work in sub", write_call("x.py", "x = 2\n"),
             shell("echo new > y.py && echo 'outside' >> ../a.py"))
    (repo / "b.py").write_text("the user's edit outside the workspace\n")
    out = app.run("/rewind last")
    assert (repo / "sub/x.py").read_text() == "x = 1\n" and not (repo / "sub/y.py").exists()
    assert "Restored 2 files: x.py, y.py (removed)" in out  # paths as the workspace sees them
    assert (repo / "a.py").read_text() == "a = 1\noutside\n"  # outside the workspace: left
    assert (repo / "b.py").read_text() == "the user's edit outside the workspace\n"


def test_a_repository_without_commits_or_identity(tmp_path, make_app) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "draft.txt").write_text("draft\n")
    app = make_app(repo)
    app.turn("start", shell("echo more >> draft.txt && echo made > made.txt"))
    app.run("/rewind last")
    assert read_tree(repo) == {"draft.txt": "draft\n"}
    assert git(repo, "status", "--porcelain") == "?? draft.txt\n"


def test_untracked_files_over_the_size_cap_stay_out_of_the_snapshot(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    (repo / "data.bin").write_bytes(b"x" * 5000)  # untracked, over the cap
    settings = Settings(provider="scripted", checkpoints={"max_file_bytes": 1000})
    app = make_app(repo, settings)
    app.turn("write", write_call("a.py", "a = 2\n"))
    snapshot = snapshots(repo, "for-each-ref", "--format=%(objectname)",
                         "refs/chatcli/").split()[0]
    names = snapshots(repo, "ls-tree", "-r", "--name-only", snapshot).split()
    assert "a.py" in names and "data.bin" not in names  # not copied into the store
    app.run("/rewind last")
    assert (repo / "a.py").read_text() == "a = 1\n"
    assert (repo / "data.bin").read_bytes() == b"x" * 5000  # left alone


def test_undo_leaves_a_file_changed_since_the_rewind(tmp_path, make_app) -> None:
    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo)
    _agent_turn(app)
    app.run("/rewind last")
    (repo / "a.py").write_text("the user's edit after the rewind\n")
    out = app.run("/rewind undo")
    assert (repo / "a.py").read_text() == "the user's edit after the rewind\n"
    assert (repo / "new.txt").exists()  # the others came back
    assert "left as they are (changed since the rewind): a.py" in out


def test_old_snapshots_are_pruned_with_the_checkpoints(tmp_path, make_app) -> None:
    from chatcli import data_dir

    repo = make_repo(tmp_path / "repo", START)
    app = make_app(repo, Settings(provider="scripted", max_checkpoints=3))
    for n in range(4):
        app.turn(f"turn {n}", write_call("a.py", f"a = {n}\n"))
    kept = {c.id for c in app.conversation.checkpoints}
    assert len(kept) == 3  # turn 2's step, turn 3's prompt and step
    folder = data_dir() / "checkpoints" / app.conversation.id / "records"
    records = sorted(folder.glob("r*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["checkpoint"] in kept
    refs = snapshots(repo, "for-each-ref", "--format=%(refname)", "refs/chatcli/").split()
    assert [r.rsplit("/", 1)[1] for r in refs] == [records[0].name.split(".")[0]]  # the rest: gone
    app.run("/rewind last")
    assert (repo / "a.py").read_text() == "a = 2\n"


def test_a_linked_worktree_and_packed_refs(tmp_path, make_app) -> None:
    """A workspace that is a linked worktree (``.git`` is a file naming its git directory, the
    objects in the common one) and whose branch lives in ``packed-refs``: the snapshot is seeded
    from its HEAD (a tracked file the .gitignore matches is kept) and restores."""
    repo = make_repo(tmp_path / "repo", START)
    (repo / "build").mkdir()
    (repo / "build" / "kept.txt").write_text("tracked though ignored\n")
    git(repo, "add", "-f", "build/kept.txt")
    git(repo, "commit", "-q", "-m", "a tracked file in an ignored folder")
    git(repo, "branch", "side")
    git(repo, "pack-refs", "--all")
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", str(tree), "side")
    app = make_app(tree)
    app.turn("change", write_call("a.py", "a = 3\n"),
             shell("echo gone > build/kept.txt && echo made > new.txt"))
    out = app.run("/rewind last")
    assert "Restored 3 files" in out, out
    assert (tree / "a.py").read_text() == "a = 1\n" and not (tree / "new.txt").exists()
    assert (tree / "build" / "kept.txt").read_text() == "tracked though ignored\n"
    assert git(repo, "for-each-ref", "refs/chatcli/") == ""  # the repository got no ref


def test_the_repository_config_is_never_read(tmp_path, make_app) -> None:
    """Snapshots and restores read nothing of the repository's ``.git/config`` (nor its hooks):
    one git itself cannot parse does not stop them, and the repository gets no ref or object."""
    repo = make_repo(tmp_path / "repo", START)
    objects = sorted(p.name for p in (repo / ".git" / "objects").rglob("*"))
    (repo / ".git" / "config").write_text("[core\n\tfsmonitor = this is not a config\n")
    app = make_app(repo)
    app.turn("change", write_call("a.py", "a = 5\n"), shell("echo made > new.txt"))
    from chatcli import data_dir

    folder = data_dir() / "checkpoints" / app.conversation.id / "records"
    kinds = {json.loads(p.read_text())["kind"] for p in folder.glob("r*.json")}
    assert kinds == {"git"}  # a git snapshot (not the fallback for folders outside git)
    out = app.run("/rewind last")
    assert "Restored 2 files: a.py, new.txt (removed)" in out, out
    assert read_tree(repo) == START
    assert sorted(p.name for p in (repo / ".git" / "objects").rglob("*")) == objects
    done = subprocess.run(["git", "status"], cwd=repo, capture_output=True, text=True)
    assert done.returncode != 0 and "bad config" in done.stderr  # git itself cannot read it
