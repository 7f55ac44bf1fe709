"""One conversation turn, streaming.

:meth:`Engine.run` appends the user's message, then loops: assemble the request (prompt sections
from plugins, the conversation view, tool specs), stream from the provider (with retries), yield
events to whoever renders, append the answer, and when the model called tools: authorize, run,
append the results and call the model again, until it stops or ``max_turns`` is reached.

Cancellation (closing the event iterator, Ctrl+C inside it, or the ``cancel`` event) keeps the
history consistent: the partial answer is appended, marked ``interrupted``, and tool calls that
were not run get error results so the log never holds a call without its result.
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from chatcli._config import Settings
from chatcli._conversation import Checkpoint, Conversation, ConversationObserver
from chatcli._errors import ChatcliError, ProviderError
from chatcli._plugins import PLUGIN_ERRORS, PluginHost
from chatcli._retry import Retrying, retrying_stream
from chatcli._toolcall import catalog_section, parse_tool_calls
from chatcli._types import (
    ChatRequest,
    Decision,
    Message,
    PromptSection,
    Provider,
    Risk,
    Role,
    StopEvent,
    StopReason,
    TextDelta,
    TextPart,
    Tool,
    ToolCallEvent,
    ToolCallPart,
    ToolContext,
    ToolResultPart,
    Usage,
    UsageEvent,
)

__all__ = [
    "Approver",
    "Engine",
    "EngineEvent",
    "HookObserver",
    "Retrying",
    "ToolFinished",
    "ToolStarted",
    "TurnFinished",
    "attach_hooks",
]

#: Tool output longer than this is cut (the model is told so).
MAX_TOOL_OUTPUT = 60_000

#: ``approver(call, tool) -> bool`` asks the person; None means nobody can be asked.
Approver = Callable[[ToolCallPart, Tool], bool]


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
    """The turn ended. ``error`` is set when a provider failure ended it."""

    stop_reason: StopReason
    usage: Usage
    messages: list[Message] = field(default_factory=list)
    error: ChatcliError | None = None
    model: str | None = None

    @property
    def text(self) -> str:
        """The text of the last assistant message of the turn."""
        for message in reversed(self.messages):
            if message.role == Role.ASSISTANT:
                return message.text
        return ""


EngineEvent = TextDelta | Retrying | ToolStarted | ToolFinished | TurnFinished

_BASE_PROMPT = (
    "You are chatcli, an AI assistant in a developer's terminal. Answer concisely in markdown. "
    "Use the tools you are given when they help; never invent their results."
)


class Engine:
    """Runs conversation turns against one provider and model (both can be switched live)."""

    def __init__(
        self,
        host: PluginHost,
        settings: Settings,
        provider: Provider,
        provider_name: str,
        model: str,
        *,
        workspace: Path | None = None,
        approver: Approver | None = None,
        interactive: bool = False,
        max_retries: int = 3,
        sleep: Callable[[float], None] | None = None,
        on_retry: Callable[[Retrying], None] | None = None,
        native_tools: bool = True,
    ) -> None:
        self.host = host
        self.settings = settings
        self.provider = provider
        self.provider_name = provider_name
        self.model = model
        self.workspace = (workspace or Path.cwd()).resolve()
        self.approver = approver
        self.interactive = interactive
        self.max_retries = max_retries
        self._sleep = sleep
        #: told of each retry before the wait starts (the same Retrying is also yielded)
        self.on_retry = on_retry
        #: False for models without native tool calling: tools are described in the prompt and
        #: calls are parsed from the answer text (chatcli.toolcall).
        self.native_tools = native_tools
        self.tools: dict[str, Tool] = host.tools()

    # ------------------------------------------------------------------ prompt

    def sections(self, messages: list[Message]) -> list[PromptSection]:
        """The system prompt sections for the next call: kernel, plugins, then the user's."""
        sections = [PromptSection(name="chatcli", text=_BASE_PROMPT, order=0)]
        for result in self.host.call(
            "prompt_sections",
            settings=self.settings,
            workspace=self.workspace,
            messages=messages,
            provider=self.provider_name,
            model=self.model,
        ):
            sections.extend(result)
        if self.settings.system:
            sections.append(PromptSection(name="user-system", text=self.settings.system, order=900))
        today = _dt.date.today().isoformat()
        sections.append(PromptSection(name="date", text=f"Today is {today}.", stable=False))
        return sections

    def build_request(self, conversation: Conversation) -> ChatRequest:
        """The request for the next model call on ``conversation``."""
        messages = conversation.messages()
        specs = [tool.spec() for tool in self.tools.values()]
        sections = self.sections(messages)
        if specs and not self.native_tools:
            sections.append(catalog_section(specs))
            messages, specs = [_as_text_protocol(m) for m in messages], []
        return ChatRequest(
            model=self.model,
            system=sections,
            messages=messages,
            tools=specs,
            max_tokens=self.settings.max_tokens,
            temperature=self.settings.temperature,
        )

    # ------------------------------------------------------------------ the turn

    def run(
        self,
        conversation: Conversation,
        prompt: Message | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[EngineEvent]:
        """Run one turn; yields :data:`EngineEvent` objects, the last one a :class:`TurnFinished`.

        ``prompt`` (a user message) is appended first; pass None to answer what is already there
        (``/retry``). Closing the iterator early cancels the turn cleanly.
        """
        added: list[Message] = []
        usage = Usage()

        attach_hooks(conversation, self.host)

        def append(message: Message) -> Message:
            conversation.append(message)
            added.append(message)
            return message

        if prompt is not None:
            conversation.checkpoint(_first_line(prompt.text))
            append(prompt)
            self.host.call("user_prompt_submitted", conversation=conversation, message=prompt)

        for call_number in range(self.settings.max_turns):
            if call_number:  # a checkpoint before every model call; the first is the prompt's
                conversation.checkpoint(f"{_turn_label(conversation)} (step {call_number + 1})")
            request = self.build_request(conversation)
            self.host.call("before_request", request=request, conversation=conversation)
            answer = _Answer()
            try:
                for event in self._stream(request):
                    if cancel is not None and cancel.is_set():
                        raise KeyboardInterrupt
                    if isinstance(event, TextDelta):
                        answer.text.append(event.text)
                        yield event
                    elif isinstance(event, ToolCallEvent):
                        answer.calls.append(event.call)
                    elif isinstance(event, UsageEvent):
                        answer.usage = event.usage
                    elif isinstance(event, StopEvent):
                        answer.stop = event.reason
                        answer.model = event.model or answer.model
                    elif isinstance(event, Retrying):
                        yield event
            except (KeyboardInterrupt, GeneratorExit) as interruption:
                message = append(answer.message(self, interrupted=True))
                self._close_unrun_calls(message, append, "the turn was interrupted")
                self.host.call("after_response", message=message, conversation=conversation)
                if isinstance(interruption, GeneratorExit):
                    return
                yield TurnFinished(StopReason.INTERRUPTED, usage + answer.usage, added,
                                   model=answer.model)
                return
            except ChatcliError as err:
                if answer.text or answer.calls:
                    message = append(answer.message(self, interrupted=True))
                    self._close_unrun_calls(message, append, "the answer stream failed")
                yield TurnFinished(StopReason.ERROR, usage + answer.usage, added, error=err,
                                   model=answer.model)
                return

            usage = usage + answer.usage
            if self.tools and not self.native_tools:
                answer.calls.extend(
                    parse_tool_calls("".join(answer.text), [t.spec() for t in self.tools.values()])
                )
            message = append(answer.message(self))
            self.host.call("after_response", message=message, conversation=conversation)
            if not message.tool_calls:
                yield TurnFinished(answer.stop or StopReason.END_TURN, usage, added,
                                   model=answer.model)
                return

            results: list[ToolResultPart] = []
            try:
                for call in message.tool_calls:
                    yield ToolStarted(call)
                    result = self.run_tool(call, conversation)
                    results.append(result)
                    yield ToolFinished(call, result)
                    if cancel is not None and cancel.is_set():
                        raise KeyboardInterrupt
            except (KeyboardInterrupt, GeneratorExit) as interruption:
                done = {r.call_id for r in results}
                results.extend(
                    ToolResultPart(call_id=c.id, name=c.name, content="not run: interrupted",
                                   is_error=True)
                    for c in message.tool_calls if c.id not in done
                )
                append(Message(role=Role.TOOL, parts=list(results)))
                if isinstance(interruption, GeneratorExit):
                    return
                yield TurnFinished(StopReason.INTERRUPTED, usage, added, model=answer.model)
                return
            append(Message(role=Role.TOOL, parts=list(results)))

        yield TurnFinished(StopReason.TURN_LIMIT, usage, added, model=self.model)

    def _stream(self, request: ChatRequest) -> Iterator[Any]:
        kwargs: dict[str, Any] = {"sleep": self._sleep} if self._sleep is not None else {}
        for event in retrying_stream(
            lambda: _guarded(self.provider.stream(request), self.provider_name),
            self.max_retries,
            **kwargs,
        ):
            if isinstance(event, Retrying) and self.on_retry is not None:
                self.on_retry(event)
            yield event

    @staticmethod
    def _close_unrun_calls(
        message: Message, append: Callable[[Message], Message], why: str
    ) -> None:
        if message.tool_calls:
            append(Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id=c.id, name=c.name, content=f"not run: {why}", is_error=True)
                for c in message.tool_calls
            ]))

    # ------------------------------------------------------------------ tools

    def tool_context(self) -> ToolContext:
        """The context tools run with."""
        return ToolContext(
            workspace=str(self.workspace), settings=self.settings, interactive=self.interactive
        )

    def authorize(self, call: ToolCallPart, tool: Tool) -> tuple[bool, str]:
        """Whether ``call`` may run, and why not: plugins first, then the default policy."""
        context = self.tool_context()
        decision = self.host.first("authorize_tool_call", call=call, tool=tool.spec(),
                                   context=context)
        if decision is None:
            decision = Decision.ALLOW if tool.risk == Risk.READ else Decision.ASK
        decision = Decision(decision)
        if decision == Decision.ALLOW:
            return True, ""
        if decision == Decision.DENY:
            return False, "denied by policy"
        if self.approver is None:
            return False, (
                f"denied: {tool.risk.value} tools need the user's approval and nobody can be "
                "asked in this run (use --allow to permit them)"
            )
        if self.approver(call, tool):
            return True, ""
        return False, "denied by the user"

    def run_tool(self, call: ToolCallPart, conversation: Conversation) -> ToolResultPart:
        """Validate, authorize and run one tool call; every failure becomes an error result."""

        def error(text: str) -> ToolResultPart:
            result = ToolResultPart(call_id=call.id, name=call.name, content=text, is_error=True)
            self.host.call("after_tool_call", call=call, result=result, conversation=conversation)
            return result

        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return error(f"unknown tool '{call.name}'; available tools: {known}")
        if call.raw_arguments is not None:
            return error(
                f"arguments are not a JSON object: {call.raw_arguments[:200]!r}; "
                f"send JSON matching: {json.dumps(tool.spec().parameters)[:500]}"
            )
        try:
            args = tool.args_model.model_validate(call.arguments)
        except ValidationError as err:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in err.errors()[:5]
            )
            return error(f"invalid arguments for '{call.name}': {problems}")
        allowed, why = self.authorize(call, tool)
        if not allowed:
            return error(why)
        self.host.call("before_tool_call", call=call, tool=tool.spec(), conversation=conversation)
        try:
            output = tool.run(args, self.tool_context())
        except KeyboardInterrupt:
            raise
        except PLUGIN_ERRORS as err:  # SystemExit too: a tool must not end chatcli
            first = (str(err).splitlines() or [""])[0]
            return error(f"{call.name} failed: {type(err).__name__}: {first}")
        text = output if isinstance(output, str) else str(output)
        if len(text) > MAX_TOOL_OUTPUT:
            text = text[:MAX_TOOL_OUTPUT] + f"\n[… cut: {len(text) - MAX_TOOL_OUTPUT} more chars]"
        result = ToolResultPart(call_id=call.id, name=call.name, content=text)
        self.host.call("after_tool_call", call=call, result=result, conversation=conversation)
        return result


