"""The prompt ``chatcli -p`` answers: the ``-p`` text, piped stdin, or both.

:func:`read_prompt` reads piped stdin (UTF-8, or UTF-16 with a BOM; binary data and input larger
than any context refused in one line, before any request) and combines it with the ``-p`` text:
``git diff | chatcli -p review`` sends "review" followed by the diff in a fenced block; ``-p -``
takes the prompt from stdin alone.
"""

from __future__ import annotations

import sys

from chatcli import translation

__all__ = ["MAX_STDIN_BYTES", "build_prompt", "decode_input", "read_prompt", "stdin_is_tty"]

#: Piped input beyond this is refused (about two million tokens: more than any context window).
MAX_STDIN_BYTES = 8 * 2**20

_, ngettext = translation(__name__)


def stdin_is_tty() -> bool:
    """Whether stdin is a terminal (False when it is closed or no real stream)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def read_prompt(prompt: str | None) -> str:
    """The prompt to answer from the ``-p`` text (None when ``-p`` was not given) and piped
    stdin (not read when stdin is a terminal). Raises :class:`chatcli.UsageError` when it is
    empty, when ``-p`` took one of chatcli's options as its text, or for stdin that is binary or
    too large."""
    from chatcli import UsageError

    if prompt is not None:
        _refuse_option_as_prompt(prompt)
    text = build_prompt(prompt, None if stdin_is_tty() else _read_stdin())
    if text is None or not text.strip():
        if prompt == "-":
            raise UsageError(_("-p - reads the prompt from stdin, but stdin was empty"),
                             _('pipe the prompt in: echo "question" | chatcli -p -'))
        if prompt is not None:
            raise UsageError(_("the prompt is empty"), _('give one: chatcli -p "question"'))
        raise UsageError(_("no prompt: stdin was empty"),
                         _('give one: chatcli -p "question", or run chatcli on a terminal'))
    return text


def _read_stdin() -> str:
    """Piped stdin as text: UTF-8 (or UTF-16 with a BOM), undecodable bytes replaced.

    Binary data (a NUL byte) is refused with a usage error rather than sent to the model.
    """
    if sys.stdin is None:
        return ""
    buffer = getattr(sys.stdin, "buffer", None)
    try:
        if buffer is None:  # a text stream (tests, embedding): only stray surrogates to fix
            from chatcli import clean_text

            return clean_text(sys.stdin.read())
        data = buffer.read(MAX_STDIN_BYTES + 1)
    except (OSError, ValueError):
        return ""
    if len(data) > MAX_STDIN_BYTES:
        from chatcli import UsageError

        raise UsageError(
            _("stdin is larger than {size} MiB, more than any model reads").format(
                size=MAX_STDIN_BYTES // 2**20),
            _("send the part that matters, e.g. `tail -c 200000 FILE | chatcli -p …`"),
        )
    return decode_input(data)


def decode_input(data: bytes, what: str = "stdin") -> str:
    """Decode piped bytes: UTF-8 (BOM skipped) or UTF-16 with a BOM; invalid bytes become
    U+FFFD with a warning. Raises :class:`chatcli.UsageError` for binary data."""
    from chatcli import UsageError

    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if b"\x00" in data:
        raise UsageError(
            _("{what} is binary data ({size:,} bytes), not text").format(what=what,
                                                                        size=len(data)),
            _("pipe text instead, e.g. `file FILE`, or `xxd FILE | head -c 20000 | chatcli -p …`"),
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        print(_("chatcli: warning: {what} is not valid UTF-8 (byte 0x{byte:02x} at {offset}); "
                "undecodable bytes were replaced with U+FFFD").format(
                    what=what, byte=data[err.start], offset=err.start),
              file=sys.stderr, flush=True)
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
    from chatcli import UsageError

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    names = {name for param in ctx.command.get_params(ctx) for name in param.opts}
    if prompt in names:
        raise UsageError(_("-p took '{option}' as the prompt").format(option=prompt),
                         _('put the prompt right after -p: chatcli {option} -p "question"'
                           ).format(option=prompt)
                         if prompt not in ("-h", "--help") else _("see `chatcli --help`"))
