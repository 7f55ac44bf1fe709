"""How the REPL shows a compaction of the view: one dim ``⟲`` line between the events of the
turn (and an event it does not know is skipped, never a crash); in a real terminal, the
threshold firing mid-chat and ``/compact`` itself."""

from __future__ import annotations

import io
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from chatcli import Compacted, Settings, TextDelta, TurnFinished, Usage
from chatcli_plugin_records import CompactionReport
from chatcli_repl.turn import run_turn
from chatcli_repl.view import View
from chatcli_testing import Reply
from rich.console import Console

from .terminal import Terminal


class _Newer:
    """An event a newer kernel might yield."""


def _app(events: list[Any]) -> Any:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    session = SimpleNamespace(run=lambda prompt, cancel: iter(events), provider_name="p",
                              model="m")
    return SimpleNamespace(cancel=None, view=View(console), settings=Settings(markdown=False),
                           console=console, flush_answer=None, invalidate=lambda: None,
                           session=session)


def test_a_compaction_is_one_line_and_unknown_events_are_skipped() -> None:
    report = CompactionReport(tokens_before=91_000, tokens_after=22_000)
    report.compactions = [SimpleNamespace(strategy="trim"), SimpleNamespace(strategy="summarise")]
    app = _app([Compacted(report), _Newer(), TextDelta("the answer"),
                TurnFinished(stop_reason="end_turn", usage=Usage())])
    finished = run_turn(app, None)
    assert finished is not None
    out = app.console.file.getvalue()
    assert "⟲ compacted with trim, summarise: ~91,000 → ~22,000 tokens\n" in out
    assert out.index("⟲") < out.index("the answer")


def _summaries(server: Any) -> None:
    """Answer compaction's summary calls wherever they come."""
    take = server.next_item

    def next_item() -> Any:
        last = server.requests[-1].json if server.requests else {}
        system = str((last.get("messages") or [{}])[0].get("content", ""))
        if system.startswith("You summarise part of a conversation"):
            return Reply(text="## Current task state\n- chatting about the weather")
        return take()

    server.next_item = next_item


@pytest.mark.terminal
def test_the_threshold_and_compact_show_in_the_chat(start_chat: Callable[..., Terminal],
                                                    openai_server: Any) -> None:
    _summaries(openai_server)
    quiet = {"input_tokens": 0, "output_tokens": 5}  # keep the local estimate uncorrected
    openai_server.script(*[Reply(text=f"answer {i} " + "word " * 300, usage=quiet)
                           for i in range(6)])
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_CONTEXT_WINDOW="2000",
                      CHATCLI_COMPACT_KEEP_RECENT="2",
                      CHATCLI_PLUGINS="openai,repl,sessions,compaction")
    for i in range(6):
        term.type(f"question {i}")
        screen = term.wait_for(lambda s, i=i: f"answer {i} word" in s or "⟲" in s, timeout=20)
        if "⟲ compacted with" in screen:
            break
    screen = term.wait_for("⟲ compacted with", timeout=20)
    assert "⟲ compacted with summarise: ~" in screen and " tokens" in screen
    term.type("/compact status")
    term.wait_for("compactions in force: 1 (summarise 1)")
    term.type("/compact undo")
    term.wait_for("⟲ undid summarise")
