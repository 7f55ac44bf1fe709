"""Answering ``chatcli -p``: the answer on stdout, what happens around it on stderr.

:func:`run_prompt` answers the prompt once, or runs it as a slash command (``-p "/name …"``).

:class:`OneShot` opens the session, shows each turn (rendered markdown on a terminal, plain text
when piped or with ``--raw``, one JSON object with ``--json``; tool calls, retries and a
"waiting…" spinner on stderr; a compaction of the view as one ``⟲`` line there too; on a
terminal, the label of the answer's author above it when a plugin names one — a persona) and
turns how it ended into the exit code. It is also the :class:`chatcli.ChatApp` a slash command gets
when it is run from the shell (``chatcli -p "/coder fix the test"``): nobody can be asked to
pick, so such a command takes its choice as an argument.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from chatcli import ChatApp, hookimpl, translation

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import (
        Conversation,
        Message,
        PluginHost,
        Retrying,
        Session,
        SessionOptions,
        Settings,
        Tool,
        ToolCallPart,
        TurnFinished,
        Verdict,
    )
    from chatcli_render import Spinner
    from rich.console import Console

__all__ = ["OneShot", "run_prompt", "status"]

_, ngettext = translation(__name__)

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def run_prompt(host: PluginHost, settings: Settings, options: SessionOptions,
               prompt: str) -> int:
    """Answer ``prompt`` once (or run it as a slash command); returns the exit code. Raises
    ChatcliError for setup failures."""
    command = _slash_command(host, prompt)
    run = OneShot(host, settings, options)
    try:
        remote = getattr(run.session, "remote_command", None)
        name = prompt.strip()[1:].split(" ", 1)[0] if prompt.strip().startswith("/") else ""
        if remote is not None and name and "/" not in name:
            for text in remote(prompt.strip()):  # a server's session runs its commands
                sys.stdout.write(text)
                sys.stdout.flush()
        elif command is None:
            from chatcli import Message

            run.turn(Message.user(prompt))
        else:
            _run_command(run, *command)
    finally:
        code = run.report()
    return code


def _slash_command(host: PluginHost, prompt: str) -> tuple[Any, str] | None:
    """``(command, argument text)`` when ``prompt`` is ``/name …`` and a plugin registered the
    command ``name`` (or that alias); a message starting with a path is not a command."""
    text = prompt.strip()
    if not text.startswith("/"):
        return None
    name, _, argument = text[1:].partition(" ")
    if not name or "/" in name:
        return None
    commands = host.slash_commands()
    command = commands.get(name) or next(
        (c for c in commands.values() if name in c.aliases), None)
    return (command, argument.strip()) if command is not None else None


def _run_command(run: Any, command: Any, argument: str) -> None:
    """Run a slash command with the one-shot run as its chat; its errors are the run's."""
    from chatcli import ChatcliError, UsageError

    try:
        command.run(run, argument)
    except ChatcliError:
        raise
    except Exception as err:  # a plugin's command: one line naming it
        raise UsageError(_("/{command} failed: {kind}: {error}").format(
            command=command.name, kind=type(err).__name__, error=err),
            _("report it to the plugin's authors (`chatcli plugins list` names it)")) from err


