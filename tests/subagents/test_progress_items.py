"""``progress_items`` (declared by chatcli-remote): one item per worker of the conversation's
board, for a remote client's plan view: its id, ``type: description`` and its state."""

from __future__ import annotations

from pathlib import Path

import chatcli_remote.plugin as remote_plugin
import chatcli_subagents.plugin as subagents_plugin
from chatcli import Conversation
from chatcli_plugin_records import ProgressItem
from chatcli_subagents.board import registry
from chatcli_testing import Fault, Reply, ToolCall
from subagents_support import ContentServer, chat


def delegate(agent: str, task: str, description: str) -> ToolCall:
    return ToolCall("delegate", {"agent": agent, "task": task, "description": description})


def test_the_workers_of_a_turn_are_the_sessions_progress_items(workspace: Path) -> None:
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[delegate("explore", "TASK-BAD fail", "find the loader"),
                                     delegate("general", "TASK-GOOD work", "fix the test")]),
                   Reply(text="one failed")],
        "TASK-BAD": [Fault(status=400, message="the model refused this request")],
        "TASK-GOOD": [Reply(text="fixed")]})
    with server:
        session = chat(server, workspace, remote_plugin)
        assert session.host.hook.progress_items(conversation=session.conversation) == []
        session.turn("PARENT: two")
    answers = session.host.hook.progress_items(conversation=session.conversation)
    assert answers == [[
        ProgressItem(id="w1", title="explore: find the loader", state="failed"),
        ProgressItem(id="w2", title="general: fix the test", state="done"),
    ]]
    assert session.warned == []
    # a worker's own conversation answers with the same board (its root's)
    worker = registry(session.conversation).find("w2")
    assert worker is not None and worker.conversation is not None
    assert subagents_plugin.progress_items(worker.conversation) == answers[0]


def test_a_stopped_worker_is_failed_and_a_queued_one_queued() -> None:
    conversation = Conversation()
    assert subagents_plugin.progress_items(conversation) is None  # nothing delegated yet
    board = registry(conversation)
    stopped = board.add("explore", "read everything", "task", depth=1)
    stopped.state = "stopped"
    board.add("general", "wait for a place", "task", depth=1)
    assert subagents_plugin.progress_items(conversation) == [
        ProgressItem(id="w1", title="explore: read everything", state="failed"),
        ProgressItem(id="w2", title="general: wait for a place", state="queued"),
    ]
