"""MarkdownStream: streamed output equals one rendering, blocks print once, any chunking works."""

from __future__ import annotations

import io
import itertools
import re

import pytest
from chatcli_render import MarkdownStream
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markdown import Markdown

from .screen import screen_text

DOC = """# Release notes

Some **bold** text, `inline code` and *emphasis*.

- first item
- second item

  with a continuation paragraph

1. one
2. two

```python
def double(x):
    return x * 2  # the fence must survive any chunking
```

> a quote
> on two lines

| name | value |
|------|-------|
| a    | 1     |

---

## Closing

Final paragraph
over two lines.
"""


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100, height=30), out


def render_once(text: str, terminal: bool = False) -> str:
    console, out = _console(terminal)
    console.print(Markdown(text))
    return screen_text(out.getvalue())


def render_streamed(chunks: list[str], terminal: bool = False, **kwargs: object) -> str:
    console, out = _console(terminal)
    stream = MarkdownStream(console, **kwargs)  # type: ignore[arg-type]
    for chunk in chunks:
        stream.feed(chunk)
    stream.finish()
    return screen_text(out.getvalue())


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 3, 7, 16, 1000])
def test_streamed_equals_one_rendering(size: int) -> None:
    assert render_streamed(chunked(DOC, size)) == render_once(DOC)


@pytest.mark.parametrize("size", [1, 5, 12])
def test_terminal_screen_after_finish_equals_one_rendering(size: int) -> None:
    # A real terminal console: the live preview is drawn and erased; what stays on the screen
    # must be the document rendered once.
    shown = render_streamed(chunked(DOC, size), terminal=True, min_interval=0)
    assert shown == render_once(DOC, terminal=True)
    assert "**" not in shown and "```" not in shown


def test_every_block_is_printed_exactly_once() -> None:
    console, out = _console(terminal=False)
    stream = MarkdownStream(console)
    printed: list[str] = []
    for chunk in chunked(DOC, 4):
        stream.feed(chunk)
        printed.append(out.getvalue())
    stream.finish()
    text = out.getvalue()
    for needle in ["Release notes", "Some bold text", "first item", "continuation paragraph",
                   "def double", "a quote", "name", "Closing", "Final paragraph"]:
        assert text.count(needle) == 1, needle
    # finished blocks appear while streaming, before finish(): output grows in steps
    assert printed[len(printed) // 2] and "Release notes" in printed[len(printed) // 2]
    assert "Final paragraph" not in printed[-1]  # the last block waits for finish()


def test_code_fence_split_across_chunks_renders_as_code() -> None:
    doc = "Intro.\n\n```python\nprint('hi')\nx = [1, 2]\n```\n\nAfter.\n"
    pieces = ["Intro.\n\n`", "``pyt", "hon\nprint('h", "i')\nx = [1, 2]\n`", "`",
              "`\n\nAf", "ter.\n"]
    shown = render_streamed(pieces)
    assert shown == render_once(doc)
    assert "print('hi')" in shown and "```" not in shown and "python" not in shown


def test_code_is_highlighted_and_no_color_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = "```python\ndef f():\n    return 1\n```\n"
    # a foreground colour code right before the keyword (pygments highlighting)
    coloured_def = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])[;m][0-9;]*m?def")
    console, out = _console(terminal=True)
    stream = MarkdownStream(console)
    stream.feed(doc)
    stream.finish()
    assert coloured_def.search(out.getvalue())
    monkeypatch.setenv("NO_COLOR", "1")
    console, out = _console(terminal=True)
    stream = MarkdownStream(console)
    stream.feed(doc)
    stream.finish()
    assert not coloured_def.search(out.getvalue())
    assert "def f():" in screen_text(out.getvalue())


def test_plain_mode_writes_the_text_verbatim() -> None:
    console, out = _console(terminal=True)
    stream = MarkdownStream(console, plain=True)
    for chunk in chunked(DOC, 5):
        stream.feed(chunk)
    stream.finish()
    assert out.getvalue() == DOC


