"""One conversation turn, streaming.

:meth:`Engine.run` appends the user's message, then alternates two steps until the model stops
calling tools or ``max_turns`` model calls were made:

- the **model step**: assemble the request (prompt sections from plugins, the conversation view,
  the tools), stream the answer from the provider (retries, deadlines and Ctrl+C are handled by
  :mod:`chatcli._streaming`), yield its text as it arrives, append the answer;
- the **tool step**: for each call the model made, validate, authorize, run, and append the
  results together.

Interruption (closing the event iterator, Ctrl+C, the ``cancel`` event) has one path whichever
step it hits: the partial answer is appended, marked ``interrupted``, and tool calls that did not
run get error results, so the log never holds a call without its result.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from chatcli_records_lite import dataclass

from chatcli._calls import (
    DISK_FILES,
    Approval,
    ChatRequest,
    Confinement,
    FailedAttempt,
    FileAccess,
    PromptSection,
    StopEvent,
    TextDelta,
    Tool,
    ToolCallEvent,
    ToolContext,
    UsageEvent,
    Verdict,
    ignore_output,
)
from chatcli._compaction import CompactionOutcome, TokenCounter
from chatcli._config import Settings
from chatcli._conversation import Conversation
from chatcli._errors import ChatcliError, ContextTooLongError
from chatcli._i18n import answer_instruction
from chatcli._plugins import PluginHost
from chatcli._safetext import safe_message, safe_text, unsafe_text
from chatcli._specs import Decision, Provider, Risk, StopReason
from chatcli._streaming import Retrying, read_answer
from chatcli._types import Message, Role, TextPart, ToolCallPart, ToolResultPart, Usage

__all__ = ["Approver", "Engine", "EngineEvent", "ToolFinished", "ToolStarted", "TurnFinished",
           "attach_hooks"]

#: ``approver(call, tool, verdict)`` asks the person and returns an :class:`Approval` (or a
#: bool: yes once / no); None means nobody can be asked.
Approver = Callable[[ToolCallPart, Tool, Verdict], "Approval | bool"]


@dataclass
class ToolStarted:
    """An authorized tool call is about to run."""

    call: ToolCallPart


@dataclass
class ToolFinished:
    """A tool call produced ``result`` (``result.is_error`` for failures and denials)."""

    call: ToolCallPart
    result: ToolResultPart


@dataclass
class TurnFinished:
    """The turn ended. ``error`` is set when a provider failure ended it.

    ``answered_by`` names the provider that wrote the last answer when the session's provider
    handed the call on (a fallback chain or pool), else None; ``failed`` lists the entries
    such a provider tried or skipped before one answered (or before ``error``), over the
    turn's model calls.
    """

    stop_reason: StopReason
    usage: Usage
    messages: list[Message] = field(default_factory=list)
    error: ChatcliError | None = None
    model: str | None = None
    answered_by: str | None = None
    failed: list[FailedAttempt] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text of the last assistant message of the turn."""
        for message in reversed(self.messages):
            if message.role == Role.ASSISTANT:
                return message.text
        return ""


@dataclass
class Compacted:
    """The view was compacted before a model call (``report``, what ``compact_view`` returned,
    says how much and how)."""

    report: CompactionOutcome


#: What :meth:`Engine.run` yields.
EngineEvent = TextDelta | Retrying | ToolStarted | ToolFinished | Compacted | TurnFinished

#: The context window assumed when neither the settings nor the provider give one.
DEFAULT_CONTEXT_WINDOW = 128_000
#: Deepest nesting of tool arguments providers read (``chatcli_provider_kit.MAX_ARGUMENT_DEPTH``).
_MAX_DEPTH = 64

#: The base prompt of a lean request (a model offered no tools).
_LEAN_BASE_PROMPT = (
    "You are chatcli, an AI assistant in a developer's terminal. Answer concisely in markdown."
)
_BASE_PROMPT = (
    _LEAN_BASE_PROMPT + " Use the tools you are given when they help; never invent their results."
)


