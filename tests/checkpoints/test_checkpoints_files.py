"""Code checkpoints outside git: pre-images of the files write tools name (``path``,
``edits[].path``, the files of a patch) and, before a shell command, a manifest of the workspace;
/rewind puts everything back, /rewind undo the agent's version; .gitignore'd files, size caps,
pruning and private file modes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from chatcli import Settings, data_dir
from chatcli_checkpoints._git import find_repo
from chatcli_testing import Reply, ToolCall
from checkpoints_helpers import read_tree, shell, write_call

START = {
    "a.py": "a = 1\n",
    "b.py": "b = 1\n",
    "c.py": "c = 1\n",
    "d.py": "d = 1\n",
    "old.txt": "an old file\n",
    "keep.txt": "kept\n",
    "src/deep/f.txt": "deep\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project that is not a git repository (the files backend), holding ``START``."""
    folder = tmp_path / "plain"
    for name, text in START.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    assert find_repo(folder) is None  # not a git repository: the files backend
    return folder


PATCH = """\
--- a/d.py
+++ b/d.py
@@ -1 +1 @@
-d = 1
+d = 2
*** Begin Patch
*** Add File: e.py
+e = 1
*** End Patch
"""


def _agent_turn(app) -> None:
    app.turn(
        "change everything",
        write_call("a.py", "a = 2\n"),
        Reply(tool_calls=[ToolCall(name="multi_put", arguments={"edits": [
            {"path": "b.py", "text": "b = 2\n"}, {"path": "c.py", "text": "c = 2\n"}]})]),
        Reply(tool_calls=[ToolCall(name="patch", arguments={
            "patch": PATCH, "files": {"d.py": "d = 2\n", "e.py": "e = 1\n"}})]),
        shell("echo made > new.txt && rm old.txt && echo more >> src/deep/f.txt "
              "&& mkdir -p gen/x && echo g > gen/x/out.txt"),
    )


def test_rewind_restores_tool_edits_and_shell_changes_without_git(project, make_app) -> None:
    app = make_app(project)
    _agent_turn(app)
    agent = read_tree(project)
    assert agent["d.py"] == "d = 2\n" and "e.py" in agent and "old.txt" not in agent

    out = app.run("/rewind last")
    assert read_tree(project) == START
    assert not (project / "gen").exists()  # the folders a command made go too
    assert app.texts() == []
    assert ("Restored 9 files: a.py, b.py, c.py, d.py, e.py (removed), gen/x/out.txt (removed), "
            "new.txt (removed), old.txt (recreated), … and 1 more.") in out

    out = app.run("/rewind undo")
    assert read_tree(project) == agent
    assert "Code rewind undone: 9 files" in out


def test_the_summary_names_what_a_restore_would_do(project, make_app) -> None:
    app = make_app(project)
    app.turn("edit", write_call("a.py", "a = 2\n"), shell("echo n > new.txt && rm old.txt"))
    first = app.conversation.checkpoints[0]
    point = app.host.hook.workspace_restore_point(conversation=app.conversation,
                                                   checkpoint=first)
    assert point is not None
    assert point.summary == ("3 files: a.py (changed), new.txt (created since, removed on "
                             "restore), old.txt (deleted since, recreated)")
    assert "Restored 3 files" in point.restore()
    assert read_tree(project) == START


