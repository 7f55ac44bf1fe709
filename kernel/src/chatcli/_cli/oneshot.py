"""``chatcli -p PROMPT`` (one answer, then exit) and the hand-over to the interactive chat.

The answer streams through :class:`chatcli.Engine`: rendered markdown on a terminal,
plain text when piped or with ``--raw``, or one JSON object with ``--json``. Retries and tool
calls are reported briefly on stderr so stdout holds only the answer.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from chatcli._calls import Tool
    from chatcli._cli.spinner import Spinner
    from chatcli._config import Settings
    from chatcli._conversation import Conversation
    from chatcli._engine import TurnFinished
    from chatcli._plugins import PluginHost
    from chatcli._session import Session, SessionOptions
    from chatcli._streaming import Retrying
    from chatcli._types import ToolCallPart

__all__ = ["build_prompt", "clean_text", "decode_input", "main_command", "run_prompt"]

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: Piped input beyond this is refused (about two million tokens: more than any context window).
MAX_STDIN_BYTES = 8 * 2**20

REPL_HINT = "interactive chat needs chatcli-repl: pip install chatcli-repl"


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _read_stdin() -> str:
    """Piped stdin as text: UTF-8 (or UTF-16 with a BOM), undecodable bytes replaced.

    Binary data (a NUL byte) is refused with a usage error rather than sent to the model.
    """
    if sys.stdin is None:
        return ""
    buffer = getattr(sys.stdin, "buffer", None)
    try:
        if buffer is None:  # a text stream (tests, embedding): only stray surrogates to fix
            return clean_text(sys.stdin.read())
        data = buffer.read(MAX_STDIN_BYTES + 1)
    except (OSError, ValueError):
        return ""
    if len(data) > MAX_STDIN_BYTES:
        from chatcli._errors import UsageError

        raise UsageError(
            f"stdin is larger than {MAX_STDIN_BYTES // 2**20} MiB, more than any model reads",
            "send the part that matters, e.g. `tail -c 200000 FILE | chatcli -p …`",
        )
    return decode_input(data)


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes in argv or stdin) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:  # bytes that the OS decoding escaped: decode them again, replacing bad ones
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:
            return text.encode("utf-8", "replace").decode("utf-8")
    return text


def decode_input(data: bytes, what: str = "stdin") -> str:
    """Decode piped bytes: UTF-8 (BOM skipped) or UTF-16 with a BOM; invalid bytes become
    U+FFFD with a warning. Raises :class:`~chatcli.UsageError` for binary data."""
    from chatcli._errors import UsageError

    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if b"\x00" in data:
        raise UsageError(
            f"{what} is binary data ({len(data):,} bytes), not text",
            "pipe text instead, e.g. `file FILE`, or `xxd FILE | head -c 20000 | chatcli -p …`",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        _status(f"warning: {what} is not valid UTF-8 (byte 0x{data[err.start]:02x} at "
                f"{err.start}); undecodable bytes were replaced with U+FFFD")
        return data.decode("utf-8-sig", "replace")


def _fence(text: str) -> str:
    """``text`` in a fenced block whose fence is longer than any backtick run inside it."""
    import re

    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text.rstrip(chr(10))}\n{fence}"


def build_prompt(prompt: str | None, stdin_text: str | None) -> str | None:
    """Combine the ``-p`` text and piped stdin into the prompt that is sent.

    ``-p -`` takes the prompt from stdin; ``-p TEXT`` with piped stdin sends TEXT followed by the
    stdin text in a fenced block; no ``-p`` with piped stdin sends stdin as the prompt.
    """
    piped = stdin_text if stdin_text and stdin_text.strip() else None
    if prompt == "-":
        return piped.strip() if piped else None
    if prompt is not None and piped:
        return f"{prompt}\n\n{_fence(piped)}" if prompt.strip() else piped.strip()
    if prompt is not None:
        return prompt
    return piped.strip() if piped else None


def _refuse_option_as_prompt(prompt: str) -> None:
    """``chatcli -p --json "q"`` takes ``--json`` as the prompt (click gives ``-p`` the next
    word): refuse a prompt that is exactly one of chatcli's options instead of sending it."""
    import click

    from chatcli._errors import UsageError

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    names = {name for param in ctx.command.get_params(ctx) for name in param.opts}
    if prompt in names:
        raise UsageError(f"-p took '{prompt}' as the prompt",
                         f'put the prompt right after -p: chatcli {prompt} -p "question"'
                         if prompt not in ("-h", "--help") else "see `chatcli --help`")


