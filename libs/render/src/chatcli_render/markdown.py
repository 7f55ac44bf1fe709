"""Streaming markdown output whose cost grows linearly with the answer.

Re-rendering the whole answer on every chunk is quadratic. :class:`MarkdownStream` instead prints
every *finished* top-level block once into the scrollback and re-renders only the last block, the
one still growing, in a live region (a rich ``Live`` by default, or a ``preview`` callback that a
front end such as the REPL draws itself).

Where the finished blocks end is told by markdown-it (rich's own parser, configured like rich's
``Markdown``): the top-level tokens of the complete lines carry ``.map`` line ranges, and every
block before the last one is final once the next block has started. Only complete lines are
examined, so a half-received line (``- `` becoming ``- item``, an indent still arriving) never
decides anything.

Known limit: reference-style link definitions (``[x]: url``) only apply within the block batch
they arrive with.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.markdown import Markdown

__all__ = ["MarkdownStream", "block_split", "render_markdown"]

_FENCES = ("```", "~~~")
# Top-level blocks that rich renders with their own leading blank line (it comes from the state
# their last child leaves behind); every other block gets one from the block before it, unless
# that block was a horizontal rule (rich's ``HorizontalRule.new_line`` is False).
_CONTAINERS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}


def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # as rich.markdown.Markdown


@functools.cache
def _lexer(name: str) -> Any:
    """A pygments lexer by name, looked up once (the lookup scans plugins: ~4 ms each time)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=4)


@functools.cache
def _markdown_class() -> type[Markdown]:
    """rich's Markdown with a shared parser and cached lexers; renders exactly like it."""
    from rich.markdown import CodeBlock, Markdown
    from rich.syntax import Syntax

    class _CodeBlock(CodeBlock):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip()
            yield Syntax(code, _lexer(self.lexer_name), theme=self.theme, word_wrap=True,
                         padding=1)

    template = Markdown("")
    parser = _parser()

    class _Markdown(Markdown):
        elements: ClassVar[dict[str, Any]] = {
            **Markdown.elements, "fence": _CodeBlock, "code_block": _CodeBlock
        }

        def __init__(self, markup: str, code_theme: str = "monokai") -> None:
            self.__dict__.update(vars(template))
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = code_theme
            self.inline_code_theme = code_theme

    return _Markdown


def render_markdown(source: str, code_theme: str = "monokai") -> RenderableType:
    """A renderable of ``source``, like ``rich.markdown.Markdown`` but cheaper to build."""
    return _markdown_class()(source, code_theme=code_theme)


def block_split(parser: Any, text: str) -> int:
    """The character offset in ``text`` where its last top-level block starts (0 if only one).

    Only complete lines (up to the last newline) are considered; everything before the returned
    offset consists of finished blocks.
    """
    cut = text.rfind("\n")
    if cut < 0:
        return 0
    complete = text[: cut + 1]
    starts = [
        token.map[0]
        for token in parser.parse(complete)
        if token.level == 0 and token.nesting >= 0 and token.map is not None
    ]
    if len(starts) < 2 or starts[-1] == 0:
        return 0
    offset = 0
    for _ in range(starts[-1]):
        offset = complete.index("\n", offset) + 1
    return offset