@dataclass
class _Answer:
    """What has arrived of one model answer."""

    text: list[str] = field(default_factory=list)
    calls: list[ToolCallPart] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop: StopReason | None = None
    model: str | None = None
    #: the provider that answered when the session's provider delegated (StopEvent.provider)
    provider: str | None = None
    #: what the call is for (the request's ``purpose``)
    purpose: str = "chat"

    def take(self, event: object, provider_name: str) -> None:
        """Keep what a usage or stop event says of the answer."""
        if isinstance(event, UsageEvent):
            self.usage = event.usage
        elif isinstance(event, StopEvent):
            self.stop, self.model = event.reason, event.model or self.model
            if event.provider and event.provider != provider_name:
                self.provider = event.provider


@dataclass(frozen=True)
class Use:
    """The provider and model an engine answers with (replaced whole by :meth:`Engine.use`)."""

    provider: Provider
    provider_name: str
    model: str
    max_retries: int = 3
    context_window: int = DEFAULT_CONTEXT_WINDOW
    #: whether the model is offered tools at all (False: lean requests)
    tools: bool = True


class _Turn:
    """The state of one turn, so that every way out of it leaves the log consistent."""

    def __init__(self, engine: Engine, conversation: Conversation) -> None:
        self.engine = engine
        self.conversation = conversation
        #: what the whole turn runs with, even if the session switches or changes settings
        #: meanwhile (from another thread): the next turn sees the change
        self.use = engine.current
        self.settings = engine.settings
        #: characters tool results may still send to the model this turn
        self.budget = self.settings.turn_tool_output_max
        self.last_batch: tuple[Any, ...] | None = None
        self.repeats = 0
        self.added: list[Message] = []
        self.usage = Usage()
        self.model: str | None = None
        #: who answered the last model call when the provider delegated, and who failed
        self.answered_by: str | None = None
        self.failed: list[FailedAttempt] = []
        #: the model call in progress (between before_request and after_response)
        self.answer: _Answer | None = None
        #: the calls of the tool step in progress, and the results so far
        self.calls: list[ToolCallPart] = []
        self.results: list[ToolResultPart] = []

    def append(self, message: Message) -> Message:
        message = self.conversation.append(message)  # the log's copy (text made safe)
        self.added.append(message)
        return message

    def end_answer(self, *, interrupted: bool, error: ChatcliError | None = None
                   ) -> Message | None:
        """Append the answer (unless nothing arrived) and fire ``after_response``."""
        answer, self.answer = self.answer, None
        assert answer is not None
        self.usage = self.usage + answer.usage
        self.model = answer.model or self.model
        self.answered_by = answer.provider
        if error is not None:
            self.failed.extend(getattr(error, "failed", ()) or ())
        message = None
        if not interrupted or answer.text or answer.calls:  # unless nothing arrived
            author = self.engine.host.hooks.answer_author(conversation=self.conversation)
            message = self.append(self.engine.answer_message(
                answer, interrupted, self.use, author.name if author is not None else None))
        self.engine.host.hooks.after_response(message=message, error=error,
                                              conversation=self.conversation,
                                              purpose=answer.purpose)
        if interrupted and message is not None and message.tool_calls:
            why = "the answer stream failed" if error is not None else "the turn was interrupted"
            self.calls = message.tool_calls
            self.close_tool_step(f"not run: {why}")
        return message

    def close_tool_step(self, unrun: str) -> None:
        """Append the results of the tool step, with ``unrun`` for calls that did not run."""
        done = {r.call_id for r in self.results}
        for call in self.calls:
            if call.id not in done:
                result = ToolResultPart(call_id=call.id, name=call.name, content=unrun,
                                        is_error=True)
                self.engine.host.hooks.after_tool_call(call=call, result=result,
                                                       conversation=self.conversation)
                self.results.append(result)
        if self.calls:
            self.append(Message(role=Role.TOOL, parts=list(self.results)))
        self.calls, self.results = [], []

    def repeated(self, calls: list[ToolCallPart]) -> int:
        """How many model calls in a row, this one included, asked for exactly ``calls``."""
        batch = tuple((c.name, json.dumps(c.arguments, sort_keys=True, default=str),
                       c.raw_arguments) for c in calls)
        self.repeats = self.repeats + 1 if batch == self.last_batch else 1
        self.last_batch = batch
        return self.repeats

    def interrupt(self) -> None:
        """Ctrl+C or a closed iterator, in either step."""
        if self.answer is not None:
            self.end_answer(interrupted=True)
        elif self.calls:
            self.close_tool_step("not run: interrupted")

    def finished(self, reason: StopReason, error: ChatcliError | None = None) -> TurnFinished:
        return TurnFinished(reason, self.usage, self.added, error=error,
                            model=self.model or self.use.model, answered_by=self.answered_by,
                            failed=list(self.failed))


