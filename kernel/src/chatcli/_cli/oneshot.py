"""The root command without a sub-command: ``chatcli -p PROMPT``, piped stdin, or the chat.

This module reads the prompt (``-p``, stdin — decoded, size- and binary-checked — or both) and
hands it to the plugin that answers it (``cmdline_main``: chatcli-print answers a prompt once,
chatcli-repl runs the interactive chat when there is none).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli._plugins import PluginHost

__all__ = ["build_prompt", "clean_text", "decode_input", "main_command"]

#: Piped input beyond this is refused (about two million tokens: more than any context window).
MAX_STDIN_BYTES = 8 * 2**20

REPL_HINT = "interactive chat needs chatcli-repl: pip install chatcli-repl"
PRINT_HINT = "answering a prompt needs chatcli-print: pip install chatcli-print"


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
        print(f"chatcli: warning: {what} is not valid UTF-8 (byte 0x{data[err.start]:02x} at "
              f"{err.start}); undecodable bytes were replaced with U+FFFD", file=sys.stderr,
              flush=True)
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
        return _hand_over(host, options, None)
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
    return _hand_over(host, options, prompt)


def _hand_over(host: PluginHost, options: dict[str, Any], prompt: str | None) -> int:
    """Run the plugin that answers ``prompt`` (None: the interactive chat); the exit code."""
    from chatcli._cli.common import session_options, settings_flags, settings_from
    from chatcli._errors import UsageError

    settings = settings_from(settings_flags(options))
    given = {**(options.get("plugin_options") or {}), "as_json": bool(options.get("as_json")),
             "raw": bool(options.get("raw"))}
    result = host.hooks.cmdline_main(host=host, settings=settings, prompt=prompt,
                                     options=session_options({**options, "plugin_options": given}))
    if result is None:
        name, hint = ("repl", REPL_HINT) if prompt is None else ("print", PRINT_HINT)
        if name in host.skipped:  # installed, left out by the selection: not a pip matter
            raise UsageError(f"{hint.partition(':')[0]}, which CHATCLI_PLUGINS or "
                             "CHATCLI_DISABLE_PLUGINS leaves out",
                             f"add {name} to CHATCLI_PLUGINS (or take it out of the other)")
        raise UsageError(hint)
    return int(result)
