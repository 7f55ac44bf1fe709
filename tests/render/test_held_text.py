"""Text held back by the preview's pacing is drawn after a pause (the timer), not only when the
next chunk comes: a stream that pauses mid-answer shows everything that arrived."""

from __future__ import annotations

import io
import threading
import time

import pytest
from chatcli_render import MarkdownStream
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console


def _console() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=100, height=30)


def _text(renderable: object) -> str:
    if renderable is None:
        return ""
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(renderable)
    lines = console.file.getvalue().strip().splitlines()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in lines)


def _wait_for(predicate, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


#: (plain, chunks that arrive at once, what the preview must show after the pause)
PAUSES = [
    (False, ["First l", "ine of the answer, ", "and more of it"],
     "First line of the answer, and more of it"),
    (True, ["First l", "ine of the answer, ", "and more of it"],
     "First line of the answer, and more of it"),
    (False, ["Done.\n\nSecond par", "agraph is still ", "growing"],
     "Done.\n\nSecond paragraph is still growing"),
    (True, ["Done.\nSecond li", "ne is still ", "growing"], "Second line is still growing"),
]


@pytest.mark.parametrize(("plain", "chunks", "shown"), PAUSES)
def test_held_back_text_is_drawn_after_a_pause(plain: bool, chunks: list[str],
                                               shown: str) -> None:
    drawn: list[object] = []
    stream = MarkdownStream(_console(), plain=plain, preview=drawn.append, min_interval=10,
                            flush_after=0.1)
    for chunk in chunks:  # the first is drawn; the others come too soon after it
        stream.feed(chunk)
    assert _text(drawn[-1]) != shown  # held back for now
    assert _wait_for(lambda: _text(drawn[-1]) == shown)  # the pause: the timer draws it
    count = len(drawn)
    time.sleep(0.3)
    assert len(drawn) == count  # once per pause: nothing new, nothing drawn again
    stream.finish()
    assert drawn[-1] is None


def test_without_the_timer_held_back_text_waits_for_the_next_chunk() -> None:
    drawn: list[object] = []
    stream = MarkdownStream(_console(), preview=drawn.append, min_interval=10,
                            flush_after=None)
    stream.feed("First l")
    stream.feed("ine")
    time.sleep(0.3)
    assert _text(drawn[-1]) == "First l"
    stream.finish()


def test_the_timer_ends_with_the_stream_and_draws_nothing_after_it() -> None:
    drawn: list[object] = []
    stream = MarkdownStream(_console(), preview=drawn.append, min_interval=10,
                            flush_after=0.2)
    stream.feed("First l")
    stream.feed("ine")
    timer = stream._timer
    assert timer is not None and timer.is_alive()
    stream.finish()
    timer.join(2)
    assert not timer.is_alive()
    assert drawn[-1] is None  # finish cleared the preview; the timer did not draw after it


def test_a_quick_answer_starts_no_timer() -> None:
    before = threading.active_count()
    stream = MarkdownStream(_console(), preview=lambda r: None, flush_after=0.1)
    stream.feed("All of it at once.")
    assert stream._timer is None and threading.active_count() == before
    stream.finish()


def test_a_steady_stream_is_drawn_by_its_chunks_and_the_timer_adds_no_draw_per_chunk(
        ) -> None:
    # 200 chunks 5 ms apart (1 s): previews are paced at 0.1 s by the chunks themselves;
    # the timer only fires in a pause longer than flush_after, which never comes.
    drawn: list[object] = []
    stream = MarkdownStream(_console(), preview=drawn.append, flush_after=0.2)
    for _ in range(200):
        stream.feed("word ")
        time.sleep(0.005)
    assert len([d for d in drawn if d is not None]) <= 16
    stream.finish()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs")) | st.just("\n"),
                       min_size=1, max_size=12), min_size=1, max_size=12))
def test_after_a_pause_the_preview_holds_everything_not_yet_printed(chunks: list[str]) -> None:
    # Whatever arrives, after a pause the preview (or the scrollback) has it all: the plain
    # stream writes whole lines out and previews the rest.
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, height=30)
    drawn: list[object] = []
    stream = MarkdownStream(console, plain=True, preview=drawn.append, min_interval=10,
                            flush_after=0.02)
    for chunk in chunks:
        stream.feed(chunk)
    text = "".join(chunks)
    rest = text[text.rfind("\n") + 1:]
    if rest:
        assert _wait_for(lambda: drawn and drawn[-1] is not None
                         and drawn[-1].plain == rest)  # type: ignore[union-attr]
    assert out.getvalue() == text[: text.rfind("\n") + 1]
    stream.finish()


def test_a_live_region_draws_held_back_text_after_a_pause_too() -> None:
    # chatcli -p on a terminal: no preview callback, a rich Live region
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, height=30)
    stream = MarkdownStream(console, min_interval=10, flush_after=0.1)
    stream.feed("First l")
    stream.feed("ine, then a pause: ZEBRA")
    assert "ZEBRA" not in out.getvalue()
    assert _wait_for(lambda: "ZEBRA" in out.getvalue())
    stream.finish()