class Engine:
    """Runs conversation turns against one provider and model (switched with :meth:`use`)."""

    def __init__(
        self, host: PluginHost, settings: Settings, provider: Provider, provider_name: str,
        model: str, *, workspace: Path | None = None, approver: Approver | None = None,
        interactive: bool = False, max_retries: int = 3, context_window: int | None = None,
        tools: bool = True, sleep: Callable[[float], None] | None = None,
        on_retry: Callable[[Retrying], None] | None = None,
        on_tool_output: Callable[[str], None] | None = None,
        tool_names: Collection[str] | None = None, files: FileAccess | None = None,
    ) -> None:
        self.host = host
        #: where the file tools read and write text (see :class:`~chatcli.FileAccess`)
        self.files = files if files is not None else DISK_FILES
        #: the tools this engine offers, by name (None: every registered tool)
        self.tool_names = frozenset(tool_names) if tool_names is not None else None
        #: shows a running tool's live output (a shell command's) to the user
        self.on_tool_output = on_tool_output
        #: The settings turns run with; replace it (``engine.settings = new``), never mutate it.
        self.settings = settings
        self.workspace = (workspace or Path.cwd()).resolve()
        self.approver = approver
        self.interactive = interactive
        #: the token estimate, corrected by what the provider counted on the last call
        self.tokens = TokenCounter()
        self.use(provider, provider_name, model, max_retries=max_retries,
                 context_window=context_window, tools=tools)
        self._sleep = sleep
        self._plain_cache: dict[str, tuple[Message, Message]] = {}
        #: told of each retry before the wait starts (the same Retrying is also yielded)
        self.on_retry = on_retry

    def use(self, provider: Provider, provider_name: str, model: str, *, max_retries: int = 3,
            context_window: int | None = None, tools: bool = True) -> None:
        """Answer with ``provider``/``model`` from the next model call on; history is kept.

        ``context_window``: the tokens the model holds (compaction's yardstick). ``tools`` False:
        lean requests (see :meth:`offers_tools`).
        """
        self.current = Use(provider, provider_name, model, max_retries,
                           context_window or DEFAULT_CONTEXT_WINDOW, tools)
        self.tokens.ratio = 1.0  # another model counts differently

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools the next model call offers (plugins may change them during a run), only
        those named by ``tool_names`` when it is set."""
        tools = self.host.tools()
        if self.tool_names is None:
            return tools
        return {name: tool for name, tool in tools.items() if name in self.tool_names}

    def branch(self, *, use: Use | None = None, settings: Settings | None = None,
               tool_names: Collection[str] | None = None, workspace: Path | None = None,
               approver: Approver | None = None,
               on_tool_output: Callable[[str], None] | None = None) -> Engine:
        """An engine for a child run (a subagent's) on a conversation of its own: the same
        plugins, retries and person to ask, with ``use``, ``settings``, ``workspace`` and
        ``approver`` when given, and never a tool this engine does not offer (``tool_names``
        narrows them further)."""
        names = set(self.tools) if tool_names is None else set(self.tools) & set(tool_names)
        current = use or self.current
        child = Engine(self.host, settings or self.settings, current.provider,
                       current.provider_name, current.model, workspace=workspace or self.workspace,
                       approver=approver or self.approver, interactive=self.interactive,
                       sleep=self._sleep, on_retry=self.on_retry, tool_names=names,
                       on_tool_output=on_tool_output or self.on_tool_output,
                       files=self.files)
        child.current = current
        return child

    # ------------------------------------------------------------------ prompt

    def sections(self, messages: list[Message], use: Use | None = None,
                 settings: Settings | None = None,
                 conversation: Conversation | None = None) -> list[PromptSection]:
        """The system prompt sections for the next call: kernel, plugins, then the user's
        (only the essential ones in a lean request: see :meth:`offers_tools`)."""
        use, settings = use or self.current, settings or self.settings
        sections = [PromptSection(name="chatcli", text=_BASE_PROMPT, order=0, essential=True)]
        sections.extend(self.host.hooks.prompt_sections(
            settings=settings, workspace=self.workspace, messages=messages,
            provider=use.provider_name, model=use.model, conversation=conversation))
        if answer := answer_instruction(settings.answer_language):
            sections.append(PromptSection(name="language", text=answer, order=1, essential=True))
        if settings.system:
            sections.append(PromptSection(name="user-system", text=settings.system, order=900,
                                          essential=True))
        today = _dt.date.today().isoformat()
        sections.append(PromptSection(name="date", text=f"Today is {today}.", stable=False,
                                      essential=True))
        if self.offers_tools(sections, use):
            return sections
        lean_base = PromptSection(name="chatcli", text=_LEAN_BASE_PROMPT, order=0, essential=True)
        return [lean_base, *(s for s in sections[1:] if s.essential)]

    def offers_tools(self, sections: list[PromptSection], use: Use | None = None) -> bool:
        """Whether the request with ``sections`` offers tools: the model uses them
        (``Capabilities.uses_tools``, ``[providers.NAME] tools``), or a section asks for them
        (``needs_tools``: an agent run). Otherwise the request is lean: no tools, no tool
        catalog, only the sections marked ``essential``."""
        return (use or self.current).tools or any(s.needs_tools for s in sections)

    def build_request(self, conversation: Conversation, use: Use | None = None,
                      settings: Settings | None = None) -> ChatRequest:
        """The request for the next model call on ``conversation`` (with the provider and
        settings in use now, or the turn's)."""
        use, settings = use or self.current, settings or self.settings
        messages = conversation.view()
        tools = list(self.tools.values())
        sections = self.sections(messages, use, settings, conversation)
        if self.offers_tools(sections, use):
            specs = [tool.spec() for tool in tools]
        else:  # lean: no tools (their schemas are not even made), earlier calls as text
            messages, specs = self._plain_view(messages), []
        return ChatRequest(model=use.model, system=sections, messages=messages, tools=specs,
                           max_tokens=settings.max_tokens, temperature=settings.temperature)

    def _plain_view(self, messages: list[Message]) -> list[Message]:
        """``messages`` for a request that offers no tools, each converted once (messages are
        not changed after they are appended, so a turn costs only its new messages)."""
        cache = self._plain_cache
        view = []
        for message in messages:
            hit = cache.get(message.id)
            if hit is None or hit[0] is not message:
                hit = cache[message.id] = (message, _plain(message))
            view.append(hit[1])
        if len(cache) > 2 * len(messages) + 64:  # forget messages that left the view
            keep = {m.id for m in messages}
            for key in [k for k in cache if k not in keep]:
                del cache[key]
        return view

    # ------------------------------------------------------------------ the turn

    def run(self, conversation: Conversation, prompt: Message | None = None,
            cancel: threading.Event | None = None) -> Generator[EngineEvent, None, None]:
        """Run one turn; yields :data:`EngineEvent` objects, the last one a :class:`TurnFinished`.

        ``prompt`` (a user message) is appended first; pass None to answer what is already there
        (``/retry``). Closing the iterator early cancels the turn cleanly.
        """
        attach_hooks(conversation, self.host)
        cancel = cancel if cancel is not None else threading.Event()  # set when interrupted
        turn = _Turn(self, conversation)
        if prompt is not None:
            conversation.checkpoint(_first_line(prompt.text))
            prompt = turn.append(prompt)
            self.host.hooks.user_prompt_submitted(conversation=conversation, message=prompt)
        try:
            for call_number in range(turn.settings.max_turns):
                if call_number:  # a checkpoint before every model call; the first is the prompt's
                    user = conversation.last(Role.USER)  # labelled with the start of its text
                    label = _first_line(user.text if user is not None else "")
                    conversation.checkpoint(f"{label} (step {call_number + 1})")
                request = yield from self._compact_if_full(turn)
                error = yield from self._model_step(turn, cancel, request)
                if isinstance(error, ContextTooLongError) and (
                        yield from self._compact(turn, "overflow")):
                    error = yield from self._model_step(turn, cancel)
                if error is not None:
                    yield turn.finished(StopReason.ERROR, error)
                    return
                answer = turn.added[-1]
                if not answer.tool_calls:
                    yield turn.finished(answer.stop_reason or StopReason.END_TURN)
                    return
                if turn.repeated(answer.tool_calls) >= turn.settings.max_repeated_calls:
                    turn.calls = answer.tool_calls
                    turn.close_tool_step(f"not run: the same calls were made "
                                         f"{turn.settings.max_repeated_calls} times in a row")
                    yield turn.finished(StopReason.REPEATED_CALLS)
                    return
                yield from self._tool_step(turn, answer.tool_calls, cancel)
            yield turn.finished(StopReason.TURN_LIMIT)
        except (KeyboardInterrupt, GeneratorExit) as stop:
            cancel.set()  # tools still running in the background (child runs) stop too
            turn.interrupt()
            if isinstance(stop, GeneratorExit):
                return
            yield turn.finished(StopReason.INTERRUPTED)

    # ------------------------------------------------------------------ compaction

    def context_tokens(self, conversation: Conversation, use: Use | None = None,
                       settings: Settings | None = None) -> int:
        """The corrected token estimate of the next request on ``conversation``."""
        return int(self._tokens(self.build_request(conversation, use, settings)))

    def _tokens(self, request: ChatRequest) -> float:
        """The corrected token estimate of ``request``."""
        return _raw_request_tokens(self.tokens, request) * self.tokens.ratio

    def _compact_if_full(self, turn: _Turn) -> Generator[EngineEvent, None, ChatRequest | None]:
        """Compact the view when the next request passes the threshold; returns that request
        when it still stands (nothing was compacted), else None."""
        request = self.build_request(turn.conversation, turn.use, turn.settings)
        threshold = turn.settings.compact_threshold
        if threshold <= 0 or self._tokens(request) <= threshold * turn.use.context_window:
            return request
        return None if (yield from self._compact(turn, "threshold")) else request

    def _compact(self, turn: _Turn, reason: str) -> Generator[EngineEvent, None, bool]:
        """Compact the turn's view (reporting what was done); whether the view changed."""
        report = self.compact(turn.conversation, reason=reason, use=turn.use,
                              settings=turn.settings)
        if report is not None:
            yield Compacted(report)
        return report is not None and report.changed

    def compact(self, conversation: Conversation, *, reason: str = "manual",
                instruction: str | None = None, use: Use | None = None,
                settings: Settings | None = None) -> CompactionOutcome | None:
        """Ask the plugins to compact ``conversation``'s view (the ``compact_view`` hook, which
        chatcli-compaction implements); returns what they did, or None when none did anything
        (no compaction plugin, or nothing to compact)."""
        use, settings = use or self.current, settings or self.settings
        return self.host.hooks.compact_view(
            engine=self, conversation=conversation, reason=reason, instruction=instruction,
            use=use, settings=settings)

    def side_call(self, request: ChatRequest, conversation: Conversation, *,
                  use: Use | None = None, cancel: threading.Event | None = None,
                  response_timeout: float | None = None) -> Generator[Any, None, None]:
        """The events of a model call a plugin makes for itself (a summary, a memory
        extraction; ``request.purpose`` says which), read as a turn's (:func:`read_answer`) from
        ``use`` (default: the engine's). However it ends (close the iterator to stop early), the
        ``after_response`` implementations that take ``purpose`` are told; nothing is appended."""
        use, answer, error = use or self.current, _Answer(purpose=request.purpose), None
        try:
            for event in read_answer(
                lambda: use.provider.stream(request), who=use.provider_name, cancel=cancel,
                max_retries=use.max_retries, sleep=self._sleep,
                response_timeout=response_timeout or self.settings.response_timeout):
                answer.take(event, use.provider_name)
                yield event
        except ChatcliError as err:
            error = err
            raise
        finally:
            caller = self.host.hook.after_response  # the observers of every call only
            self.host.pm._hookexec("after_response", [i for i in caller.get_hookimpls()
                                                      if "purpose" in i.argnames], {
                "message": self.answer_message(answer, error is not None, use),
                "error": error, "conversation": conversation, "purpose": answer.purpose}, False)

    def _model_step(self, turn: _Turn, cancel: threading.Event | None,
                    request: ChatRequest | None = None
                    ) -> Generator[EngineEvent, None, ChatcliError | None]:
        """Stream one answer and append it; returns the error that ended it, if any.
        ``request`` is the one built for this step already, if any."""
        use = turn.use
        if request is None:
            request = self.build_request(turn.conversation, use, turn.settings)
        self.host.hooks.before_request(request=request, conversation=turn.conversation)
        estimated = _raw_request_tokens(self.tokens, request)
        answer = turn.answer = _Answer(purpose=request.purpose)
        try:
            for event in read_answer(
                lambda: use.provider.stream(request), who=use.provider_name,
                max_retries=use.max_retries, response_timeout=turn.settings.response_timeout,
                cancel=cancel, sleep=self._sleep, on_retry=self.on_retry,
            ):
                if cancel is not None and cancel.is_set():
                    raise KeyboardInterrupt
                if isinstance(event, TextDelta):
                    if unsafe_text(event.text):  # shown, stored and sent again the same way
                        event = TextDelta(text=safe_text(event.text))
                    answer.text.append(event.text)
                    yield event
                elif isinstance(event, ToolCallEvent):
                    answer.calls.append(safe_message(event.call))
                elif isinstance(event, Retrying):
                    yield event
                else:
                    answer.take(event, use.provider_name)
                    if isinstance(event, StopEvent):
                        turn.failed.extend(event.failed)
        except ChatcliError as err:
            turn.end_answer(interrupted=True, error=err)
            return err
        if answer.usage.input_tokens:
            self.tokens.observe(estimated, answer.usage.input_tokens)
        turn.end_answer(interrupted=False)
        return None

    def _tool_step(self, turn: _Turn, calls: list[ToolCallPart], cancel: threading.Event | None
                   ) -> Iterator[EngineEvent]:
        """Run the calls and append their results together, in the calls' order.

        Each call is validated and authorized in order (questions to the person come one at a
        time). Consecutive concurrent calls (``Tool.concurrent``; by default the read-only
        ones) then run side by side; every other call runs alone,
        in order. ``ToolStarted`` comes only for a call that will run; every call ends with a
        ``ToolFinished`` (errors and denials included). An answer making more than
        ``max_calls_per_step`` calls gets the extra ones refused.
        """
        turn.calls = list(calls)
        limit = turn.settings.max_calls_per_step
        batch: list[tuple[ToolCallPart, Tool, Any, ToolContext]] = []
        for index, call in enumerate(calls):
            context = self.tool_context(turn, cancel)
            context.call = call
            ready = self._prepare(call, context) if index < limit else _error(
                call, f"not run: more than {limit} tool calls in one answer; make fewer at a time")
            if not isinstance(ready, ToolResultPart) and (
                    ready[0].risk == Risk.READ if ready[0].concurrent is None
                    else ready[0].concurrent):
                batch.append((call, *ready, context))
                continue
            yield from self._run_batch(turn, batch, cancel)
            batch = []
            if isinstance(ready, ToolResultPart):
                yield from self._finish(turn, call, ready, cancel)
            else:  # alone, on this thread
                yield from self._run_batch(turn, [(call, *ready, context)], cancel)
        yield from self._run_batch(turn, batch, cancel)
        turn.close_tool_step("not run")

    def _run_batch(self, turn: _Turn, batch: list[tuple[ToolCallPart, Tool, Any, ToolContext]],
                   cancel: threading.Event | None) -> Iterator[EngineEvent]:
        """Run read-only calls side by side (one alone runs on this thread), each with the
        context its authorization confined (made when it was prepared: nothing ran since)."""
        if len(batch) == 1:
            call, tool, args, context = batch[0]
            yield ToolStarted(call)
            yield from self._finish(turn, call, self._execute(call, tool, args, context), cancel)
            return
        if not batch:
            return
        from concurrent.futures import ThreadPoolExecutor

        for call, _tool, _args, _context in batch:
            yield ToolStarted(call)
        pool = ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix="chatcli-tool")
        try:
            futures = [pool.submit(self._execute, call, tool, args, context)
                       for call, tool, args, context in batch]
            for (call, _tool, _args, _context), future in zip(batch, futures, strict=True):
                yield from self._finish(turn, call, _outcome(future, cancel), cancel)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _finish(self, turn: _Turn, call: ToolCallPart, result: ToolResultPart,
                cancel: threading.Event | None) -> Iterator[EngineEvent]:
        """Fit ``result`` into the turn's output budget, tell plugins, keep it, report it."""
        limit = _result_limit(turn)
        if len(result.content) > limit:
            result = result.model_copy(update={"content": _cut(result.content, limit)})
        turn.budget -= len(result.content)
        self.host.hooks.after_tool_call(call=call, result=result, conversation=turn.conversation)
        turn.results.append(result)
        yield ToolFinished(call, result)
        if cancel is not None and cancel.is_set():
            raise KeyboardInterrupt

    def answer_message(self, answer: _Answer, interrupted: bool, use: Use,
                       author: str | None = None) -> Message:
        """The assistant message for what arrived of ``answer`` (written by ``author``, when a
        plugin named one through ``answer_author``)."""
        text = "".join(answer.text)
        parts: list[Any] = [TextPart(text=text)] if text else []
        parts.extend(answer.calls)
        reason = StopReason.INTERRUPTED if interrupted else (answer.stop or StopReason.END_TURN)
        return Message(role=Role.ASSISTANT, parts=parts, interrupted=interrupted,
                       provider=answer.provider or use.provider_name,
                       model=answer.model or use.model, usage=answer.usage, stop_reason=reason,
                       author=author, via=use.provider_name if answer.provider else None)

    # ------------------------------------------------------------------ tools

    def tool_context(self, turn: _Turn | None = None, cancel: threading.Event | None = None
                     ) -> ToolContext:
        """The context tools run with (in a turn: its settings, conversation and budget)."""
        settings = turn.settings if turn is not None else self.settings
        return ToolContext(
            workspace=self.workspace, settings=settings, interactive=self.interactive,
            conversation=turn.conversation if turn is not None else None, cancel=cancel,
            output=self.on_tool_output or ignore_output, engine=self, files=self.files,
            max_output=_result_limit(turn) if turn is not None else settings.tool_output_max)

    def authorize(self, call: ToolCallPart, tool: Tool, context: ToolContext, args: Any = None
                  ) -> tuple[bool, str]:
        """Whether ``call`` may run, and why not: plugins first, then the default policy
        (``read`` tools run, every other risk class is asked, with the tool's preview of
        ``args``; a call whose preview fails is refused with that error, not asked)."""
        spec = tool.spec()
        answer = self.host.hooks.authorize_tool_call(call=call, tool=spec, context=context)
        verdict = answer if isinstance(answer, Verdict) else Verdict(
            answer if answer is not None else
            Decision.ALLOW if tool.risk == Risk.READ else Decision.ASK)
        context.confinement = verdict.confinement or Confinement()
        approval: Approval | None = None
        if verdict.decision == Decision.ALLOW:
            allowed, why = True, ""
        elif verdict.decision == Decision.DENY:
            allowed, why = False, (f"denied: {verdict.reason}" if verdict.reason
                                   else "denied by policy")
        elif (shown := _preview(call, tool, args, context))[1]:  # it would fail: not asked
            allowed, why = False, shown[1]
        elif self.approver is None:
            reason = f" ({verdict.reason})" if verdict.reason else ""
            allowed, why = False, (
                f"denied: {tool.risk.value} tools need the user's approval{reason} and nobody "
                "can be asked in this run (use --allow to permit them)"
            )
        else:
            answered = self.approver(call, tool, verdict._replace(preview=shown[0]))
            approval = answered if isinstance(answered, Approval) else Approval(bool(answered))
            allowed = approval.allow
            why = "" if allowed else "denied by the user" + (
                f": {approval.reason}" if approval.reason else "")
        self.host.hooks.tool_call_decided(
            call=call, tool=spec, allowed=allowed, approval=approval, verdict=verdict,
            conversation=context.conversation)
        return allowed, why

    def _prepare(self, call: ToolCallPart, context: ToolContext
                 ) -> tuple[Tool, Any] | ToolResultPart:
        """The tool and its parsed arguments, once validated and authorized; else the error."""
        tools = self.tools
        tool = tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(tools)) or "none"
            return _error(call, f"unknown tool '{call.name}'; available tools: {known}")
        if call.raw_arguments is not None:
            return _error(call, "arguments are not a JSON object (nested at most "
                                f"{_MAX_DEPTH} levels): {call.raw_arguments[:200]!r}; "
                                f"send JSON matching: {json.dumps(tool.spec().parameters)[:500]}")
        try:
            args = tool.parse_arguments(call.arguments)
        except ValueError as err:  # pydantic's ValidationError is a ValueError
            return _error(call, f"invalid arguments for '{call.name}': {_problems(err)}")
        allowed, why = self.authorize(call, tool, context, args)
        return (tool, args) if allowed else _error(call, why)

    def _execute(self, call: ToolCallPart, tool: Tool, args: Any, context: ToolContext
                 ) -> ToolResultPart:
        try:
            output = tool.run(args, context)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit) as err:  # SystemExit too: a tool must not end chatcli
            return _error(call, _failed(call, err))
        text = output if isinstance(output, str) else str(output)
        return ToolResultPart(call_id=call.id, name=call.name, content=safe_text(text))


