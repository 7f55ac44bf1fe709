"""The live area above the input line: the growing answer, a spinner, queued messages, menus."""

from __future__ import annotations

import io
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from chatcli import translation

_, ngettext = translation(__name__)

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

#: Lines of a running tool's live output kept on screen (the model gets all of it).
TOOL_OUTPUT_LINES = 10

#: Escape sequences and control characters a tool may print (colours, cursor moves).
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|"
                      r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Question:
    """A menu shown above the input line; answered with arrows + Enter, a number, or Esc.

    ``guard`` (seconds): keys arriving that soon after the menu is first drawn are ignored, so
    that typing meant for the input line cannot answer it (tool approvals). ``free_text``: no
    options; Enter answers with the text typed in the input line (``text``). ``header``: a
    line above the title saying who asks (``worker w2 (explore) asks:``).
    """

    title: str
    options: list[str]
    selected: int = 0
    answer: int | None = None
    hint: str = ""  # shown under the options after a key that is no answer
    done: threading.Event = field(default_factory=threading.Event)
    guard: float = 0.0
    free_text: bool = False
    text: str = ""
    drawn_at: float | None = None  # when the menu was first drawn
    header: str = ""

    def settle(self, answer: int | None) -> None:
        """Answer the question (None: cancelled) and wake whoever asked."""
        self.answer = answer
        self.done.set()

    def too_early(self) -> bool:
        """Whether a key now would come too soon after the menu appeared (typed ahead)."""
        if not self.guard:
            return False
        return self.drawn_at is None or time.monotonic() - self.drawn_at < self.guard