def main_command(host: PluginHost, options: dict[str, Any]) -> int:
    """The root command without a sub-command: ``-p``, piped stdin, or the interactive chat.

    With ``--json`` every failure, a usage error too, is also printed as one JSON object on
    stdout (by :func:`chatcli._cli.run`), so a script that parses stdout always gets an object.
    """
    from chatcli._errors import UsageError

    if options.get("continue_last") and options.get("resume"):
        raise UsageError("-c and --resume both choose the session to go on with",
                         "give one: -c for the most recent session, --resume ID for another")
    if sys.stdout is None:  # started with stdout closed (`>&-`): the answer has nowhere to go
        raise UsageError("stdout is closed, so the answer has nowhere to go",
                         "redirect it instead, e.g. `> answer.txt` or `> /dev/null`")
    prompt_opt: str | None = options.get("prompt")
    if prompt_opt is not None:
        prompt_opt = clean_text(prompt_opt)
        _refuse_option_as_prompt(prompt_opt)
    if options.get("system"):
        options = {**options, "system": clean_text(options["system"])}
    if prompt_opt is None and _stdin_is_tty():
        return _interactive(host, options)
    stdin_text = None if _stdin_is_tty() else _read_stdin()
    prompt = build_prompt(prompt_opt, stdin_text)
    if prompt is None or not prompt.strip():
        if prompt_opt == "-":
            raise UsageError("-p - reads the prompt from stdin, but stdin was empty",
                             'pipe the prompt in: echo "question" | chatcli -p -')
        if prompt_opt is not None:
            raise UsageError("the prompt is empty", 'give one: chatcli -p "question"')
        raise UsageError("no prompt: stdin was empty",
                         'give one: chatcli -p "question", or run chatcli on a terminal')
    return run_prompt(host, prompt, options)


def _flags(options: dict[str, Any]) -> dict[str, Any]:
    return {"provider": options.get("provider"), "model": options.get("model"),
            "system": options.get("system")}


def session_options(options: dict[str, Any]) -> SessionOptions:
    """The command line's options as the :class:`~chatcli.SessionOptions` of a session."""
    from chatcli._session import SessionOptions
    from chatcli._specs import Risk

    return SessionOptions(
        provider=options.get("provider"), model=options.get("model"),
        resume=options.get("resume"), continue_last=bool(options.get("continue_last")),
        allow=frozenset(Risk(name) for name in options.get("allow") or ()),
    )


def _interactive(host: PluginHost, options: dict[str, Any]) -> int:
    from chatcli._cli.common import settings_from
    from chatcli._errors import UsageError

    settings = settings_from(_flags(options))
    before = len(host.failures)
    result = host.hooks.interactive_main(options=session_options(options), host=host,
                                         settings=settings)
    if result is None:
        crashed = [f for f in host.failures[before:] if f.stage == "in hook interactive_main"]
        if crashed:
            # already reported as a plugin failure; say plainly that the chat could not start
            raise UsageError(f"the interactive chat failed to start: {crashed[0].reason}")
        raise UsageError(REPL_HINT)
    return int(result)


# ----------------------------------------------------------------------------------- one shot


