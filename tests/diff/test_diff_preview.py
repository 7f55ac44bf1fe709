"""What a person is asked about an edit: the coder's file tools preview the unified diff the call
would apply (``Tool.preview``), the engine hands it to the approver (``Verdict.preview``), and a
call whose preview fails — a file not read, text not found — is refused with that error instead
of being asked. Run through the real engine with the coder plugin and a recording approver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chatcli import Approval, Conversation, Engine, Message, PluginHost, Settings, ToolFinished
from chatcli_coder import plugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall

MINUS = "\u2212"


class Asked:
    """An engine whose approver records what it was shown and answers ``answer``."""

    def __init__(self, workspace: Path, answer: bool = True) -> None:
        self.host = PluginHost()
        assert self.host.register(plugin, "coder")
        self.provider = ScriptedProvider()
        self.questions: list[tuple[str, str | None]] = []
        self.answer = answer
        self.conversation = Conversation()
        self.engine = Engine(self.host, Settings(), self.provider, "scripted", "m",
                             workspace=workspace, approver=self._approve)

    def _approve(self, call: Any, tool: Any, verdict: Any) -> Approval:
        self.questions.append((call.name, verdict.preview))
        return Approval(self.answer)

    def call(self, name: str, **arguments: Any) -> Any:
        self.provider.script(Reply(tool_calls=[ToolCall(name, arguments)]), Reply(text="done"))
        events = list(self.engine.run(self.conversation, Message.user("go")))
        (result,) = [e.result for e in events if isinstance(e, ToolFinished)]
        return result


@pytest.fixture
def asked(home: Path, workspace: Path) -> Asked:
    return Asked(workspace)


def test_an_edit_is_asked_with_the_diff_it_would_apply(asked: Asked, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    asked.call("read", path="calc.py")
    assert asked.questions == []  # reading is not asked
    result = asked.call("edit", path="calc.py", old="return a - b", new="return a + b")
    assert asked.questions == [("edit", "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
                                        " def add(a, b):\n-    return a - b\n"
                                        "+    return a + b\n")]
    assert result.content.startswith(f"edited calc.py (1 replacement, +1 {MINUS}1)")


def test_write_multiedit_and_apply_patch_preview_their_diffs(asked: Asked,
                                                            workspace: Path) -> None:
    (workspace / "a.py").write_text("A = 1\nB = 2\n")
    (workspace / "b.py").write_text("from a import A\n")
    (workspace / "old.py").write_text("X = 1\n")
    asked.call("read", path="a.py")
    asked.call("read", path="b.py")
    asked.call("read", path="old.py")

    asked.call("write", path="new.txt", content="one\ntwo")
    assert asked.questions[-1][1] == ("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n"
                                      "+two\n\\ No newline at end of file\n")

    asked.call("multiedit", edits=[{"path": "a.py", "old": "A = 1", "new": "ALPHA = 1"},
                                   {"path": "b.py", "old": "import A", "new": "import ALPHA"}])
    diff = asked.questions[-1][1]
    assert "--- a/a.py\n+++ b/a.py\n" in diff and "-A = 1\n+ALPHA = 1\n" in diff
    assert "--- a/b.py\n+++ b/b.py\n" in diff and "+from a import ALPHA\n" in diff

    patch = ("*** Begin Patch\n*** Update File: old.py\n*** Move to: moved.py\n@@\n-X = 1\n"
             "+X = 2\n*** Delete File: new.txt\n*** End Patch\n")
    result = asked.call("apply_patch", patch=patch)
    diff = asked.questions[-1][1]
    assert "--- a/old.py\n+++ b/moved.py\n" in diff and "-X = 1\n+X = 2\n" in diff, diff
    assert "--- a/new.txt\n+++ /dev/null\n" in diff and "-one\n" in diff, diff
    assert result.content.startswith(f"applied the patch (+1 {MINUS}3): "), result.content
    assert (workspace / "moved.py").read_text() == "X = 2\n"


def test_a_no_after_seeing_the_diff_changes_nothing(home: Path, workspace: Path) -> None:
    asked = Asked(workspace, answer=False)
    (workspace / "calc.py").write_text("x = 1\n")
    asked.call("read", path="calc.py")
    result = asked.call("edit", path="calc.py", old="x = 1", new="x = 2")
    assert asked.questions[-1][1] == "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert result.is_error and "denied by the user" in result.content
    assert (workspace / "calc.py").read_text() == "x = 1\n"


PATCH = "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"

#: Calls that would fail as they run: refused with the run's error, the person never asked.
#: (tool, arguments, the error's type, whether calc.py was read first)
WOULD_FAIL = [
    ("apply_patch", {"patch": PATCH}, "NotReadYet", False),
    ("edit", {"path": "calc.py", "old": "x = 1", "new": "x = 2"}, "NotReadYet", False),
    ("write", {"path": "calc.py", "content": "x = 2\n"}, "NotReadYet", False),
    ("multiedit", {"edits": [{"path": "calc.py", "old": "x = 1", "new": "x = 2"}]},
     "NotReadYet", False),
    ("edit", {"path": "calc.py", "old": "y = 1", "new": "y = 2"}, "NoMatch", True),
    ("apply_patch", {"patch": PATCH.replace("-x = 1", "-z = 1")}, "PatchError", True),
    ("apply_patch", {"patch": "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"},
     "NoSuchFile", True),
    ("write", {"path": ".", "content": "x"}, "NotAFile", True),
    ("write", {"path": "../outside.txt", "content": "x"}, "OutsideWorkspace", True),
    ("write", {"path": "linkdir/through-link.txt", "content": "x"}, "OutsideWorkspace", True),
    ("edit", {"path": "linkdir/canary.txt", "old": "a", "new": "b"}, "OutsideWorkspace", True),
    ("apply_patch", {"patch": "--- /dev/null\n+++ b/linkdir/added.txt\n@@ -0,0 +1 @@\n+x\n"},
     "OutsideWorkspace", True),
]


@pytest.mark.parametrize(("tool", "arguments", "error", "read_first"), WOULD_FAIL,
                         ids=[f"{t}-{e}" for t, _, e, _ in WOULD_FAIL])
def test_a_call_that_would_fail_is_refused_without_asking(
        asked: Asked, workspace: Path, tool: str, arguments: dict[str, Any], error: str,
        read_first: bool) -> None:
    (workspace / "calc.py").write_text("x = 1\n")
    outside = workspace.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "canary.txt").write_text("a\n")
    (workspace / "linkdir").symlink_to(outside)
    if read_first:
        asked.call("read", path="calc.py")
    result = asked.call(tool, **arguments)
    assert asked.questions == []
    assert sorted(p.name for p in outside.iterdir()) == ["canary.txt"]
    assert (outside / "canary.txt").read_text() == "a\n"
    assert not (workspace.parent / "outside.txt").exists()
    assert result.is_error and result.content.startswith(f"{tool} failed: {error}: "), \
        result.content
    assert (workspace / "calc.py").read_text() == "x = 1\n"


def test_a_file_changed_since_it_was_read_is_not_asked_either(asked: Asked,
                                                            workspace: Path) -> None:
    (workspace / "calc.py").write_text("x = 1\n")
    asked.call("read", path="calc.py")
    (workspace / "calc.py").write_text("x = 10\n")
    result = asked.call("apply_patch", patch=PATCH)
    assert asked.questions == [] and "ChangedSinceRead" in result.content