def _outcome(future: Any, cancel: threading.Event | None) -> ToolResultPart:
    """A call's result from the pool; KeyboardInterrupt as soon as the turn is cancelled (the
    calls still running were told through their context and end in the background): a tool
    that does not poll ``context.cancelled`` does not keep the turn from stopping."""
    while True:
        try:
            result: ToolResultPart = future.result(timeout=0.05)
            return result
        except TimeoutError:
            if cancel is not None and cancel.is_set():
                raise KeyboardInterrupt from None


def _preview(call: ToolCallPart, tool: Tool, args: Any, context: ToolContext
             ) -> tuple[str | None, str]:
    """(what the call would change, or None; the error it would fail with, or "")."""
    try:
        return (tool.preview(args, context) if tool.preview and args is not None else None), ""
    except Exception as err:  # the call would fail as it runs: nobody is asked about it
        return None, _failed(call, err)


def _failed(call: ToolCallPart, err: BaseException) -> str:
    first = (str(err).splitlines() or [""])[0]
    return safe_text(f"{call.name} failed: {type(err).__name__}: {first}")


def _error(call: ToolCallPart, text: str) -> ToolResultPart:
    return ToolResultPart(call_id=call.id, name=call.name, content=text, is_error=True)


def _result_limit(turn: _Turn) -> int:
    """How long the next tool result may be: the per-result limit, or what is left of the
    turn's budget (never under 2,000 characters: a result must still say something)."""
    return min(turn.settings.tool_output_max, max(turn.budget, 2_000))


