"""One turn in the REPL: stream the engine's events into the renderer, then a quiet footer."""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING

from chatcli import (
    Compacted,
    Message,
    Retrying,
    Role,
    StopReason,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
    translation,
)
from chatcli_render import MarkdownStream, activity

from chatcli_repl.byline import announce

if TYPE_CHECKING:
    from chatcli import ToolCallPart

    from chatcli_repl.app import ReplApp

_, ngettext = translation(__name__)


def run_turn(app: ReplApp, prompt: Message | None) -> TurnFinished | None:
    """Run the engine on ``prompt`` (None: answer the last user message) and show the answer."""
    cancel = threading.Event()
    app.cancel = app.turn_cancel = cancel
    view = app.view
    start = time.monotonic()
    view.waiting_since = start
    view.activity = _("thinking")
    plain = not app.settings.markdown
    stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
    finished: TurnFinished | None = None
    started: dict[str, float] = {}  # call id -> when it started
    running: dict[str, str] = {}  # call id -> what the spinner says it does
    side_by_side = False  # several calls run at once (reads): result lines name their call

    def flush() -> None:
        """Print the answer so far in full (an approval is about to be asked under it)."""
        nonlocal stream
        stream.finish()
        view.set_preview(None)
        view.status = ""
        stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)

    app.flush_answer = flush
    announced = False  # the author's line (a persona's) comes once, above the answer
    try:
        for event in app.session.run(prompt, cancel):
            if not announced and isinstance(event, TextDelta | ToolStarted | ToolFinished):
                announced = True
                announce(app)
            if isinstance(event, TextDelta):
                if view.waiting_since is not None:
                    view.waiting_since = None
                    view.status = _("answering… (Ctrl+C to stop)")
                stream.feed(event.text)
                app.invalidate()
            elif isinstance(event, Retrying):
                view.status = _("{reason}, retrying in {delay:.1f}s…").format(
                    reason=_reason(event), delay=event.delay)
                app.invalidate()
            elif isinstance(event, ToolStarted):
                stream.finish()
                view.waiting_since = time.monotonic()
                view.status = ""
                side_by_side = side_by_side or bool(started)
                started[event.call.id] = time.monotonic()
                running[event.call.id] = activity(event.call.name, event.call.arguments,
                                                  running=_("running {tool}"))
                view.tools_running = len(running)
                view.activity = _doing(running)
                app.console.print(f"⚙ {describe_call(event.call)}", style="cyan", markup=False)
                stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
            elif isinstance(event, ToolFinished):
                began = started.pop(event.call.id, None)
                running.pop(event.call.id, None)
                view.tools_running = len(running)
                # the live output of calls side by side is one stream (whose lines are not
                # told apart): it stays until the last of them ends, and no result counts it
                lines = 0 if running else view.clear_tool_output()
                lines = 0 if side_by_side else lines
                view.activity = _doing(running)  # the model is asked next, once none runs
                if began is None:  # refused before it ran (denied, bad arguments): say which
                    stream.finish()
                    app.console.print(f"⚙ {describe_call(event.call)}", style="cyan",
                                      markup=False)
                    stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
                app.console.print(_result_line(event, began, lines, side_by_side),
                                  style="dim", markup=False)
                side_by_side = side_by_side and bool(started)
                app.refresh_status()  # between the steps of a run: spend and context grew
            elif isinstance(event, Compacted):
                stream.finish()
                app.console.print(compacted_line(event), style="dim", markup=False)
                stream = MarkdownStream(app.console, plain=plain, preview=view.set_preview)
                app.invalidate()
            elif isinstance(event, TurnFinished):
                finished = event
            # any other event (a newer kernel's) is not shown: a display never fails on one
    finally:
        app.flush_answer = None
        view.waiting_since = None
        view.activity = _("thinking")
        view.tools_running = 0
        view.clear_tool_output()
        stream.finish()
        view.set_preview(None)
        app.invalidate()
    if finished is None:
        return None
    if finished.stop_reason == StopReason.INTERRUPTED:
        app.console.print(_interrupted(finished), style="yellow", markup=False)
    elif (cut := _cut(finished.stop_reason)) is not None:
        app.console.print(cut, style="yellow", markup=False)
    if finished.error is not None:
        line = _one_line(finished.error)
        text = (_("✗ {error} — your message is kept") if "/retry" in line else
                _("✗ {error} — your message is kept; /retry sends it again"))
        app.console.print(text.format(error=line), style="red", markup=False)
    _footer(app, finished, time.monotonic() - start)
    return finished


def _doing(running: dict[str, str]) -> str:
    """The spinner's words: the tool that runs (``edit calc.py``), how many run side by side,
    or the model thinking once none runs."""
    if not running:
        return _("thinking")
    if len(running) == 1:
        return next(iter(running.values()))
    # i18n: {count} is 2 or more
    return _("running {count} tools").format(count=len(running))


