"""Two real workers (the delegate tool, side by side) editing the same file with the coder's
tools: the second waits for the first's claim; with a short ``[agents] lock_wait`` its edit
fails naming the first worker, with a long one it goes on once the first worker ended. The
wire server holds a script back until the other worker got where the case needs it, so the
order is certain, not a race."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chatcli_coder.plugin as coder_plugin
import pytest
from chatcli import Approval, ToolResultPart
from chatcli_subagents.board import REGISTRY
from chatcli_testing import Reply, ToolCall
from chatcli_workspace import holder
from subagents_support import ContentServer, chat, content_text


class GatedServer(ContentServer):
    """Answers like ContentServer, but waits for ``gates[(key, step)]()`` to return first."""

    def __init__(self, scripts: dict[str, list[Any]],
                 gates: dict[tuple[str, int], Callable[[], None]]) -> None:
        super().__init__(scripts)
        self.gates = gates

    def choose(self, body: dict[str, Any]) -> tuple[str, Any]:
        key, item = super().choose(body)
        messages = body.get("messages") or []
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].get("role") == "user" and key in content_text(
                    messages[index].get("content")):
                step = sum(1 for m in messages[index:] if m.get("role") == "assistant")
                gate = self.gates.get((key, step))
                if gate is not None:
                    gate()
                break
        return key, item


def until(test: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline, "the other worker never got there"
        time.sleep(0.02)


def delegate(task: str, description: str) -> ToolCall:
    return ToolCall("delegate", {"agent": "general", "task": task, "description": description})


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    return root


def scripts(second_edit_ends: str) -> dict[str, list[Any]]:
    return {
        "PARENT": [Reply(tool_calls=[delegate("TASK-ONE fix alpha", "alpha"),
                                     delegate("TASK-TWO fix beta", "beta")]),
                   Reply(text="both reported")],
        "TASK-ONE": [Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                     Reply(tool_calls=[ToolCall("edit", {"path": "notes.txt", "old": "alpha",
                                                         "new": "ALPHA"})]),
                     Reply(text="alpha fixed")],
        "TASK-TWO": [Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                     Reply(tool_calls=[ToolCall("edit", {"path": "notes.txt", "old": "beta",
                                                         "new": "BETA"})]),
                     Reply(text=second_edit_ends)]}


def worker_results(session: Any, worker_id: str) -> list[str]:
    """The tool results in a worker's own conversation."""
    worker = session.conversation.stash[REGISTRY].find(worker_id)
    assert worker is not None and worker.conversation is not None
    return [part.content for message in worker.conversation.messages()
            for part in message.parts if isinstance(part, ToolResultPart)]


def test_a_worker_waits_for_the_file_then_is_told_which_worker_holds_it(ws: Path) -> None:
    notes = ws / "notes.txt"
    server: GatedServer

    def one_holds_until_two_failed() -> None:  # TASK-ONE's last answer (it holds the file)
        until(lambda: len(server.of("TASK-TWO")) >= 3)

    def two_reads_after_one_edited() -> None:  # TASK-TWO's first answer
        until(lambda: notes.read_text().startswith("ALPHA"))

    server = GatedServer(scripts("beta left alone"), {
        ("TASK-ONE", 2): one_holds_until_two_failed,
        ("TASK-TWO", 0): two_reads_after_one_edited})
    with server:
        session = chat(server, ws, coder_plugin, interactive=True,
                       approver=lambda *a: Approval(True), agents={"lock_wait": 0.3})
        finished = session.turn("PARENT: fix both")
    assert finished.text == "both reported"
    two = worker_results(session, "w2")
    assert two[1] == ("edit failed: FileBusy: 'notes.txt' is being edited by worker w1 "
                      "(general); wait for it to finish or work on another file (waited 0.3 s)")
    assert notes.read_text() == "ALPHA\nbeta\n"
    assert holder(notes) is None  # both workers ended: every claim given up


def test_with_a_longer_wait_the_worker_goes_on_once_the_other_ended(ws: Path) -> None:
    notes = ws / "notes.txt"
    server: GatedServer

    def one_ends_after_two_asked_to_edit() -> None:
        until(lambda: len(server.of("TASK-TWO")) >= 2)
        time.sleep(0.3)  # TASK-TWO's edit is waiting for the claim now

    def two_reads_after_one_edited() -> None:
        until(lambda: notes.read_text().startswith("ALPHA"))

    server = GatedServer(scripts("beta fixed"), {
        ("TASK-ONE", 2): one_ends_after_two_asked_to_edit,
        ("TASK-TWO", 0): two_reads_after_one_edited})
    with server:
        session = chat(server, ws, coder_plugin, interactive=True,
                       approver=lambda *a: Approval(True), agents={"lock_wait": 20})
        started = time.monotonic()
        session.turn("PARENT: fix both")
        took = time.monotonic() - started
    two = worker_results(session, "w2")
    assert two[1].startswith("edited notes.txt (1 replacement, +1 −1)"), two[1]
    assert notes.read_text() == "ALPHA\nBETA\n"  # both edits, neither lost
    assert took < 15  # woken when w1 ended, not at the 20 s bound
