"""The live area above the input line: the growing answer, a spinner, queued messages, menus."""

from __future__ import annotations

import io
import threading
import time
from dataclasses import dataclass, field
from typing import Any

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass
class Question:
    """A menu shown above the input line; answered with arrows + Enter, a number, or Esc."""

    title: str
    options: list[str]
    selected: int = 0
    answer: int | None = None
    hint: str = ""  # shown under the options after a key that is no answer
    done: threading.Event = field(default_factory=threading.Event)

    def settle(self, answer: int | None) -> None:
        """Answer the question (None: cancelled) and wake whoever asked."""
        self.answer = answer
        self.done.set()


class View:
    """State drawn by the prompt's message; written by the worker thread, read by the UI."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.preview_ansi = ""
        self.waiting_since: float | None = None  # spinner until the first token
        self.streaming = False
        self.status = ""
        self.queued: list[str] = []
        self.question: Question | None = None
        self.lock = threading.Lock()

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

    # ---------------------------------------------------------------- read by the UI

    def message(self) -> Any:
        """The prompt's message: live area lines, then the prompt marker."""
        from prompt_toolkit.formatted_text import ANSI, FormattedText, merge_formatted_text

        parts: list[Any] = []
        if self.preview_ansi:
            parts.append(ANSI(self.preview_ansi + "\n"))
        status: list[tuple[str, str]] = []
        if self.waiting_since is not None and self.question is None:  # a menu waits for the user
            elapsed = time.monotonic() - self.waiting_since
            frame = SPINNER[int(elapsed * 10) % len(SPINNER)]
            status.append(("fg:ansicyan", f"{frame} thinking… {elapsed:.1f}s"))
            if self.status:  # a retry notice (or "stopping…") before the first token
                status.append(("fg:ansiyellow", f" · {self.status}"))
            status.append(("fg:ansibrightblack", "  (Ctrl+C to stop)\n"))
        elif self.status:
            status.append(("fg:ansibrightblack", self.status + "\n"))
        with self.lock:
            queued = list(self.queued)
        for text in queued:
            first = text.strip().splitlines()[0] if text.strip() else text
            status.append(("fg:ansiyellow", f"  ⏳ queued: {first[:80]}\n"))
        question = self.open_question()
        if question is not None:
            status.append(("bold", f"{question.title}\n"))
            for index, option in enumerate(question.options):
                mark = "❯" if index == question.selected else " "
                style = "reverse" if index == question.selected else ""
                status.append((style, f" {mark} {index + 1}. {option}\n"))
            if question.hint:
                status.append(("fg:ansiyellow", f"  {question.hint}\n"))
            status.append(("fg:ansibrightblack",
                           "  ↑/↓ and Enter, or type a number; Esc cancels\n"))
        parts.append(FormattedText(status))
        parts.append(FormattedText([("bold fg:ansigreen", "› ")]))
        return merge_formatted_text(parts)