class MarkdownStream:
    """Render a markdown answer that arrives in pieces: ``feed(text)`` … ``finish()``.

    :param console: where to print; NO_COLOR and terminal detection are the console's.
    :param plain: write the text as it comes, without markdown rendering (with ``preview``:
        whole lines as they complete, the line still growing in the preview).
    :param preview: draw the growing block yourself: called with a renderable, or None to clear.
        Without it, a transient rich ``Live`` region is used when the console is a terminal; on
        other outputs finished blocks are printed as they complete and the rest at ``finish()``.
    :param code_theme: pygments theme for code blocks.
    :param min_interval: seconds between two previews of the growing block (0: every chunk).
        A preview that is costly to draw (a screenful of highlighted code) spaces the next ones
        out further, so that previews take at most a tenth of the time.
    :param clock: the time source for ``min_interval`` (benchmarks pass a simulated one).
    :param flush_after: seconds of silence after which text held back by ``min_interval`` is
        drawn anyway (a timer thread, started on the first chunk held back, ended by
        ``finish()``); None: held-back text waits for the next chunk. Real seconds, whatever
        ``clock`` says. The timer draws at most once per pause: it adds no work per chunk.

    ``feed``, ``refresh`` and ``finish`` may be called from different threads (they take a
    lock); the ``preview`` callback is called with that lock held, from the feeding thread or
    the timer's.
    """

    def __init__(
        self,
        console: Console,
        *,
        plain: bool = False,
        preview: Callable[[RenderableType | None], None] | None = None,
        code_theme: str = "monokai",
        min_interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
        flush_after: float | None = 0.15,
    ) -> None:
        self.console = console
        self.plain = plain
        self.code_theme = code_theme
        self.min_interval = min_interval
        self._clock = clock
        self._preview = preview
        self._live: Any = None
        self._done: list[str] = []  # text already printed
        self._tail = ""  # text of the block(s) not printed yet
        self._pending = ""  # plain text with a preview: the line not written yet
        self._lines_seen = 0  # newlines in the tail when it was last parsed
        self._blank_before_next = False  # what rich's ``new_line`` would be at this point
        self._last_preview = float("-inf")
        self._preview_seconds = 0.0  # what drawing the last preview cost
        self._previewed = False
        self._dirty = False
        self._finished = False
        self.flush_after = flush_after
        self._lock = threading.Condition(threading.RLock())
        self._timer: threading.Thread | None = None
        self._timer_idle = False  # the timer waits for text to be held back (no deadline)
        self._fed_at = 0.0  # when the last chunk came (time.monotonic, for the timer)
        # Block structure is all the split needs: skip inline parsing (half the parse cost).
        self._parser: Any = None if plain else _parser().disable("inline")

    # ------------------------------------------------------------------ public

    @property
    def text(self) -> str:
        """Everything fed so far."""
        return "".join(self._done) + self._tail

    def feed(self, text: str) -> None:
        """Add a piece of the answer and update the display."""
        if not text or self._finished:
            return
        with self._lock:
            self._feed(text)

    def _feed(self, text: str) -> None:
        if self._finished:
            return
        if self.plain:
            self._done.append(text)
            if self._preview is not None:
                self._feed_plain_lines(text)
                return
            self.console.file.write(text)
            self.console.file.flush()
            return
        self._tail += text
        self._dirty = True
        if "\n" in text:
            self._commit()
        if self._clock() - self._last_preview >= self._interval():
            self.refresh()
        else:
            self._hold()

    def refresh(self) -> None:
        """Redraw the growing block now if it changed since it was last drawn."""
        with self._lock:
            if not self._dirty or self._finished:
                return
            self._dirty = False
            self._last_preview = self._clock()
            started = time.perf_counter()
            if self.plain:
                self._show_pending()
            else:
                self._show_preview()
            self._preview_seconds = time.perf_counter() - started

    def finish(self) -> None:
        """Print what is left, close the live region and end with a newline. Idempotent."""
        with self._lock:
            self._finish()

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._lock.notify_all()  # the timer, if any, ends
        if self.plain:
            if self._preview is not None:
                self._clear_preview()
                if self._pending:
                    self.console.file.write(self._pending + "\n")
                    self.console.file.flush()
                    self._pending = ""
                return
            if self._done and not self._done[-1].endswith("\n"):
                self.console.file.write("\n")
                self.console.file.flush()
            return
        self._clear_preview()
        if self._tail.strip():
            self._print_block(self._tail)
        self._done.append(self._tail)
        self._tail = ""

    def __enter__(self) -> MarkdownStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    # ------------------------------------------------------------------ internals

    def _hold(self) -> None:
        """Text was held back (a preview drawn too recently): the timer draws it if no chunk
        follows within ``flush_after`` seconds (lock held)."""
        if self.flush_after is None or (self._preview is None and not self.console.is_terminal):
            return
        self._fed_at = time.monotonic()
        if self._timer is None:
            self._timer = threading.Thread(target=self._flush_held, daemon=True,
                                           name="chatcli-render-flush")
            self._timer.start()
        elif self._timer_idle:  # (a timer counting down sees the new time when it wakes)
            self._lock.notify()

    def _flush_held(self) -> None:
        """The timer thread: draw held-back text after ``flush_after`` seconds of silence."""
        assert self.flush_after is not None
        with self._lock:
            while not self._finished:
                if not self._dirty:
                    self._timer_idle = True
                    self._lock.wait()
                    self._timer_idle = False
                    continue
                left = self._fed_at + self.flush_after - time.monotonic()
                if left > 0:
                    self._lock.wait(left)
                    continue
                try:
                    self.refresh()
                except Exception:  # a display never fails the answer: the next chunk redraws
                    self._dirty = False

    def _markdown(self, source: str) -> RenderableType:
        return render_markdown(source, self.code_theme)

    def _interval(self) -> float:
        """Seconds until the next preview: ``min_interval``, or ten times what the last one
        cost to draw when that is longer (0 keeps previewing every chunk)."""
        if self.min_interval <= 0:
            return 0.0
        return max(self.min_interval, 10 * self._preview_seconds)

    def _feed_plain_lines(self, text: str) -> None:
        """Plain text with a preview: whole lines go to the scrollback, the line still growing
        to the preview (a front end redrawing its own area, such as the REPL's prompt, would
        overwrite a partial line written above it)."""
        preview = self._preview
        if preview is None:
            return
        pending = self._pending + text
        cut = pending.rfind("\n") + 1
        if cut:
            if self._previewed:
                preview(None)
                self._previewed = False
            self.console.file.write(pending[:cut])
            self.console.file.flush()
        self._pending = pending[cut:]
        self._dirty = bool(self._pending)
        if self._pending and (cut or self._clock() - self._last_preview >= self.min_interval):
            self._last_preview = self._clock()
            self._show_pending()
        elif self._pending:
            self._hold()

    def _show_pending(self) -> None:
        """Plain text: preview the line still growing."""
        from rich.text import Text

        self._dirty = False
        if self._preview is not None and self._pending:
            self._previewed = True
            self._preview(Text(self._pending))

    def _commit(self) -> bool:
        """Print the blocks that are finished; True when something was printed."""
        lines = self._tail.count("\n")
        # A block that keeps growing (a long code block or list) is parsed again only once it
        # grew by an eighth since the last look: the parses then add up to O(n) instead of
        # O(n²). Short blocks, the usual case, are still looked at on every new line.
        if lines - self._lines_seen < max(1, self._lines_seen // 8):
            return False
        offset = block_split(self._parser, self._tail)
        if offset:
            finished, self._tail = self._tail[:offset], self._tail[offset:]
            if self._previewed:
                # The preview still shows the finished block: give it the new tail first (a
                # rich Live redraws it below the printed block anyway).
                self._show_preview(refresh=self._live is None)
                self._last_preview = self._clock()
            self._print_block(finished)
            self._done.append(finished)
        self._lines_seen = self._tail.count("\n")
        return bool(offset)

    def _print_block(self, source: str) -> None:
        """Print finished blocks, separated from earlier ones exactly as one rendering would."""
        markdown = self._markdown(source)
        top = [t for t in getattr(markdown, "parsed", []) if t.level == 0 and t.nesting >= 0]
        if not top:
            return
        if self._blank_before_next and top[0].type not in _CONTAINERS:
            self.console.line()
        self.console.print(markdown)
        self._blank_before_next = top[-1].type != "hr"

    def _preview_source(self) -> str:
        """The growing block, cut to its last lines when taller than the screen."""
        limit = max(self.console.height - 4, 4)
        tail = self._tail
        if tail.count("\n") <= limit:
            return tail
        lines = tail.splitlines()
        head = lines[0] if lines[0].lstrip().startswith(_FENCES) else None
        kept = lines[-limit:]
        return "\n".join(([head] if head is not None else []) + kept)

    def _show_preview(self, refresh: bool = True) -> None:
        if not self._tail.strip():
            if self._previewed and self._preview is not None:
                self._preview(None)
            elif self._live is not None:
                from rich.text import Text

                self._live.update(Text(""), refresh=refresh)
            return
        if self._preview is None and not self.console.is_terminal:
            return
        renderable = self._markdown(self._preview_source())
        self._previewed = True
        if self._preview is not None:
            self._preview(renderable)
            return
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        self._live.update(renderable, refresh=refresh)

    def _clear_preview(self) -> None:
        if self._preview is not None:
            if self._previewed:
                self._preview(None)
        elif self._live is not None:
            self._live.stop()
            self._live = None
        self._previewed = False