def _cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping its head and its tail (where errors and
    summaries usually are) and saying how much was left out."""
    note = "\n[… {} characters cut …]\n"
    keep = max(limit - len(note) - 12, 0)
    head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3:] if keep // 3 else ""
    return head + note.format(f"{len(text) - len(head) - len(tail):,}") + tail


def _problems(err: ValueError) -> str:
    """What is wrong with tool arguments, in one line."""
    details = getattr(err, "errors", None)
    if not callable(details):
        return str(err)
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in details()[:5])


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else "(empty)"


def _raw_request_tokens(tokens: TokenCounter, request: ChatRequest) -> int:
    """The uncorrected estimate of a whole request: messages, system prompt and tools."""
    tools = sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters))
                for t in request.tools)
    system = sum(len(s.text) for s in request.system)
    return tokens.raw(request.messages) + int((system + tools) / 4)


def _plain(message: Message) -> Message:
    """``message`` in a request that offers no tools: calls stay as the text the model wrote
    with them, results arrive as a user message (as ``chatcli_provider_kit.textcalls`` shows
    them to a model without native tools)."""
    if message.role == Role.TOOL:
        text = "\n\n".join(
            f"Result of tool {r.name}{' (error)' if r.is_error else ''}:\n{r.content}"
            for r in message.tool_results
        )
        return Message(id=message.id, role=Role.USER, parts=[TextPart(text=text)])
    if message.tool_calls:
        return Message(id=message.id, role=message.role, parts=[TextPart(text=message.text)])
    return message


def attach_hooks(conversation: Conversation, host: PluginHost) -> None:
    """Make ``host``'s lifecycle hooks observe ``conversation`` (where sessions persist)."""
    conversation.hooks = host.hooks