def test_plain_mode_with_a_preview_writes_whole_lines_and_previews_the_growing_one() -> None:
    # A front end that redraws its own area (the REPL's prompt) overwrites a partial line
    # written above it: only whole lines may reach the output.
    console, out = _console(terminal=True)
    shown: list[object] = []
    stream = MarkdownStream(console, plain=True, preview=shown.append, min_interval=0)
    writes: list[str] = []
    doc = DOC + "still growing"
    for chunk in chunked(doc, 5):
        before = len(out.getvalue())
        stream.feed(chunk)
        writes.append(out.getvalue()[before:])
    assert all(w.endswith("\n") for w in writes if w)
    assert str(shown[-1]) == "still growing"
    assert out.getvalue() == DOC
    stream.finish()
    assert shown[-1] is None
    assert out.getvalue() == doc + "\n"
    assert stream.text == doc


def test_preview_callback_gets_the_growing_block_only() -> None:
    console, out = _console(terminal=False)
    shown: list[object] = []
    stream = MarkdownStream(console, preview=shown.append, min_interval=0)
    for chunk in chunked("para one\n\npara two\ngrows", 3):
        stream.feed(chunk)
    assert getattr(shown[-1], "markup", None) == "para two\ngrows"
    assert screen_text(out.getvalue()) == "para one"  # printed once it was finished
    stream.finish()
    assert shown[-1] is None
    assert screen_text(out.getvalue()) == "para one\n\npara two grows"


_WORD = st.sampled_from(["alpha", "beta", "**bold**", "`code`", "*em*", "x", "gamma-2"])
_LINE = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
_BLOCK = st.one_of(
    _LINE.map(lambda s: "# " + s),
    _LINE.map(lambda s: "### " + s),
    st.lists(_LINE, min_size=1, max_size=3).map("\n".join),
    st.lists(_LINE, min_size=1, max_size=4).map(lambda items: "\n".join("- " + i for i in items)),
    st.lists(_LINE, min_size=1, max_size=4).map(
        lambda items: "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1))),
    st.lists(_LINE, min_size=0, max_size=4).map(
        lambda lines: "```python\n" + "\n".join(lines) + "\n```"),
    _LINE.map(lambda s: "> " + s),
    st.just("---"),
)
_DOCS = st.lists(_BLOCK, min_size=1, max_size=7).map("\n\n".join).map(lambda d: d + "\n")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_DOCS, data=st.data())
def test_any_chunking_gives_the_same_output(doc: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(doc) - 1)), max_size=30)))
    bounds = [0, *cuts, len(doc)]
    chunks = [doc[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    assert "".join(chunks) == doc
    assert render_streamed(chunks) == render_once(doc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_DOCS, size=st.integers(1, 40))
def test_any_chunking_on_a_terminal_leaves_the_same_screen(doc: str, size: int) -> None:
    shown = render_streamed(chunked(doc, size), terminal=True, min_interval=0)
    assert shown == render_once(doc, terminal=True)


class _CountingParser:
    """Wraps the stream's markdown-it parser and adds up the characters it is given."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.characters = 0

    def parse(self, text: str) -> object:
        self.characters += len(text)
        return self.inner.parse(text)  # type: ignore[attr-defined]


def test_a_long_growing_code_block_is_not_parsed_again_on_every_line() -> None:
    # One block that keeps growing (a whole file in one fence) must cost O(n) parsing, not a
    # parse of everything so far on each new line (O(n²): 500x the text for 1,000 lines).
    code = "\n".join(f"    value_{i} = compute({i})  # step {i}" for i in range(1000))
    doc = f"Here it is:\n\n```python\ndef f():\n{code}\n```\n\nDone.\n"
    console, out = _console(terminal=False)
    stream = MarkdownStream(console)
    counting = _CountingParser(stream._parser)
    stream._parser = counting
    for chunk in chunked(doc, 12):
        stream.feed(chunk)
    stream.finish()
    assert counting.characters < 20 * len(doc)
    assert screen_text(out.getvalue()) == render_once(doc)


def test_a_costly_preview_spaces_the_next_ones_out() -> None:
    import time

    now = [0.0]
    drawn: list[object] = []

    def slow_preview(renderable: object) -> None:  # costs at least 20 ms to "draw"
        if renderable is not None:
            time.sleep(0.02)
        drawn.append(renderable)

    console, _ = _console(terminal=False)
    stream = MarkdownStream(console, preview=slow_preview, clock=lambda: now[0])
    for _ in range(100):  # 100 chunks, 50 ms apart on the stream's clock: 5 s in all
        now[0] += 0.05
        stream.feed("word ")
    # at most every 0.2 s (10x the cost) instead of every 0.1 s: 25 previews, not 50
    assert 1 <= len([d for d in drawn if d is not None]) <= 26
