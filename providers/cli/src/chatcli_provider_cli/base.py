"""What the Claude Code and Codex providers share: finding the program, running one turn as a
process, the silence limit, error lines, and the link to the assistant's own session.

Each CLI has an :class:`EventMapper` that turns its JSON events into chatcli stream events; the
provider runs the process and feeds the mapper line by line.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from chatcli import ProviderError, translation

from chatcli_provider_cli.jsonl import classify, first_line, parse_line, telling_line

if TYPE_CHECKING:
    from chatcli import ChatRequest, ProviderConfig, StreamEvent, Usage

    from chatcli_provider_cli.conversation import Plan, SessionStore

__all__ = ["CliNotInstalledError", "CliProvider", "EventMapper", "cli_error"]

_, ngettext = translation(__name__)

#: Seconds between two looks at a silent process (and between two keep-alive events).
POLL = 0.25
#: The longest silence while the assistant runs one of its own tools (a build, a test suite).
TOOL_TIMEOUT = 1800.0
#: What a CLI says when the session to resume is gone ("No conversation found with session
#: ID: …" from Claude Code; a thread or rollout not found from Codex).
_SESSION_GONE = re.compile(
    r"no (conversation|session|saved session|rollout|thread)s? (was |were )?found|"
    r"(conversation|session|rollout|thread)\b[^.]*\b(not found|does not exist)", re.IGNORECASE)
#: Seconds stdout may stay open after the process exited (a child it left behind holds it).
EXIT_GRACE = 1.0
#: Seconds a process may take to exit after its last event before it is killed.
EXIT_WAIT = 5.0


class CliNotInstalledError(ProviderError):
    """The CLI assistant's program is not installed (or not where the settings say): a set-up
    problem, exit code 2 like a missing API key."""

    exit_code = 2


def cli_error(text: str, *, who: str, provider: str, hints: dict[str, str],
              prefix: str = "", special: Sequence[tuple[str, str]] = ()) -> ProviderError:
    """One line for an error the CLI reported (``text``), as the taxonomy's class: an
    :class:`~chatcli.AuthError` when it says to log in, :class:`~chatcli.RateLimitError` for
    a usage limit, :class:`~chatcli.ServerError` for a failing service, else a plain
    :class:`~chatcli.ProviderError`. Never retried by chatcli: the assistant may already
    have run tools, and the CLIs retry the service themselves."""
    from chatcli import AuthError, RateLimitError, ServerError

    kind = classify(text)
    classes: dict[str, type[ProviderError]] = {
        "auth": AuthError, "rate": RateLimitError, "server": ServerError}
    cls = classes.get(kind, ProviderError)
    line = telling_line(text) or _("no message")
    hint = next((fix for pattern, fix in special if re.search(pattern, text, re.IGNORECASE)),
                None) or hints.get(kind) or hints["other"]
    message = f"{prefix}: {line}" if prefix else _("{who} failed: {line}").format(
        who=who, line=line)
    error = cls(message, hint, provider=provider)
    error.retryable = False
    return error


class EventMapper:
    """Turns one run's JSON events into chatcli stream events (one instance per turn).

    ``feed`` returns the events one JSON object produces and raises a
    :class:`~chatcli.ProviderError` when the object reports a failure; ``finish`` is called
    once stdout closed, with the exit status and stderr, and returns the last events (usage,
    stop) or raises. ``session_id`` and ``text`` are what the store links.
    """

    def __init__(self, provider: CliProvider, model: str | None) -> None:
        self.provider = provider
        self.model = model
        self.session_id: str | None = None
        self.text: list[str] = []
        self.garbage: list[str] = []
        self.done = False
        #: ids of the assistant's own tool calls still running (its silence is then expected)
        self.running: set[str] = set()

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        """The stream events of one JSON object."""
        raise NotImplementedError

    def finish(self, code: int | None, stderr: str) -> list[StreamEvent]:
        """The last events, once the process ended (``code`` None: it had to be killed)."""
        raise NotImplementedError

    def usage(self) -> Usage:
        """The usage known so far."""
        from chatcli import Usage

        return Usage()

    def not_json(self, line: str) -> None:
        """Remember a stdout line that is no JSON object (the first few are kept)."""
        if line.strip() and len(self.garbage) < 3:
            self.garbage.append(first_line(line, 120))

    def delta(self, text: str) -> list[StreamEvent]:
        """A text delta (and the answer's text, for the session link)."""
        from chatcli import TextDelta

        if not text:
            return []
        self.text.append(text)
        return [TextDelta(text=text)]

    def failed_run(self, code: int | None, stderr: str) -> ProviderError:
        """The error for a run that ended without its final event."""
        from chatcli import StreamCutError

        provider = self.provider
        detail = telling_line(stderr)
        if code is not None and code != 0:
            if detail:
                return provider.error(stderr, prefix=(
                    _("{who} was killed by signal {signal}") if code < 0
                    else _("{who} exited with status {code}")).format(
                        who=provider.who, signal=-code, code=code))
            if self.garbage:
                what = (_("{who} was killed by signal {signal} after printing {output!r}, "
                          "which is not JSON") if code < 0
                        else _("{who} exited with status {code} after printing {output!r}, "
                               "which is not JSON"))
            else:
                what = (_("{who} was killed by signal {signal}") if code < 0
                        else _("{who} exited with status {code}"))
            error = StreamCutError(what.format(who=provider.who, signal=-code, code=code,
                                               output=self.garbage[0] if self.garbage else ""),
                                   provider.hints["other"], provider=provider.name)
        elif self.garbage:
            error = StreamCutError(
                _("{who} printed {output!r}, which is not a JSON event, and no answer").format(
                    who=provider.who, output=self.garbage[0]),
                _("check that `{program} --version` is recent: chatcli reads {format}").format(
                    program=provider.program, format=provider.format_name),
                provider=provider.name)
        else:
            error = StreamCutError(
                _("{who} ended without its final event ({detail})").format(
                    who=provider.who, detail=detail) if detail
                else _("{who} ended without its final event").format(who=provider.who),
                provider.hints["other"], provider=provider.name)
        error.retryable = False
        return error


class CliProvider:
    """A CLI assistant as a chatcli provider: one process per turn, its JSON events mapped
    to stream events. Subclasses name the program and build its arguments and mapper."""

    #: the program's name on PATH, how errors name it, and the output format it is read in
    program = ""
    who = ""
    format_name = ""
    #: the fix for each kind of error (``auth``, ``rate``, ``server``, ``other``)
    hints: ClassVar[dict[str, str]] = {}

    def __init__(self, config: ProviderConfig, store: SessionStore | None = None) -> None:
        self.config = config
        self.name = config.name
        self.options = dict(config.options)
        self.timeout = float(config.timeout)
        self.tool_timeout = max(self.timeout, float(self.options.get("tool_timeout",
                                                                     TOOL_TIMEOUT)))
        self.store = store
        #: runs in progress: a turn, and maybe a background call beside it (memory
        #: extraction, a summary), each killed when its own stream is closed
        self._runs: set[Any] = set()

    # ------------------------------------------------------------------ set-up

    def command(self) -> list[str]:
        """The program and its fixed leading arguments: ``[providers.NAME] command`` (a path,
        a name on PATH, or an argument list), else the program found on PATH."""
        configured = self.options.get("command")
        words = ([configured] if isinstance(configured, str) else list(configured or [])) \
            or [self.program]
        found = shutil.which(words[0])
        if found is None:
            raise CliNotInstalledError(
                _("`[providers.{name}] command` names {program!r}, which is not installed or "
                  "not on PATH").format(name=self.name, program=words[0]) if configured
                else _("`{program}` is not installed or not on PATH").format(
                    program=self.program),
                _("{install_hint}, or set its path: chatcli config set "
                  "providers.{name}.command /path/to/{program}").format(
                    install_hint=self.install_hint, name=self.name, program=self.program),
                provider=self.name)
        return [found, *words[1:]]

    install_hint = ""

    def model_flag(self) -> str | None:
        """The model to pass, or None to let the CLI use its own default."""
        model = (self.config.model or "").strip()
        return None if model in ("", "default") else model

    def arguments(self, plan: Plan, request: ChatRequest) -> list[str]:
        """The arguments after :meth:`command` for one turn."""
        raise NotImplementedError

    def mapper(self) -> EventMapper:
        """A fresh mapper for one turn."""
        raise NotImplementedError

    def instructions(self, request: ChatRequest) -> str:
        """The chatcli system prompt text forwarded to the assistant (``system_prompt``:
        ``user`` — the user's own ``system`` setting, the default —, ``all`` or ``none``).
        chatcli's own sections describe chatcli's tools, which these assistants do not
        have: they bring their own prompt and tools."""
        mode = self.options.get("system_prompt", "user")
        if mode == "none":
            return ""
        if mode == "all":
            return request.system_text()
        return "\n\n".join(s.text for s in request.ordered_system()
                           if s.name == "user-system" and s.text)

    # ------------------------------------------------------------------ one turn

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Run the assistant on ``request`` and yield its answer as it arrives (see
        :meth:`_stream`); ``cancel()`` on the stream kills the process group of this answer at
        once — the engine calls it on Ctrl+C, and a fallback chain hands it on."""
        started: list[Any] = []

        def stop() -> None:
            for run in list(started):
                run.kill()

        from chatcli_provider_kit import CancellableStream

        return CancellableStream(self._stream(request, started), stop)

    def _stream(self, request: ChatRequest, started: list[Any]) -> Iterator[StreamEvent]:
        """Run the assistant on ``request`` and yield its answer as it arrives.

        While the process is silent a :class:`~chatcli.UsageEvent` with the usage known so
        far is yielded every :data:`POLL` seconds: it keeps the engine's reader in touch with
        this generator, so that an abandoned turn (Ctrl+C in the chat) closes it — and kills
        the process group — within a quarter of a second, even while the assistant runs a
        long tool. ``[providers.NAME] timeout`` is the longest silence allowed, and
        ``tool_timeout`` (30 minutes) while one of the assistant's own tools runs."""
        from chatcli import TextDelta

        from chatcli_provider_cli.conversation import plan_prompt

        command = self.command()
        cwd = os.getcwd()
        plan = plan_prompt(request, self.store if self.options.get("resume", True) else None,
                           cwd=cwd, instructions=self.prompt_instructions(request))
        answered = False
        try:
            for event in self._attempt(command, plan, request, cwd, started):
                answered = answered or isinstance(event, TextDelta)
                yield event
            return
        except ProviderError as error:
            if not plan.resume or answered or not _SESSION_GONE.search(error.message):
                raise
        # the CLI no longer has that session (cleaned up, moved): start over with a transcript
        plan = plan_prompt(request, None, cwd=cwd,
                           instructions=self.prompt_instructions(request))
        yield from self._attempt(command, plan, request, cwd, started)

    def _attempt(self, command: list[str], plan: Plan, request: ChatRequest, cwd: str,
                 started: list[Any]) -> Iterator[StreamEvent]:
        """One run of the CLI for ``plan``."""
        from chatcli import ProviderTimeoutError, UsageEvent

        from chatcli_provider_cli.process import SILENT, CliRun

        argv = command + self.arguments(plan, request)
        try:
            run = CliRun(argv, plan.prompt, cwd=cwd)
        except OSError as err:
            raise CliNotInstalledError(
                _("{who} cannot be started ({program}: {reason})").format(
                    who=self.who, program=argv[0], reason=err.strerror or err),
                self.install_hint, provider=self.name) from None
        self._runs.add(run)
        started.append(run)
        mapper = self.mapper()
        try:
            last = time.monotonic()
            for line in run.lines(POLL):
                if line is SILENT:
                    if not run.running and time.monotonic() - last >= EXIT_GRACE:
                        break  # it exited; something it started still holds stdout open
                    limit, key = ((self.tool_timeout, "tool_timeout") if mapper.running
                                  else (self.timeout, "timeout"))
                    if time.monotonic() - last >= limit:
                        error = ProviderTimeoutError(
                            (_("{who} printed nothing for {seconds:g}s while running a tool")
                             if mapper.running else _("{who} printed nothing for {seconds:g}s")
                             ).format(who=self.who, seconds=limit),
                            _("it may be stuck; raise the limit with `chatcli config set "
                              "providers.{name}.{key} {value}`").format(
                                name=self.name, key=key, value=max(600, int(limit * 4))),
                            provider=self.name)
                        error.retryable = False
                        raise error
                    yield UsageEvent(usage=mapper.usage())
                    continue
                last = time.monotonic()
                assert isinstance(line, str)
                event = parse_line(line)
                if event is None:
                    mapper.not_json(line)
                    continue
                yield from mapper.feed(event)
                if mapper.done:
                    break
            code = run.wait(EXIT_WAIT)
            final = mapper.finish(code, run.stderr())
            if self.store is not None and mapper.session_id:
                self.store.record(request.messages, mapper.session_id, "".join(mapper.text), cwd)
            yield from final
        finally:
            run.kill()
            self._runs.discard(run)

    def special_hints(self) -> list[tuple[str, str]]:
        """Fixes for error texts that name them better than their kind (a regex, a fix)."""
        return [(r"unknown option|unexpected argument|unrecognized (option|argument)|"
                 r"invalid value for",
                 _("update {program} (`{program} --version`: chatcli passes {format}), or fix "
                   "`[providers.{name}] args`").format(program=self.program,
                                                       format=self.format_name, name=self.name))]

    def error(self, text: str, prefix: str = "") -> ProviderError:
        """:func:`cli_error` for this provider."""
        return cli_error(text, who=self.who, provider=self.name, hints=self.hints,
                         prefix=prefix, special=self.special_hints())

    def prompt_instructions(self, request: ChatRequest) -> str:
        """Instructions put at the top of the prompt (for CLIs without a system-prompt flag)."""
        return ""

    def close(self) -> None:
        """Kill the runs still in progress."""
        for run in list(self._runs):
            run.kill()
        self._runs.clear()


def split_words(value: Any) -> Sequence[str]:
    """``[providers.NAME] args``: a list of words, or one string split like a shell."""
    if isinstance(value, str):
        import shlex

        return shlex.split(value)
    return [str(v) for v in value or []]