def _make_approver(allowed: frozenset[str]):  # -> Approver | None
    """Pre-approved risk classes; on a terminal, ask for the others; else nobody can be asked."""
    can_ask = _stdin_is_tty() and sys.stderr.isatty()
    if not allowed and not can_ask:
        return None

    def approve(call: ToolCallPart, tool: Tool) -> bool:
        if tool.risk.value in allowed:
            return True
        if not can_ask:
            return False
        import click

        return click.confirm(
            f"chatcli: allow {tool.risk.value} tool {_describe_call(call)}?",
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


def _status(text: str) -> None:
    print(f"chatcli: {text}", file=sys.stderr, flush=True)


def _retry_text(event: Retrying) -> str:
    from chatcli._errors import NetworkError, ProviderTimeoutError, RateLimitError, ServerError

    error = event.error
    if isinstance(error, RateLimitError):
        what = "rate limited"
    elif isinstance(error, ServerError):
        what = "server error"
    elif isinstance(error, ProviderTimeoutError):
        what = "timed out"
    elif isinstance(error, NetworkError):
        what = "network error"
    else:
        what = "failed"
    return f"{what}, retrying in {event.delay:.1f}s… (attempt {event.attempt + 1})"


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
        from chatcli._cli.render import MarkdownStream
    except ImportError:
        return None
    from rich.console import Console

    return MarkdownStream(Console(file=out))


def _output_mode(options: dict[str, Any], settings: Settings, out: TextIO) -> str:
    if options.get("as_json"):
        return "json"
    if options.get("raw") or not settings.markdown:
        return "plain"
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return "markdown" if tty else "plain"


def run_prompt(host: PluginHost, prompt: str, options: dict[str, Any]) -> int:
    """Answer ``prompt`` once; returns the exit code. Raises ChatcliError for setup failures."""
    from chatcli._cli.common import settings_from
    from chatcli._cli.spinner import Spinner
    from chatcli._session import Session
    from chatcli._types import Message

    run = session_options(options)
    waiting = Spinner(sys.stderr, "waiting…")  # also prints retry lines above itself
    session = Session(
        host, settings_from(_flags(options)), run,
        approver=_make_approver(frozenset(risk.value for risk in run.allow)),
        on_retry=lambda event: waiting.say(f"chatcli: {_retry_text(event)}"),
    ).open()
    output = _Output(sys.stdout, _output_mode(options, session.settings, sys.stdout))
    spin = output.mode == "markdown" and _isatty(sys.stderr)
    waiting.text = f"waiting for {session.provider_name}/{session.model}…"
    conversation = session.conversation
    finished: TurnFinished | None = None
    events = session.run(Message.user(prompt))
    interrupted = False
    try:
        try:
            finished = _consume(events, output, waiting if spin else None)
        finally:
            waiting.stop()
            output.finish()
    except KeyboardInterrupt:
        interrupted = True
        events.close()  # the engine keeps the partial answer, marked interrupted
    except BrokenPipeError:  # stdout's reader left (`| head -1`): stop, keep what came, exit 0
        events.close()
        raise
    finally:
        session.close()
    return _report(finished, interrupted, session, conversation, bool(options.get("as_json")))


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


def _consume(events: Any, output: _Output, waiting: Spinner | None) -> TurnFinished | None:
    """Show the events of a turn; ``waiting`` spins while the model has not answered yet."""
    from chatcli._calls import TextDelta
    from chatcli._engine import ToolFinished, ToolStarted, TurnFinished
    from chatcli._streaming import Retrying

    if waiting is not None:
        waiting.start()
    finished = None
    started: set[str] = set()
    for event in events:
        if isinstance(event, Retrying):
            continue  # already shown by on_retry, before the wait
        if waiting is not None:
            waiting.stop()
        if isinstance(event, TextDelta):
            output.feed(event.text)
        elif isinstance(event, ToolStarted):
            started.add(event.call.id)
            output.pause()
            _status(f"tool {_describe_call(event.call)}")
        elif isinstance(event, ToolFinished):
            result = event.result
            if result.is_error:
                first = (result.content.splitlines() or [""])[0]
                if event.call.id not in started:  # refused before it ran: say which call
                    output.pause()
                    _status(f"tool {_describe_call(event.call)} not run: {first[:200]}")
                else:
                    _status(f"tool {result.name} failed: {first[:200]}")
            else:
                _status(f"tool {result.name} done ({len(result.content)} chars)")
            if waiting is not None:
                waiting.start()  # the model is asked again with the tool's result
        elif isinstance(event, TurnFinished):
            finished = event
    return finished


def _report(finished: TurnFinished | None, interrupted: bool, session: Session,
            conversation: Conversation, as_json: bool) -> int:
    from chatcli._specs import StopReason
    from chatcli._types import Usage

    error = finished.error if finished else None
    if finished is not None and finished.stop_reason == StopReason.INTERRUPTED:
        interrupted = True
    if as_json:
        last = conversation.last()
        text = finished.text if finished else (last.text if last else "")
        usage = finished.usage if finished else Usage()
        stop = StopReason.INTERRUPTED if interrupted else (
            finished.stop_reason if finished else StopReason.INTERRUPTED)
        payload: dict[str, Any] = {
            "text": text,
            "provider": session.provider_name,
            "model": (finished.model if finished else None) or session.model,
            "usage": usage.model_dump(),
            "stop_reason": str(stop.value),
            "conversation_id": conversation.id,
        }
        if error is not None:  # the partial answer the session kept travels with the error
            payload |= {"error": str(error), "type": type(error).__name__}
        print(json.dumps(payload, ensure_ascii=False), flush=True)
    if error is not None:
        from chatcli._cli.common import debug_enabled, error_line

        if debug_enabled():
            import traceback

            traceback.print_exception(error)
        error_line(str(error))
        return error.exit_code
    if interrupted:
        _status("interrupted")
        return EXIT_INTERRUPTED
    if finished is not None and finished.stop_reason == StopReason.TURN_LIMIT:
        _status(f"stopped after {session.settings.max_turns} model calls (max_turns)")
    return EXIT_OK