class View:
    """State drawn by the prompt's message; written by the worker thread, read by the UI."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.preview_ansi = ""
        self.waiting_since: float | None = None  # spinner until the first token
        #: what the spinner says is going on: the model thinking, or the tool that runs
        self.activity = _("thinking")
        self.streaming = False
        self.status = ""
        #: the status line under the input line (model, mode, context use, spend)
        self.status_line = ""
        self.queued: list[str] = []
        self.question: Question | None = None
        self.lock = threading.Lock()
        #: the last lines of a running tool's live output (an exec's), drawn dim
        self.tool_output: deque[str] = deque(maxlen=TOOL_OUTPUT_LINES)
        self.tool_output_count = 0
        #: how many tool calls run now (several side by side: the status line is refreshed
        #: while they run, see chatcli_repl.loop)
        self.tools_running = 0
        #: called (on the UI thread) when a guarded menu is first drawn
        self.on_guarded_menu: Any = None

    def open_question(self) -> Question | None:
        """The menu still waiting for an answer. A settled one takes no more keys and is not
        drawn, even before the worker that asked has woken up to clear it."""
        question = self.question
        return question if question is not None and not question.done.is_set() else None

    # ---------------------------------------------------------------- written by the worker

    def set_preview(self, renderable: Any) -> None:
        """Render the growing block to ANSI text (None clears it)."""
        if renderable is None:
            self.preview_ansi = ""
            return
        from rich.console import Console

        out = io.StringIO()
        capture = Console(file=out, force_terminal=True, width=self.console.width,
                          color_system=self.console.color_system, no_color=self.console.no_color,
                          height=self.console.height)
        capture.print(renderable)
        lines = out.getvalue().rstrip("\n").split("\n")
        room = max(self.console.height - 8, 3)
        self.preview_ansi = "\n".join(lines[-room:])

    def add_tool_output(self, line: str) -> None:
        """A line of a running tool's live output (any thread)."""
        text = line.rstrip("\n")
        if "\r" in text:  # a progress bar redrawn in place: its last state
            text = text.rstrip("\r").rsplit("\r", 1)[-1]
        text = _CONTROL.sub("", text.expandtabs(4))
        width = max((self.console.width or 80) - 6, 20)
        if len(text) > width:
            text = text[: width - 1] + "…"
        with self.lock:
            self.tool_output.append(text)
            self.tool_output_count += 1

    def clear_tool_output(self) -> int:
        """Forget the live output (the tool finished); returns how many lines it had."""
        with self.lock:
            count = self.tool_output_count
            self.tool_output.clear()
            self.tool_output_count = 0
        return count

    # ---------------------------------------------------------------- read by the UI

    def _note_drawn(self, question: Question) -> None:
        """When the menu is drawn: the first time, and (for a guarded menu, while its guard
        lasts) again whenever the whole screen is drawn afresh — after a line was printed above
        the input line, which briefly takes the menu off the screen. Keys are ignored until the
        menu has been on screen, undisturbed, for ``question.guard`` seconds."""
        fresh = question.drawn_at is None
        if not fresh and question.guard and question.too_early() and (
                time.monotonic() - (question.drawn_at or 0.0) > 0.02):  # not the same frame
            from prompt_toolkit.application.current import get_app_or_none

            app = get_app_or_none()
            fresh = app is not None and app.renderer.last_rendered_screen is None
        if not fresh:
            return
        question.drawn_at = time.monotonic()
        if question.guard and self.on_guarded_menu is not None:
            self.on_guarded_menu()

    def toolbar(self) -> Any:
        """The status line under the input line, dim, cut to the terminal's width (None: no
        line yet)."""
        line = self.status_line
        if not line:
            return None
        from prompt_toolkit.formatted_text import FormattedText

        width = max((self.console.width or 80) - 1, 10)
        if len(line) > width:
            line = line[: width - 1] + "…"
        return FormattedText([("class:status-line", line)])

    def message(self) -> Any:
        """The prompt's message: live area lines, then the prompt marker."""
        from prompt_toolkit.formatted_text import ANSI, FormattedText, merge_formatted_text

        parts: list[Any] = []
        if self.preview_ansi:
            parts.append(ANSI(self.preview_ansi + "\n"))
        status: list[tuple[str, str]] = []
        with self.lock:
            output, count = list(self.tool_output), self.tool_output_count
        if output:
            if count > len(output):
                earlier = count - len(output)
                status.append(("fg:ansibrightblack", "  │ " + ngettext(
                    "… {count:,} earlier line", "… {count:,} earlier lines", earlier).format(
                        count=earlier) + "\n"))
            for line in output:
                status.append(("fg:ansibrightblack", f"  │ {line}\n"))
        if self.waiting_since is not None and self.question is None:  # a menu waits for the user
            elapsed = time.monotonic() - self.waiting_since
            frame = SPINNER[int(elapsed * 10) % len(SPINNER)]
            status.append(("fg:ansicyan", f"{frame} {self.activity}… {elapsed:.1f}s"))
            if self.status:  # a retry notice (or "stopping…") before the first token
                status.append(("fg:ansiyellow", f" · {self.status}"))
            status.append(("fg:ansibrightblack", "  " + _("(Ctrl+C to stop)") + "\n"))
        elif self.status:
            status.append(("fg:ansibrightblack", self.status + "\n"))
        with self.lock:
            queued = list(self.queued)
        for text in queued:
            first = text.strip().splitlines()[0] if text.strip() else text
            status.append(("fg:ansiyellow",
                           "  " + _("⏳ queued: {text}").format(text=first[:80]) + "\n"))
        question = self.open_question()
        if question is not None:
            self._note_drawn(question)
            if question.header:
                status.append(("bold fg:ansicyan", f"{question.header}\n"))
            status.append(("bold", f"{question.title}\n"))
            for index, option in enumerate(question.options):
                mark = "❯" if index == question.selected else " "
                style = "reverse" if index == question.selected else ""
                status.append((style, f" {mark} {index + 1}. {option}\n"))
            if question.hint:
                status.append(("fg:ansiyellow", f"  {question.hint}\n"))
            keys = (_("type it and press Enter; Esc for none") if question.free_text else
                    _("↑/↓ and Enter, or type a number; Esc cancels"))
            status.append(("fg:ansibrightblack", f"  {keys}\n"))
        parts.append(FormattedText(status))
        parts.append(FormattedText([("bold fg:ansigreen", "› ")]))
        return merge_formatted_text(parts)
