"""read and write: ranges, budgets, binary and huge files, atomic writes, confinement, and the
read-before-edit rule."""

from __future__ import annotations

import os
import stat

import pytest
from chatcli import Conversation, Settings
from coder_support import Agent


def lines(count: int, width: int = 10) -> str:
    return "".join(f"line {n:0{width}d}\n" for n in range(1, count + 1))


# ------------------------------------------------------------------------------ read


def test_read_numbers_lines_and_takes_ranges_head_and_tail(agent, workspace):
    (workspace / "a.txt").write_text(lines(50, 2))
    whole = agent.ok("read", path="a.txt")
    assert whole.splitlines()[0] == "     1\tline 01"
    assert whole.splitlines()[-1] == "    50\tline 50"
    assert "shown" not in whole  # nothing left out, nothing to say

    middle = agent.ok("read", path="a.txt", offset=10, limit=3)
    assert middle.splitlines()[:3] == ["    10\tline 10", "    11\tline 11", "    12\tline 12"]
    assert "[lines 10-12 of 50 shown; read on with offset=13; earlier lines: offset=1]" in middle

    assert agent.ok("read", path="a.txt", head=2).splitlines()[:2] == [
        "     1\tline 01", "     2\tline 02"]
    tail = agent.ok("read", path="a.txt", tail=2)
    assert tail.splitlines()[:2] == ["    49\tline 49", "    50\tline 50"]

    past = agent.fails("read", path="a.txt", offset=51)
    assert "has 50 lines; offset 51 is past its end" in past
    both = agent.fails("read", path="a.txt", head=1, tail=1)
    assert "head or tail, not both" in both


def test_read_fits_the_output_limit_and_says_how_to_continue(workspace):
    (workspace / "big.txt").write_text(lines(20_000))
    agent = Agent(workspace, Settings(tool_output_max=5_000))
    text = agent.ok("read", path="big.txt")
    assert len(text) <= 5_000
    shown_last = int(text.splitlines()[-2].split("\t")[0])
    assert shown_last < 2_000
    assert (f"[lines 1-{shown_last:,} of 20,000 shown (the output limit was reached); read on "
            f"with offset={shown_last + 1}]") in text
    following = agent.ok("read", path="big.txt", offset=shown_last + 1, limit=5)
    assert following.startswith(f"{shown_last + 1:>6}\tline {shown_last + 1:010d}")


def test_read_cuts_very_long_lines_and_says_so(agent, workspace):
    (workspace / "min.js").write_text("x" * 5_000 + "\nshort\n")
    text = agent.ok("read", path="min.js")
    first = text.splitlines()[0]
    assert first.endswith("… [3,000 more characters]") and len(first) < 2_100
    assert "1 long line(s) were cut at 2,000 characters" in text


def test_binary_files_are_refused_with_what_they_are(agent, workspace):
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (workspace / "blob.bin").write_bytes(b"abc\x00def" * 100)
    png = agent.fails("read", path="logo.png")
    assert "BinaryFile: 'logo.png' is a PNG image (1,032 bytes), not text" in png
    assert "binary data" in agent.fails("read", path="blob.bin")


def test_huge_files_are_read_in_ranges_without_loading_them(workspace, monkeypatch):
    import chatcli_coder._common as common
    import chatcli_coder._files as files

    # a "huge" file is one past the in-memory limit; lower it rather than write 64 MB
    monkeypatch.setattr(common, "HASH_MAX_BYTES", 10_000)
    monkeypatch.setattr(files, "HASH_MAX_BYTES", 10_000)
    (workspace / "huge.log").write_text(lines(5_000))
    agent = Agent(workspace)
    text = agent.ok("read", path="huge.log", offset=4_000, limit=2)
    assert text.splitlines()[:2] == ["  4000\tline 0000004000", "  4001\tline 0000004001"]
    assert "of 5,000 shown" in text
    assert "'huge.log' is a large file (80,000 bytes): read it in ranges" in text
    assert agent.ok("read", path="huge.log", tail=1).startswith("  5000\tline 0000005000")