class OneShot(ChatApp):
    """One ``-p`` run: its session, how turns are shown, and the exit code they come to."""

    def __init__(self, host: PluginHost, settings: Settings, run: SessionOptions) -> None:
        from chatcli import Session
        from chatcli_render import Spinner

        self.host = host
        self.as_json = bool(run.extra.get("as_json"))
        self.waiting = Spinner(sys.stderr, _("waiting…"))  # also prints retry lines above itself
        self.spend = Spend()
        host.register(self.spend, f"print-spend-{id(self.spend)}")
        remote = run.extra.get("remote")  # --remote (chatcli-remote): a server's session
        self.session = (Session if remote is None else remote.session)(
            host, settings, run,
            approver=_make_approver(run.allow, self.waiting.stop),
            on_retry=lambda event: self.waiting.say(f"chatcli: {_retry_text(event)}"),
            on_tool_output=self._tool_output,
        ).open()
        self.output = _Output(sys.stdout, _output_mode(run, self.session.settings, sys.stdout))
        self.spin = self.output.mode == "markdown" and _isatty(sys.stderr)
        self.waiting.text = _("waiting for {provider}/{model}…").format(
            provider=self.session.provider_name, model=self.session.model)
        self.finished: TurnFinished | None = None
        self.interrupted = False
        import time

        self.started = time.time()  # the files changed since: a stat, --json's files_changed

    # ChatApp.console is an attribute; a cached_property is one too (writable), made on first use
    @functools.cached_property
    def console(self) -> Console:  # type: ignore[override]
        """The console on stdout, made when first used (rich costs 25 ms to import, and only
        a named author above a rendered answer needs it). Not on a terminal, lines are not
        wrapped (at rich's 80 columns): a script reads each line whole."""
        from rich.console import Console

        return Console(file=sys.stdout, highlight=False, no_color=self.output.mode != "markdown",
                       soft_wrap=not _isatty(sys.stdout))

    # ---------------------------------------------------------------- ChatApp
    # (settings, conversation and set_conversation come from ChatApp, through the session)

    def ask(self, text: str) -> TurnFinished | None:
        """Run a turn on ``text`` now, shown like ``-p``'s answer."""
        from chatcli import Message

        return self.turn(Message.user(text))

    def submit(self, text: str) -> None:
        """Send ``text`` (in a one-shot run: now)."""
        self.ask(text)

    def retry(self) -> None:
        """Answer the last user message again."""
        from chatcli import Role

        user = self.conversation.last(Role.USER)
        if user is None:
            status(_("nothing to retry"))
            return
        if self.conversation.head != user.id:
            self.conversation.move_head(user.id, "retry")
        self.turn(None)

    def pick(self, title: str, options: list[str]) -> int | None:
        """Nobody can pick in a one-shot run: the command must take its choice as an argument."""
        status(_("{title} — needs a choice, which a one-shot run cannot ask for; give it as the "
                 "command's argument").format(title=title))
        return None

    def prefill(self, text: str) -> None:
        """There is no input line to fill in a one-shot run; show the text instead."""
        status(_("(your message, to send again if you want: {text})").format(text=text[:200]))

    def exit(self) -> None:
        """A one-shot run ends after its command anyway."""

    # ---------------------------------------------------------------- turns

    def turn(self, message: Message | None) -> TurnFinished | None:
        """Run and show one turn; keeps how it ended for :meth:`report`."""
        events = self.session.run(message)
        announce = self._announce if self.output.mode == "markdown" else None
        try:
            try:
                self.finished = _consume(events, self.output, self.waiting if self.spin else None,
                                         announce)
            finally:
                self.waiting.stop()
                self.output.finish()
        except KeyboardInterrupt:
            self.interrupted = True
            events.close()  # the engine keeps the partial answer, marked interrupted
        except BrokenPipeError:  # stdout's reader left (`| head -1`): stop, keep what came, exit 0
            events.close()
            raise
        return self.finished

    def report(self) -> int:
        """Close the session and turn the last turn's end into the exit code."""
        conversation = self.session.conversation
        self.session.close()
        changed: list[dict[str, Any]] = []
        ask = getattr(self.host.hook, "workspace_diff", None)  # chatcli-checkpoints answers it
        first = next((c for c in conversation.checkpoints if c.created_at >= self.started), None)
        if ask is not None and first is not None:
            from chatcli_print.changes import files_changed

            changed = files_changed(ask, conversation, first.id)
        return _report(self.finished, self.interrupted, self.session, conversation, self.as_json,
                       self.spend, changed)

    def _announce(self) -> None:
        """The author's label above the answer (``answer_author``: a persona's), in its style;
        plain under ``NO_COLOR``."""
        from rich.text import Text

        author = self.host.hooks.answer_author(conversation=self.session.conversation)
        if author is None or not author.shown.strip():
            return
        style = "" if os.environ.get("NO_COLOR") else (author.style or "bold")
        self.console.print(Text(author.shown, style=style))

    def _tool_output(self, line: str) -> None:
        """A running tool's live output, dim on stderr (stdout holds only the answer)."""
        self.output.pause()
        print(f"  │ {line.rstrip()}", file=sys.stderr, flush=True)