def _guarded(events: Any, provider_name: str) -> Iterator[Any]:
    """``events`` with any exception that is not a :class:`ChatcliError` turned into a
    :class:`ProviderError`.

    A provider that leaks an SDK or programming error (``KeyError``, an unmapped ``httpx``
    error, ``sys.exit()``) must still end the turn like any provider failure: the partial answer
    is kept in the conversation and the user gets one line naming the provider.
    """
    try:
        yield from events
    except ChatcliError:
        raise
    except PLUGIN_ERRORS as err:
        raise ProviderError.unexpected(
            f"the {provider_name} provider failed", err,
            "try again; if it persists, report it to the provider plugin's authors "
            "(CHATCLI_DEBUG=1 shows the traceback)",
            provider_name,
        ) from err
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else "(empty)"


def _turn_label(conversation: Conversation) -> str:
    """The label of checkpoints within a turn: the start of its user message."""
    user = conversation.last(Role.USER)
    return _first_line(user.text) if user is not None else "(empty)"


def _as_text_protocol(message: Message) -> Message:
    """``message`` as a model without native tools sees it: calls stay as the text it wrote,
    results arrive as a user message."""
    if message.role == Role.TOOL:
        text = "\n\n".join(
            f"Result of tool {r.name}{' (error)' if r.is_error else ''}:\n{r.content}"
            for r in message.tool_results
        )
        return Message(id=message.id, role=Role.USER, parts=[TextPart(text=text)])
    if message.tool_calls:
        return Message(id=message.id, role=message.role, parts=[TextPart(text=message.text)])
    return message