def test_missing_files_name_the_closest_ones(agent, workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "parser.py").write_text("x\n")
    (workspace / "lib").mkdir()
    (workspace / "lib" / "util.py").write_text("x\n")
    near = agent.fails("read", path="src/parsr.py")
    assert "NoSuchFile: no file or folder 'src/parsr.py'; did you mean src/parser.py?" in near
    elsewhere = agent.fails("read", path="util.py")
    assert "did you mean lib/util.py?" in elsewhere
    folder = agent.fails("read", path="src")
    assert "'src' is a folder: list it with the tree or glob tool" in folder


def test_an_empty_file_is_said_to_be_empty(agent, workspace):
    (workspace / "empty.txt").write_text("")
    assert agent.ok("read", path="empty.txt") == "'empty.txt' is empty (0 bytes)"


# ------------------------------------------------------------------------------ confinement


@pytest.mark.parametrize("tool,arguments", [
    ("read", {"path": "../outside/secret.txt"}),
    ("read", {"path": "link-to-file"}),
    ("read", {"path": "link-to-dir/secret.txt"}),
    ("write", {"path": "link-to-dir/new.txt", "content": "x"}),
    ("write", {"path": "/etc/chatcli-test", "content": "x"}),
    ("edit", {"path": "link-to-file", "old": "s", "new": "t"}),
    ("search", {"pattern": "s", "path": "link-to-dir"}),
    ("tree", {"path": ".."}),
    ("glob", {"pattern": "*", "path": "link-to-dir"}),
    ("exec", {"command": "true", "cwd": "link-to-dir"}),
])
def test_paths_and_links_leading_out_of_the_workspace_are_refused(tmp_path, workspace, tool,
                                                                   arguments):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret words")
    os.symlink(outside / "secret.txt", workspace / "link-to-file")
    os.symlink(outside, workspace / "link-to-dir")
    agent = Agent(workspace)
    error = agent.fails(tool, **arguments)
    assert "OutsideWorkspace" in error and "is outside the workspace" in error
    assert "secret words" not in error
    assert not (outside / "new.txt").exists()
    assert (outside / "secret.txt").read_text() == "secret words"


def test_allowed_dirs_open_a_folder_outside_the_workspace(tmp_path, workspace):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("shared notes\n")
    agent = Agent(workspace, Settings(allowed_dirs=[str(shared)]))
    assert "shared notes" in agent.ok("read", path=str(shared / "notes.txt"))
    agent.ok("write", path=str(shared / "out.txt"), content="written\n")
    assert (shared / "out.txt").read_text() == "written\n"


# ------------------------------------------------------------------------------ write


def test_write_creates_folders_replaces_atomically_and_keeps_permissions(agent, workspace):
    created = agent.ok("write", path="deep/er/new.sh", content="echo hi\n")
    assert created == "created deep/er/new.sh (1 line, 8 bytes)"
    script = workspace / "deep" / "er" / "new.sh"
    script.chmod(0o755)
    agent.ok("read", path="deep/er/new.sh")
    replaced = agent.ok("write", path="deep/er/new.sh", content="echo bye\necho again\n")
    assert replaced.startswith("replaced deep/er/new.sh (2 lines")
    assert script.read_text() == "echo bye\necho again\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert sorted(os.listdir(script.parent)) == ["new.sh"]  # no temporary file left behind