def status(text: str) -> None:
    """A one-line ``chatcli: …`` note on stderr."""
    print(f"chatcli: {text}", file=sys.stderr, flush=True)  # untranslated: the name


def _make_approver(allowed: frozenset[str], before_asking: Callable[[], None] = lambda: None
                   ) -> Callable[[ToolCallPart, Tool, Verdict], bool] | None:
    """Pre-approved risk classes; on a terminal, ask for the others (``before_asking`` first:
    the spinner stops, or it would draw over the question); else nobody can be asked."""
    can_ask = _isatty(sys.stdin) and _isatty(sys.stderr)
    if not allowed and not can_ask:
        return None

    def approve(call: ToolCallPart, tool: Tool, verdict: Verdict) -> bool:
        if tool.risk.value in allowed:
            return True
        if not can_ask:
            return False
        import click

        before_asking()
        preview = getattr(verdict, "preview", None)
        if preview:  # the diff the call would apply (its first 400 lines)
            from chatcli import redact
            from chatcli_render.diff import fold

            shown, hidden = fold(redact(preview), 400)
            print(shown, file=sys.stderr, flush=True)
            if hidden:
                print(ngettext("… {count:,} more diff line", "… {count:,} more diff lines",
                               hidden).format(count=hidden), file=sys.stderr, flush=True)
        # i18n: the answer keys stay click's y/n (shown after the question as [y/N])
        question = (_("chatcli: allow {risk} tool {call} ({reason})?") if verdict.reason else
                    _("chatcli: allow {risk} tool {call}?"))
        return click.confirm(
            question.format(risk=tool.risk.value, call=_describe_call(call),
                            reason=verdict.reason),
            default=False, err=True,
        )

    return approve


def _describe_call(call: ToolCallPart, limit: int = 80) -> str:
    if call.raw_arguments is not None:
        args = call.raw_arguments
    else:
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in
                         call.arguments.items())
    if len(args) > limit:
        args = args[: limit - 1] + "…"
    return f"{call.name}({args})"


def _retry_text(event: Retrying) -> str:
    from chatcli import NetworkError, ProviderTimeoutError, RateLimitError, ServerError

    error = event.error
    if isinstance(error, RateLimitError):
        what = _("rate limited")
    elif isinstance(error, ServerError):
        what = _("server error")
    elif isinstance(error, ProviderTimeoutError):
        what = _("timed out")
    elif isinstance(error, NetworkError):
        what = _("network error")
    else:
        what = _("failed")
    return _("{what}, retrying in {delay:.1f}s… (attempt {attempt})").format(
        what=what, delay=event.delay, attempt=event.attempt + 1)


