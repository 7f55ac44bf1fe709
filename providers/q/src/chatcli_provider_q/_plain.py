"""The plain Q provider: one ``q chat --no-interactive`` process per answer.

``q chat --no-interactive [--resume] [--trust-all-tools] [--model M] PROMPT`` prints the answer
on stdout (after a green ``> ``, with colours) and its greeting, spinners and errors on stderr.
The answer streams to chatcli as it is read and cleaned; the exit code and stderr decide the
error when something goes wrong. Closing the stream (Ctrl+C, an abandoned turn) kills the process.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from chatcli import (
    ChatRequest,
    ProviderConfig,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    translation,
)
from chatcli_provider_kit import CancellableStream

from chatcli_provider_q._clean import Cleaner
from chatcli_provider_q._context import Tracker
from chatcli_provider_q._errors import QEmptyAnswerError, QTimeoutError, exit_error
from chatcli_provider_q._options import QOptions
from chatcli_provider_q._process import QProcess, resolve_command

__all__ = ["ARG_LIMIT", "QProvider"]

_, ngettext = translation(__name__)

#: Prompts longer than this (bytes) go through stdin instead of the command line: Linux limits
#: one argument to 128 KiB, and a long transcript would not fit.
ARG_LIMIT = 100_000


class QProvider:
    """Answers each request with a fresh ``q chat --no-interactive`` run."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self.options = QOptions.from_config(config, daemon=False)
        self.command = resolve_command(self.options.command)
        self.program = (self.options.command or "q").split()[0]  # as the user knows it
        self._tracker = Tracker()

    def argv(self, prompt: str | None, resume: bool) -> list[str]:
        """The command line for one answer (``prompt`` None: it goes through stdin)."""
        argv = [*self.command, "chat", "--no-interactive"]
        if resume:
            argv.append("--resume")
        argv += self.options.flags()
        if prompt is not None:
            argv.append(prompt)
        return argv

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Run ``q`` for ``request`` and yield the cleaned answer as it is printed; ``cancel()``
        on the stream kills that q."""
        started: list[QProcess] = []

        def stop() -> None:
            for process in started:
                process.kill()

        return CancellableStream(self._answer(request, started), stop)

    def _answer(self, request: ChatRequest, started: list[QProcess]) -> Iterator[StreamEvent]:
        options = self.options
        plan = self._tracker.plan(request, system_prompt=options.system_prompt,
                                  can_resume=options.context == "resume")
        large = len(plan.text.encode("utf-8")) > ARG_LIMIT
        process = QProcess(self.argv(None if large else plan.text, plan.resume),
                           input_text=plan.text if large else None)
        started.append(process)
        try:
            cleaner, errors = Cleaner(strip_reply_marker=True), Cleaner()
            stderr: list[str] = []
            last = time.monotonic()
            while process.output_open:
                chunk = process.next_chunk(options.timeout - (time.monotonic() - last))
                if chunk is None:
                    raise QTimeoutError(
                        _("q printed nothing for {timeout:g}s and was stopped").format(
                            timeout=options.timeout),
                        _("try again, or raise `chatcli config set providers.q.timeout 300`"),
                        provider="q")
                last = time.monotonic()
                if chunk.stream == "out":
                    text = cleaner.feed(chunk.text) if chunk.text else ""
                    if text:
                        yield TextDelta(text=text)
                else:
                    stderr.append(errors.feed(chunk.text))
                    if chunk.text:
                        cleaner.expect_reply()  # a tool ran: q marks the answer's next part
            code = process.wait(options.timeout)
            if code is None:
                raise QTimeoutError(_("q did not exit {timeout:g}s after its output ended").format(
                                        timeout=options.timeout),
                                    _("try again; if it keeps happening run `q doctor`"),
                                    provider="q")
            tail = cleaner.finish()
            if tail:
                yield TextDelta(text=tail)
            stderr.append(errors.finish())
            if code != 0:
                self._tracker.forget()
                raise exit_error(code, "".join(stderr), self.program)
            if not cleaner.started:
                raise QEmptyAnswerError(_("q answered nothing (its output was empty once "
                                          "cleaned)"),
                                        _("try again, or run `q chat` in a terminal to see "
                                          "what it prints"), provider="q")
            if options.context == "resume":
                self._tracker.sent(request)
            yield StopEvent(reason=StopReason.END_TURN, model=options.model)
        finally:
            process.kill()