def test_write_leaves_the_old_file_whole_when_the_write_fails(agent, workspace, monkeypatch):
    target = workspace / "keep.txt"
    target.write_text("precious\n")
    agent.ok("read", path="keep.txt")

    def broken_replace(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    error = agent.fails("write", path="keep.txt", content="half")
    assert "disk full" in error
    assert target.read_text() == "precious\n"
    assert os.listdir(workspace) == ["keep.txt"]


def test_write_into_a_symlink_inside_the_workspace_changes_its_target(agent, workspace):
    (workspace / "real.txt").write_text("old\n")
    os.symlink("real.txt", workspace / "alias.txt")
    agent.ok("read", path="alias.txt")
    agent.ok("write", path="alias.txt", content="new\n")
    assert os.path.islink(workspace / "alias.txt")
    assert (workspace / "real.txt").read_text() == "new\n"


# ------------------------------------------------------------------------------ read tracking


def test_files_must_be_read_in_this_conversation_before_they_change(agent, workspace):
    (workspace / "a.py").write_text("x = 1\n")
    for tool, arguments in [
        ("write", {"path": "a.py", "content": "x = 2\n"}),
        ("edit", {"path": "a.py", "old": "x = 1", "new": "x = 2"}),
        ("multiedit", {"edits": [{"path": "a.py", "old": "x = 1", "new": "x = 2"}]}),
        ("apply_patch", {"patch": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"}),
    ]:
        error = agent.fails(tool, **arguments)
        assert "NotReadYet" in error, tool
        assert "'a.py' has not been read in this conversation" in error, tool
        assert "read it first" in error
    assert (workspace / "a.py").read_text() == "x = 1\n"
    agent.ok("read", path="a.py")
    agent.ok("edit", path="a.py", old="x = 1", new="x = 2")
    # the tool's own change counts as read: a second edit needs no new read
    agent.ok("edit", path="a.py", old="x = 2", new="x = 3")
    assert (workspace / "a.py").read_text() == "x = 3\n"


def test_a_file_changed_on_disk_since_it_was_read_must_be_read_again(agent, workspace):
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    agent.ok("read", path="a.py")
    target.write_text("x = 1  # the user's comment\n")
    error = agent.fails("edit", path="a.py", old="x = 1", new="x = 2")
    assert "ChangedSinceRead: 'a.py' changed on disk since you read it" in error
    assert target.read_text() == "x = 1  # the user's comment\n"
    agent.ok("read", path="a.py")
    agent.ok("edit", path="a.py", old="x = 1", new="x = 2")


def test_a_touched_but_unchanged_file_still_counts_as_read(agent, workspace):
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    agent.ok("read", path="a.py")
    os.utime(target, (1_000_000, 1_000_000))
    agent.ok("edit", path="a.py", old="x = 1", new="x = 2")


def test_a_resumed_conversation_starts_with_nothing_read(workspace):
    (workspace / "a.py").write_text("x = 1\n")
    first = Agent(workspace)
    first.ok("read", path="a.py")
    # the same conversation restored from storage is a new object with the same id
    resumed = Agent(workspace, conversation=Conversation(id=first.conversation.id))
    error = resumed.fails("edit", path="a.py", old="x = 1", new="x = 2")
    assert "a resumed conversation starts with nothing read" in error
    # and another conversation's reads never count
    other = Agent(workspace)
    assert "NotReadYet" in other.fails("write", path="a.py", content="")
    first.ok("edit", path="a.py", old="x = 1", new="x = 2")


def test_write_of_a_new_file_needs_no_read(agent, workspace):
    agent.ok("write", path="fresh.txt", content="hi\n")
    agent.ok("edit", path="fresh.txt", old="hi", new="hello")
    assert (workspace / "fresh.txt").read_text() == "hello\n"


def test_parallel_reads_run_side_by_side_and_all_count(agent, workspace):
    for name in "abcd":
        (workspace / f"{name}.txt").write_text(f"{name}\n")
    results = agent.turn(*[("read", {"path": f"{name}.txt"}) for name in "abcd"])
    assert [r.content.split("\t")[1].strip() for r in results] == list("abcd")
    agent.ok("multiedit", edits=[{"path": f"{name}.txt", "old": name, "new": name.upper()}
                                 for name in "abcd"])
    assert (workspace / "d.txt").read_text() == "D\n"