class _Output:
    """Where the answer text goes: plain text, the streaming markdown renderer, or nowhere
    (``--json`` collects it)."""

    def __init__(self, out: TextIO, mode: str) -> None:
        self.out = out
        self.mode = mode
        self.ended_with_newline = True
        self.wrote = False
        self._markdown: Any = None
        if mode == "markdown":
            self._markdown = _markdown_stream(out)
            if self._markdown is None:
                self.mode = "plain"

    def feed(self, text: str) -> None:
        if not text or self.mode == "json":
            return
        self.wrote = True
        if self.mode == "markdown":
            if self._markdown is None:
                self._markdown = _markdown_stream(self.out)
            self._markdown.feed(text)
            return
        self.out.write(text)
        self.out.flush()
        self.ended_with_newline = text.endswith("\n")

    def pause(self) -> None:
        """Print what has arrived before a status line (a tool call) appears on stderr."""
        if self._markdown is not None:
            self._markdown.finish()
            self._markdown = None
        elif self.mode == "plain" and self.wrote and not self.ended_with_newline:
            self.out.write("\n")
            self.out.flush()
            self.ended_with_newline = True

    def finish(self) -> None:
        if self.mode == "json":
            return
        if self.mode == "markdown":
            if self._markdown is not None:
                self._markdown.finish()
                self._markdown = None
            return
        if self.wrote and not self.ended_with_newline:
            self.out.write("\n")
            self.out.flush()


def _markdown_stream(out: TextIO) -> Any:
    try:
        from chatcli_render import MarkdownStream
    except ImportError:
        return None
    from rich.console import Console

    return MarkdownStream(Console(file=out))


def _output_mode(run: SessionOptions, settings: Settings, out: TextIO) -> str:
    if run.extra.get("as_json"):
        return "json"
    if run.extra.get("raw") or not settings.markdown:
        return "plain"
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return "markdown" if tty else "plain"


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _consume(events: Any, output: _Output, waiting: Spinner | None,
             announce: Callable[[], None] | None = None) -> TurnFinished | None:
    """Show the events of a turn; ``waiting`` spins while the model has not answered yet;
    ``announce`` prints the author's label before the answer's first text or tool call."""
    from chatcli import Compacted, Retrying, TextDelta, ToolFinished, ToolStarted, TurnFinished

    if waiting is not None:
        waiting.start()
    finished = None
    started: set[str] = set()
    for event in events:
        if isinstance(event, Retrying):
            continue  # already shown by on_retry, before the wait
        if waiting is not None:
            waiting.stop()
        if announce is not None and isinstance(event, TextDelta | ToolStarted | ToolFinished):
            announce()
            announce = None
        if isinstance(event, TextDelta):
            output.feed(event.text)
        elif isinstance(event, ToolStarted):
            started.add(event.call.id)
            output.pause()
            status(_("tool {call}").format(call=_describe_call(event.call)))
        elif isinstance(event, ToolFinished):
            result = event.result
            if result.is_error:
                first = (result.content.splitlines() or [""])[0]
                if event.call.id not in started:  # refused before it ran: say which call
                    output.pause()
                    status(_("tool {call} not run: {error}").format(
                        call=_describe_call(event.call), error=first[:200]))
                else:
                    status(_("tool {name} failed: {error}").format(name=result.name,
                                                                   error=first[:200]))
            else:
                status(ngettext("tool {name} done ({count} char)",
                                "tool {name} done ({count} chars)",
                                len(result.content)).format(name=result.name,
                                                            count=len(result.content)))
            if waiting is not None:
                waiting.start()  # the model is asked again with the tool's result
        elif isinstance(event, Compacted):
            output.pause()
            status(f"⟲ {event.report.line()}")
            if waiting is not None:
                waiting.start()  # the model is asked next, with the compacted view
        elif isinstance(event, TurnFinished):
            finished = event
        # any other event (from a newer engine) is not shown: a display never fails on one
    return finished


def _report_fallback(finished: TurnFinished, session: Session) -> None:
    """The footer of a call a fallback chain or pool handed on: who failed, who answered
    (stderr, after the answer)."""
    for failure in finished.failed:
        line = (_("{chain}: {provider}/{model} skipped: {error}") if failure.kind == "skipped"
                else _("{chain}: {provider}/{model} failed: {error}"))
        status(line.format(chain=session.provider_name, provider=failure.provider,
                           model=failure.model, error=failure.error))
    if finished.answered_by and finished.error is None:
        status(_("answered by {provider}/{model} (via {chain})").format(
            provider=finished.answered_by, model=finished.model, chain=session.provider_name))


