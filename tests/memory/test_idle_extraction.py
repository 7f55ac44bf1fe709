"""Memory extraction sends the conversation only when the session is idle: never between two
steps of a turn (an agent run's tool calls), never while the approval question of a tool call
is open — it starts after the turn's last answer; and what it spends is counted like any call
(purpose "memory", the cost plugin's ledger)."""

from __future__ import annotations

import threading
import time
from typing import Any

from chatcli import Risk, Tool, hookimpl
from chatcli_context.cost.plugin import CostPlugin
from chatcli_testing import Reply, ToolCall
from memory_support import chat_requests, extraction, extraction_requests, wait_for
from pydantic import BaseModel


class _Args(BaseModel):
    path: str


class WriteTool:
    """A tool of the ``write`` class: every call asks the person first."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(Tool(name="touch", description="Create a file", args_model=_Args,
                      risk=Risk.WRITE, run=lambda args, ctx: f"created {args.path}"))


#: extraction would be due after every answer: 2 new messages, no cooldown
EAGER = {"min_messages": 2, "cooldown": 0}


def test_no_extraction_while_an_approval_question_is_open_or_between_steps(
        chat: Any, openai_server: Any) -> None:
    asked: list[int] = []

    def approver(call: Any, tool: Any, verdict: Any) -> bool:
        time.sleep(0.5)  # time enough for an extraction started by the step's answer to send
        asked.append(len(extraction_requests(openai_server)))
        return True

    openai_server.script(
        Reply(tool_calls=[ToolCall("touch", {"path": "a.txt"})]),
        Reply(tool_calls=[ToolCall("touch", {"path": "b.txt"})]),
        Reply(text="both files exist"),
        Reply(text=extraction(long_term=[{"text": "the files are a.txt and b.txt"}])))
    session = chat(memory=EAGER, extra_plugins=(WriteTool(),), approver=approver)
    finished = session.turn("make two files")
    assert finished.error is None and finished.text == "both files exist"
    assert asked == [0, 0]  # two questions, no extraction sent while either was open
    wait_for(lambda: extraction_requests(openai_server))
    session.wait()
    # the extraction came after the turn's three calls, and read the whole turn
    kinds = ["extraction" if r in extraction_requests(openai_server) else "turn"
             for r in openai_server.requests if r.json]
    assert kinds == ["turn", "turn", "turn", "extraction"]
    sent = extraction_requests(openai_server)[0].json["messages"][1]["content"]
    assert "both files exist" in sent
    assert session.runtime.worker.last_outcome == "ok: 1 stored"


def test_the_slow_timer_waits_while_a_turn_is_running(chat: Any, openai_server: Any) -> None:
    """The timer's tick comes while the approval question is open: it sends nothing then."""
    release = threading.Event()
    asked: list[int] = []

    def approver(call: Any, tool: Any, verdict: Any) -> bool:
        release.wait(1.0)  # several timer ticks (every 0.05 s) pass while it is open
        asked.append(len(extraction_requests(openai_server)))
        return True

    openai_server.script(Reply(text="hello"),
                         Reply(tool_calls=[ToolCall("touch", {"path": "a.txt"})]),
                         Reply(text="done"), Reply(text="{}"))
    session = chat(memory={**EAGER, "interval": 0.05, "min_messages": 4},
                   extra_plugins=(WriteTool(),), approver=approver)
    session.turn("hi")  # 2 new messages: below min_messages, nothing yet
    session.turn("make a file")
    assert asked == [0]
    session.wait()
    assert len(chat_requests(openai_server)) == 3


def test_what_extraction_spends_is_counted_under_memory(chat: Any, openai_server: Any) -> None:
    cost = CostPlugin()
    openai_server.script(
        Reply(text="an answer", usage={"input_tokens": 100, "output_tokens": 10}),
        Reply(text="{}", usage={"input_tokens": 700, "output_tokens": 30}))
    session = chat(memory=EAGER, extra_plugins=(cost,))
    session.turn("hello")
    wait_for(lambda: extraction_requests(openai_server))
    session.wait()
    wait_for(lambda: len(cost.ledger(session.conversation).purposes) == 2)
    ledger = cost.ledger(session.conversation)
    by_purpose = {p.name: (p.calls, p.usage.input_tokens, p.usage.output_tokens)
                  for p in ledger.purposes}
    assert by_purpose == {"chat": (1, 100, 10), "memory": (1, 700, 30)}
    assert sum(line.calls for line in ledger.lines) == len(openai_server.requests) == 2
