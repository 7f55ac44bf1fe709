"""One turn in the REPL: stream the engine's events into the renderer, then a quiet footer."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from chatcli import (
    MarkdownStream,
    Message,
    Retrying,
    Role,
    StopReason,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
)

if TYPE_CHECKING:
    from chatcli_repl.app import ReplApp


def run_turn(app: ReplApp, prompt: Message | None) -> TurnFinished | None:
    """Run the engine on ``prompt`` (None: answer the last user message) and show the answer."""
    cancel = threading.Event()
    app.cancel = cancel
    view = app.view
    start = time.monotonic()
    view.waiting_since = start
    plain = not app.settings.markdown
    stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
    finished: TurnFinished | None = None
    try:
        for event in app.session.run(prompt, cancel):
            if isinstance(event, TextDelta):
                if view.waiting_since is not None:
                    view.waiting_since = None
                    view.status = "answering… (Ctrl+C to stop)"
                stream.feed(event.text)
                app.invalidate()
            elif isinstance(event, Retrying):
                view.status = f"{_reason(event)}, retrying in {event.delay:.1f}s…"
                app.invalidate()
            elif isinstance(event, ToolStarted):
                stream.finish()
                view.waiting_since = time.monotonic()
                view.status = ""
                app.console.print(f"⚙ {event.call.name}", style="cyan", markup=False)
                stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
            elif isinstance(event, ToolFinished):
                mark = "✗" if event.result.is_error else "✓"
                first = (event.result.content.strip().splitlines() or [""])[0][:90]
                app.console.print(f"  {mark} {first}", style="dim", markup=False)
            elif isinstance(event, TurnFinished):
                finished = event
    finally:
        view.waiting_since = None
        stream.finish()
        view.set_preview(None)
        app.invalidate()
    if finished is None:
        return None
    if finished.stop_reason == StopReason.INTERRUPTED:
        app.console.print(_interrupted(finished), style="yellow", markup=False)
    if finished.error is not None:
        line = _one_line(finished.error)
        hint = "your message is kept" if "/retry" in line else (
            "your message is kept; /retry sends it again")
        app.console.print(f"✗ {line} — {hint}", style="red", markup=False)
    _footer(app, finished, time.monotonic() - start)
    return finished


def _interrupted(finished: TurnFinished) -> str:
    """What Ctrl+C left behind: the engine keeps an answer only when something of it arrived."""
    if any(message.role == Role.ASSISTANT for message in finished.messages):
        return "⏹ interrupted — the partial answer is kept; /retry answers again"
    return "⏹ stopped before any answer arrived — /retry asks again"


def _footer(app: ReplApp, finished: TurnFinished, seconds: float) -> None:
    usage: Usage = finished.usage
    model = finished.model or app.session.model
    parts = [f"{app.session.provider_name}/{model}"]
    if usage.input_tokens or usage.output_tokens:  # unknown when the answer was cut short
        parts.append(f"{usage.input_tokens:,} in · {usage.output_tokens:,} out")
    if usage.cache_read_tokens or usage.cache_write_tokens:
        parts.append(f"cache {usage.cache_read_tokens:,} read · {usage.cache_write_tokens:,} write")
    parts.append(f"{seconds:.1f}s")
    app.console.print("  " + " · ".join(parts), style="dim", markup=False)


def _reason(event: Retrying) -> str:
    name = type(event.error).__name__
    return {"RateLimitError": "rate limited", "ServerError": "server error",
            "ProviderTimeoutError": "timed out", "NetworkError": "network error"}.get(name,
                                                                                  "failed")


def _one_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