class Spend:
    """Every model call of the run by purpose — the turns' and the side calls plugins make
    (a compaction summary, a memory extraction): an ``after_response`` that takes ``purpose``
    sees both. ``--json``'s ``usage`` is their sum."""

    def __init__(self) -> None:
        self.by_purpose: dict[str, dict[str, int]] = {}

    @hookimpl
    def after_response(self, message: Message | None, purpose: str) -> None:
        if message is None or message.usage is None:
            return
        seen = self.by_purpose.setdefault(purpose, {"calls": 0})
        seen["calls"] += 1
        for name, value in message.usage.model_dump().items():
            seen[name] = seen.get(name, 0) + value


def _report(finished: TurnFinished | None, interrupted: bool, session: Session,
            conversation: Conversation, as_json: bool, spend: Spend | None = None,
            changed: list[dict[str, Any]] | None = None) -> int:
    from chatcli import StopReason, Usage

    error = finished.error if finished else None
    if finished is not None and finished.stop_reason == StopReason.INTERRUPTED:
        interrupted = True
    if finished is not None and finished.failed and not as_json and error is None:
        _report_fallback(finished, session)
    if as_json:
        last = conversation.last()
        text = finished.text if finished else (last.text if last else "")
        usage = finished.usage if finished else Usage()
        if spend is not None and spend.by_purpose:  # every call of the run, side calls too
            usage = Usage(**{name: sum(seen.get(name, 0) for seen in spend.by_purpose.values())
                             for name in Usage.model_fields})
        stop = StopReason.INTERRUPTED if interrupted else (
            finished.stop_reason if finished else StopReason.INTERRUPTED)
        answered_by = finished.answered_by if finished else None
        payload: dict[str, Any] = {
            "text": text,
            "provider": answered_by or session.provider_name,
            "model": (finished.model if finished else None) or session.model,
            "usage": usage.model_dump(),
            "usage_by_purpose": dict(spend.by_purpose) if spend is not None else {},
            "stop_reason": str(stop.value),
            "conversation_id": conversation.id,
            "files_changed": changed or [],  # [{"path", "added", "removed"}]
        }
        if answered_by:  # a fallback chain or pool handed the call on
            payload["via"] = session.provider_name
        payload["failed"] = [
            {"provider": f.provider, "model": f.model, "error": f.error, "type": f.kind}
            for f in (finished.failed if finished else [])]
        if error is not None:  # the partial answer the session kept travels with the error
            payload |= {"error": str(error), "type": type(error).__name__}
        # plugins add their keys (this plugin declares the hook: add_hookspecs)
        session.host.hook.json_report(payload=payload, conversation=conversation)
        print(json.dumps(payload, ensure_ascii=False), flush=True)
    elif changed:  # the diff stat, on stderr
        from chatcli_print.changes import stat_text

        rows = stat_text(changed)
        status(_("{total} (the diff: chatcli -c -p /diff)").format(total=rows[-1]))
        for row in rows[:-1]:
            print(f"  {row}", file=sys.stderr, flush=True)
    if error is not None:
        from chatcli import error_line

        if os.environ.get("CHATCLI_DEBUG", "") not in ("", "0", "false", "no"):
            import traceback

            traceback.print_exception(error)
        error_line(str(error))
        return error.exit_code
    if interrupted:
        status(_("interrupted"))
        return EXIT_INTERRUPTED
    if finished is not None and finished.stop_reason == StopReason.TURN_LIMIT:
        status(_("stopped after {count} model calls (max_turns)").format(
            count=session.settings.max_turns))
    if finished is not None and finished.stop_reason == StopReason.REPETITION:
        status(_("the answer was cut: the model kept repeating itself"))
    if finished is not None and finished.stop_reason == StopReason.MAX_TOKENS:
        status(_("the answer was cut at max_tokens (raise it with "
                 "`chatcli config set max_tokens 8192`)"))
    return EXIT_OK