def test_gitignored_files_are_neither_recorded_nor_touched(project, make_app) -> None:
    (project / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (project / "build").mkdir()
    (project / "build" / "old.o").write_text("object\n")
    (project / "run.log").write_text("log\n")
    (project / "keep.log").write_text("kept log\n")
    (project / "node_modules" / "pkg").mkdir(parents=True)
    (project / "node_modules" / "pkg" / "index.js").write_text("js\n")
    app = make_app(project)
    app.turn("build", shell("rm build/old.o && echo new > build/new.o && echo more >> run.log "
                            "&& echo x > node_modules/pkg/extra.js && echo more >> keep.log"))
    app.run("/rewind last")
    assert (project / "keep.log").read_text() == "kept log\n"  # re-included: restored
    assert not (project / "build" / "old.o").exists()  # ignored: left as the command left it
    assert (project / "build" / "new.o").exists()
    assert (project / "run.log").read_text() == "log\nmore\n"
    assert (project / "node_modules" / "pkg" / "extra.js").exists()
    records = _records(app)
    manifest = records[0]["data"]
    assert "build/" in manifest["ignored"] and "run.log" in manifest["ignored"]
    assert "node_modules/" in manifest["ignored"]
    assert not any(p.startswith(("build/", "node_modules/")) for p in manifest["entries"])


def test_files_over_the_caps_are_named_not_restored(project, make_app) -> None:
    (project / "big.txt").write_text("x" * 500)
    settings = Settings(provider="scripted", checkpoints={"max_file_bytes": 100})
    app = make_app(project, settings)
    app.turn("grow", shell("echo y >> big.txt && echo z >> a.py"))
    first = app.conversation.checkpoints[0]
    point = app.host.hook.workspace_restore_point(conversation=app.conversation,
                                                   checkpoint=first)
    assert point is not None
    assert point.summary == ("1 file: a.py (changed); cannot restore 1 file: big.txt (over "
                             "the 100 bytes size cap)")
    line = point.restore()
    assert line == "Restored 1 file: a.py; not restored: big.txt (over the 100 bytes size cap)."
    assert (project / "a.py").read_text() == "a = 1\n"
    assert (project / "big.txt").read_text() == "x" * 500 + "y\n"
    stored = list((data_dir() / "checkpoints" / app.conversation.id / "blobs").iterdir())
    assert all(p.stat().st_size <= 100 for p in stored)


def test_a_snapshot_stops_storing_contents_at_its_size_cap(project, make_app) -> None:
    for n in range(5):
        (project / f"m{n}.txt").write_text(f"{n}" * 60)
    settings = Settings(provider="scripted", checkpoints={"max_snapshot_bytes": 150})
    app = make_app(project, settings)
    app.turn("touch all", shell("for f in m*.txt; do echo . >> $f; done"))
    records = _records(app)
    entries = records[0]["data"]["entries"]
    capped = [p for p, e in entries.items() if e.get("why") == "over the snapshot's size cap"]
    assert capped and all(entries[p]["sha"] is None for p in capped)
    stored = data_dir() / "checkpoints" / app.conversation.id / "blobs"
    assert sum(p.stat().st_size for p in stored.iterdir()) <= 150
    line = app.run("/rewind last")
    assert "not restored:" in line and "over the snapshot's size cap" in line


def test_old_records_and_their_blobs_are_pruned(project, make_app) -> None:
    app = make_app(project, Settings(provider="scripted", max_checkpoints=3))
    for n in range(5):
        app.turn(f"turn {n}", write_call("a.py", f"a = {n}\n" * 10))
    records = _records(app)
    kept = {c.id for c in app.conversation.checkpoints}
    assert len(records) == 1 and records[0]["checkpoint"] in kept
    blobs = list((data_dir() / "checkpoints" / app.conversation.id / "blobs").iterdir())
    assert [p.read_text() for p in blobs] == ["a = 3\n" * 10]  # only what the record names


def test_the_total_cap_drops_the_oldest_records(project, make_app) -> None:
    settings = Settings(provider="scripted", checkpoints={"max_total_bytes": 2000})
    app = make_app(project, settings)
    for n in range(4):  # each manifest holds the previous turn's 900-byte file
        app.turn(f"turn {n}", shell(f"head -c 900 /dev/zero | tr '\\0' '{n}' > big.bin"))
    folder = data_dir() / "checkpoints" / app.conversation.id / "blobs"
    assert sum(p.stat().st_size for p in folder.iterdir()) <= 2000
    records = _records(app)
    assert len(records) == 2  # turns 2 and 3; turns 0 and 1 went
    assert (project / "big.bin").read_text() == "3" * 900
    app.run("/rewind last")
    assert (project / "big.bin").read_text() == "2" * 900


def test_a_manifest_cut_by_the_file_cap_removes_nothing_it_did_not_see(project,
                                                                        make_app) -> None:
    settings = Settings(provider="scripted", checkpoints={"max_files": 3})
    app = make_app(project, settings)
    app.turn("many", shell("echo n > new.txt && echo more >> a.py"))
    assert _records(app)[0]["data"]["complete"] is False
    out = app.run("/rewind last")
    assert (project / "a.py").read_text() == "a = 1\n"  # among the files it listed
    assert (project / "new.txt").exists()  # it cannot tell this one was created
    assert "new.txt" not in out


def test_wrong_settings_are_reported_and_nothing_is_recorded(project, make_app) -> None:
    settings = Settings(provider="scripted", checkpoints={"max_file_bytes": "big"})
    app = make_app(project, settings, strict=False)
    assert any("[checkpoints] max_file_bytes must be a whole number above 0, not 'big'" in w
               for w in app.warnings)
    app.turn("edit", write_call("a.py", "a = 2\n"))
    assert not (data_dir() / "checkpoints").exists()
    settings = Settings(provider="scripted", checkpoints={"enabled": False})
    app = make_app(project, settings)
    app.turn("edit", write_call("a.py", "a = 3\n"))
    assert not (data_dir() / "checkpoints").exists()


def test_paths_outside_the_workspace_are_not_recorded(project, make_app) -> None:
    outside = project.parent / "outside.txt"
    outside.write_text("outside\n")
    app = make_app(project)
    app.turn("escape", write_call("../outside.txt", "changed\n"), write_call("a.py", "a = 2\n"))
    app.run("/rewind last")
    assert outside.read_text() == "changed\n" and (project / "a.py").read_text() == "a = 1\n"
    assert all("outside" not in p for r in _records(app) for p in r["data"]["entries"])


def test_undo_leaves_a_file_changed_since_the_rewind(project, make_app) -> None:
    app = make_app(project)
    app.turn("edit", write_call("a.py", "a = 2\n"), shell("echo n > new.txt"))
    app.run("/rewind last")
    (project / "a.py").write_text("mine\n")
    out = app.run("/rewind undo")
    assert (project / "a.py").read_text() == "mine\n" and (project / "new.txt").exists()
    assert "left as they are (changed since the rewind): a.py" in out


def test_modes_and_links_come_back(project, make_app) -> None:
    script = project / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (project / "link").symlink_to("a.py")
    app = make_app(project)
    app.turn("break", shell("chmod -x run.sh && rm link && ln -s b.py link && echo x >> run.sh"))
    app.run("/rewind last")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "#!/bin/sh\necho hi\n"
    assert os.readlink(project / "link") == "a.py"


def test_everything_kept_is_private(project, tmp_path, make_app) -> None:
    from checkpoints_helpers import make_repo

    repo = make_repo(tmp_path / "repo", {"r.py": "r = 1\n"})
    for folder in (project, repo):
        app = make_app(folder)
        app.turn("edit", write_call("a.py", "a = 2\n"), shell("echo n > new.txt"))
        app.run("/rewind last")
    base = data_dir() / "checkpoints"
    found = list(base.rglob("*"))
    assert any(p.name.startswith("git-index-") for p in found)
    assert any(p.parent.name == "blobs" for p in found)
    assert stat.S_IMODE(base.stat().st_mode) == 0o700
    assert any(p.parent.name == "git" for p in found)  # the git snapshots' own store
    for path in found:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_file() and "objects" in path.relative_to(base).parts:
            assert mode in (0o400, 0o600), (path, oct(mode))  # git makes objects read-only
        else:
            assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


def _records(app) -> list[dict]:
    folder = data_dir() / "checkpoints" / app.conversation.id / "records"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("r*.json"))]
