"""Parallel workers writing the same file through the real coder tools (issue 19): the second
waits for the first's claim, then gets a one-line error naming the worker; once the first is
released it goes on, and no write is lost (a change made meanwhile is caught by the
read-before-edit rule instead of being overwritten)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli import Conversation, Settings, ToolResultPart
from chatcli_workspace import claims_of, holder, release_claims
from coder_support import Agent

Workers = tuple[Conversation, Conversation]


@pytest.fixture
def root() -> Conversation:
    return Conversation(title="session")


@pytest.fixture
def workers(root: Conversation) -> Iterator[Workers]:
    """Two workers of ``root`` as the delegation tool makes them (released at the end)."""
    w1 = Conversation(parent=root, title="w1 general: fix alpha",
                      metadata={"subagent": {"id": "w1", "type": "general"}})
    w2 = Conversation(parent=root, title="w2 explore: fix beta",
                      metadata={"subagent": {"id": "w2", "type": "explore"}})
    yield w1, w2
    release_claims(w1)
    release_claims(w2)


def waits(seconds: float) -> Settings:
    return Settings(agents={"lock_wait": seconds})


class Background:
    """A tool call made from another thread (a worker running beside the others)."""

    def __init__(self, agent: Agent, name: str, **arguments: Any) -> None:
        self.result: ToolResultPart | None = None
        self.ended = 0.0
        self.thread = threading.Thread(target=self._run, args=(agent, name, arguments))
        self.started = time.monotonic()
        self.thread.start()

    def _run(self, agent: Agent, name: str, arguments: dict[str, Any]) -> None:
        self.result = agent.call(name, **arguments)
        self.ended = time.monotonic()

    def join(self) -> ToolResultPart:
        self.thread.join(20)
        assert not self.thread.is_alive()
        assert self.result is not None
        return self.result


def test_a_second_worker_waits_then_is_told_who_holds_the_file(
        workspace: Path, workers: Workers) -> None:
    w1, w2 = workers
    notes = workspace / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    first, second = Agent(workspace, waits(0.5), w1), Agent(workspace, waits(0.5), w2)
    first.ok("read", path="notes.txt")
    second.ok("read", path="notes.txt")
    first.ok("edit", path="notes.txt", old="alpha", new="ALPHA")
    assert holder(notes) == "worker w1 (general)"

    call = Background(second, "edit", path="notes.txt", old="beta", new="BETA")
    result = call.join()
    assert result.is_error
    assert call.ended - call.started >= 0.5  # it waited for the bound
    assert result.content == (
        "edit failed: FileBusy: 'notes.txt' is being edited by worker w1 (general); wait for "
        "it to finish or work on another file (waited 0.5 s)")
    assert notes.read_text() == "ALPHA\nbeta\n"


def test_after_the_release_the_waiter_goes_on_and_no_write_is_lost(
        workspace: Path, workers: Workers) -> None:
    w1, w2 = workers
    notes = workspace / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    first, second = Agent(workspace, waits(10), w1), Agent(workspace, waits(10), w2)
    first.ok("read", path="notes.txt")
    second.ok("read", path="notes.txt")
    first.ok("edit", path="notes.txt", old="alpha", new="ALPHA")

    call = Background(second, "edit", path="notes.txt", old="beta", new="BETA")
    time.sleep(0.4)
    assert call.thread.is_alive()  # waiting for w1's claim
    released = time.monotonic()
    assert release_claims(w1) == [str(notes.resolve())]
    result = call.join()
    assert call.ended - released < 3.0  # woken by the release, not by the 10 s bound
    # w2 read the file before w1 changed it: its edit is refused, not applied over w1's
    assert result.is_error and "ChangedSinceRead" in result.content
    assert notes.read_text() == "ALPHA\nbeta\n"
    assert holder(notes) == "worker w2 (explore)"  # w2 holds it now

    second.ok("read", path="notes.txt")
    second.ok("edit", path="notes.txt", old="beta", new="BETA")
    assert notes.read_text() == "ALPHA\nBETA\n"  # both edits kept
    # and now w1 is the one that waits
    first.ok("read", path="notes.txt")
    refused = Agent(workspace, waits(0.2), w1).fails("write", path="notes.txt", content="x\n")
    assert "being edited by worker w2 (explore)" in refused
    assert notes.read_text() == "ALPHA\nBETA\n"


def test_a_waiter_that_read_the_current_text_writes_as_soon_as_the_file_is_free(
        workspace: Path, workers: Workers) -> None:
    w1, w2 = workers
    notes = workspace / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    first, second = Agent(workspace, waits(10), w1), Agent(workspace, waits(10), w2)
    first.ok("read", path="notes.txt")
    first.ok("edit", path="notes.txt", old="alpha", new="ALPHA")
    second.ok("read", path="notes.txt")  # reading a claimed file is fine: it sees w1's edit
    call = Background(second, "edit", path="notes.txt", old="beta", new="BETA")
    time.sleep(0.3)
    assert call.thread.is_alive() and notes.read_text() == "ALPHA\nbeta\n"
    release_claims(w1)
    result = call.join()
    assert not result.is_error, result.content
    assert result.content.startswith("edited notes.txt (1 replacement, +1 −1)")
    assert notes.read_text() == "ALPHA\nBETA\n"


def test_two_workers_creating_the_same_new_file_never_overwrite_each_other(
        workspace: Path, workers: Workers) -> None:
    w1, w2 = workers
    first, second = Agent(workspace, waits(10), w1), Agent(workspace, waits(10), w2)
    first.ok("write", path="src/new.py", content="one = 1\n")
    call = Background(second, "write", path="src/new.py", content="two = 2\n")
    time.sleep(0.3)
    assert call.thread.is_alive()
    release_claims(w1)
    result = call.join()
    # the file w2 meant to create now exists: it must read it before replacing it
    assert result.is_error and "NotReadYet" in result.content
    assert (workspace / "src/new.py").read_text() == "one = 1\n"


def test_multiedit_and_apply_patch_claim_every_file_they_change(
        workspace: Path, workers: Workers) -> None:
    w1, w2 = workers
    (workspace / "a.txt").write_text("a\n")
    (workspace / "b.txt").write_text("b\n")
    first, second = Agent(workspace, waits(0.2), w1), Agent(workspace, waits(0.2), w2)
    for agent in (first, second):
        agent.ok("read", path="a.txt")
        agent.ok("read", path="b.txt")
    first.ok("edit", path="b.txt", old="b", new="B")

    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n"
             "*** Update File: b.txt\n@@\n-b\n+bb\n*** End Patch\n")
    refused = second.fails("apply_patch", patch=patch)
    assert "FileBusy: 'b.txt' is being edited by worker w1 (general)" in refused
    refused = second.fails("multiedit", edits=[
        {"path": "a.txt", "old": "a", "new": "A"}, {"path": "b.txt", "old": "b", "new": "bb"}])
    assert "FileBusy: 'b.txt' is being edited by worker w1 (general)" in refused
    assert (workspace / "a.txt").read_text() == "a\n"  # all or nothing
    assert (workspace / "b.txt").read_text() == "B\n"

    release_claims(w1)
    second.ok("read", path="b.txt")
    second.ok("apply_patch", patch=patch.replace("-b\n+bb", "-B\n+BB"))
    assert (workspace / "a.txt").read_text() == "A\n"
    assert (workspace / "b.txt").read_text() == "BB\n"
    assert claims_of(w2) == sorted(str((workspace / n).resolve()) for n in ("a.txt", "b.txt"))


def test_the_users_own_agent_waits_for_a_worker_but_holds_nothing(
        workspace: Path, root: Conversation, workers: Workers) -> None:
    w1, _w2 = workers
    notes = workspace / "notes.txt"
    notes.write_text("alpha\n")
    worker, own = Agent(workspace, waits(0.2), w1), Agent(workspace, waits(0.2), root)
    worker.ok("read", path="notes.txt")
    own.ok("read", path="notes.txt")
    worker.ok("edit", path="notes.txt", old="alpha", new="ALPHA")
    refused = own.fails("edit", path="notes.txt", old="ALPHA", new="x")
    assert "being edited by worker w1 (general)" in refused
    release_claims(w1)
    own.ok("read", path="notes.txt")
    own.ok("edit", path="notes.txt", old="ALPHA", new="omega")
    assert holder(notes) is None  # the root conversation holds nothing
    assert notes.read_text() == "omega\n"


def test_a_lock_wait_that_is_not_a_number_falls_back_to_the_default(workspace: Path) -> None:
    from chatcli import ToolContext
    from chatcli_coder._files import LOCK_WAIT, lock_wait

    for table, expected in (({}, LOCK_WAIT), ({"lock_wait": "soon"}, LOCK_WAIT),
                            ({"lock_wait": -1}, LOCK_WAIT), ({"lock_wait": True}, LOCK_WAIT),
                            ({"lock_wait": 2}, 2.0)):
        context = ToolContext(workspace=Path(workspace), settings=Settings(agents=table))
        assert lock_wait(context) == expected