class HookObserver(ConversationObserver):
    """Forwards conversation changes to the lifecycle hooks (where sessions persist)."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host

    def message_appended(self, conversation: Conversation, message: Message) -> None:
        self.host.call("message_appended", conversation=conversation, message=message)

    def checkpoint_created(self, conversation: Conversation, checkpoint: Checkpoint) -> None:
        self.host.call("checkpoint_created", conversation=conversation, checkpoint=checkpoint)

    def head_moved(self, conversation: Conversation, head: str | None, reason: str) -> None:
        self.host.call("head_moved", conversation=conversation, head=head, reason=reason)


def attach_hooks(conversation: Conversation, host: PluginHost) -> None:
    """Make ``host``'s lifecycle hooks observe ``conversation`` (once)."""
    if not any(isinstance(o, HookObserver) and o.host is host for o in conversation.observers):
        conversation.observers.append(HookObserver(host))


class _Answer:
    """What has arrived of one model answer."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: list[ToolCallPart] = []
        self.usage = Usage()
        self.stop: StopReason | None = None
        self.model: str | None = None

    def message(self, engine: Engine, interrupted: bool = False) -> Message:
        text = "".join(self.text)
        parts: list[Any] = [TextPart(text=text)] if text else []
        parts.extend(self.calls)
        reason = StopReason.INTERRUPTED if interrupted else (self.stop or StopReason.END_TURN)
        return Message(
            role=Role.ASSISTANT,
            parts=parts,
            interrupted=interrupted,
            provider=engine.provider_name,
            model=self.model or engine.model,
            usage=self.usage,
            stop_reason=reason,
        )