def _cut(reason: StopReason | str | None) -> str | None:
    """What to say under an answer the model did not end itself (None: it did)."""
    if reason == StopReason.MAX_TOKENS:
        return _("⚠ the answer was cut at max_tokens (raise it with "
                 "`chatcli config set max_tokens 8192`)")
    if reason == StopReason.REPETITION:
        return _("⚠ the answer was cut: the model kept repeating itself")
    return None


def compacted_line(event: Compacted) -> str:
    """``⟲ compacted with trim, summarise: ~91,000 → ~22,000 tokens`` (or why nothing was)."""
    return f"⟲ {event.report.line()}"


def describe_call(call: ToolCallPart, limit: int = 80) -> str:
    """A tool call in brief: ``exec(command="pytest -q")``."""
    if call.raw_arguments is not None:
        args = call.raw_arguments
    else:
        args = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
                         for key, value in call.arguments.items())
    args = " ".join(args.split())
    if len(args) > limit:
        args = args[: limit - 1] + "…"
    return f"{call.name}({args})"


def _result_line(event: ToolFinished, began: float | None, output_lines: int,
                 named: bool) -> str:
    """``  ✓ 3 passed in 0.2s (4 more lines) · 1.3s``: the result in brief and the time it took."""
    result = event.result
    lines = [line for line in result.content.splitlines() if line.strip()]
    first = " ".join(lines[0].split()) if lines else _("(no output)")
    if len(first) > 90:
        first = first[:89] + "…"
    if len(lines) > 1:
        more = len(lines) - 1
        first += " " + ngettext("({count} more line)", "({count} more lines)", more).format(
            count=more)
    who = f"{result.name}: " if named else ""  # beside other calls: which one it closes
    took = f" · {time.monotonic() - began:.1f}s" if began is not None else ""
    shown = (" · " + ngettext("{count:,} line of output", "{count:,} lines of output",
                              output_lines).format(count=output_lines)) if output_lines else ""
    return f"  {'✗' if result.is_error else '✓'} {who}{first}{took}{shown}"


def _interrupted(finished: TurnFinished) -> str:
    """What Ctrl+C left behind: the engine keeps an answer only when something of it arrived."""
    if any(message.role == Role.ASSISTANT for message in finished.messages):
        return _("⏹ interrupted — the partial answer is kept; /retry answers again")
    return _("⏹ stopped before any answer arrived — /retry asks again")


def _footer(app: ReplApp, finished: TurnFinished, seconds: float) -> None:
    usage: Usage = finished.usage
    model = finished.model or app.session.model
    answered = getattr(finished, "answered_by", None)  # a fallback chain or pool handed it on
    parts = [_("{answered}/{model} via {provider}").format(
        answered=answered, model=model, provider=app.session.provider_name) if answered
             else f"{app.session.provider_name}/{model}"]
    failed = getattr(finished, "failed", None) or []
    if failed and finished.error is None:
        parts.append(", ".join(
            (_("{engine} skipped") if f.kind == "skipped" else _("{engine} failed")).format(
                engine=f"{f.provider}/{f.model}") for f in failed))
    if usage.input_tokens or usage.output_tokens:  # unknown when the answer was cut short
        parts.append(_("{input:,} in · {output:,} out").format(
            input=usage.input_tokens, output=usage.output_tokens))
    if usage.cache_read_tokens or usage.cache_write_tokens:
        parts.append(_("cache {read:,} read · {write:,} write").format(
            read=usage.cache_read_tokens, write=usage.cache_write_tokens))
    parts.append(f"{seconds:.1f}s")
    app.console.print("  " + " · ".join(parts), style="dim", markup=False)


def _reason(event: Retrying) -> str:
    name = type(event.error).__name__
    return {"RateLimitError": _("rate limited"), "ServerError": _("server error"),
            "ProviderTimeoutError": _("timed out"), "NetworkError": _("network error")}.get(
                name, _("failed"))


def _one_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def retry(app: ReplApp) -> None:
    """Answer the last user message again (after a failure or an interruption)."""
    messages = app.conversation.messages()
    if not messages:
        app.console.print(_("nothing to retry"), style="yellow")
        return
    last = messages[-1]
    if last.role != Role.USER:
        user = app.conversation.last(Role.USER)
        if user is None:
            app.console.print(_("nothing to retry"), style="yellow")
            return
        app.conversation.move_head(user.id, "retry")
    app.console.print(_("retrying: {text!r}").format(text=(app.last_user_text() or "")[:60]),
                      style="dim", markup=False)
    run_turn(app, None)
