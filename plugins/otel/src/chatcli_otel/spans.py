"""The spans of each conversation: a turn (``invoke_agent chatcli``), its model calls
(``chat {model}``) and its tool calls (``execute_tool {name}``), and the metrics they record.

Parents are explicit: every conversation keeps its turn's span and context here, by conversation
id, and children are started with ``context=`` — never from the thread's current context, so
hooks called on another thread (a subagent's turn, a side call from memory's worker) still land
under the right parent. A worker's turn (a child conversation) goes under the tool call that
started it when its parent conversation has exactly one tool call running, else under the
parent's turn.

The kernel has no "turn ended" hook: a turn ends with the model call that asks for no tool (or
fails). A turn cut short another way (the turn limit, repeated calls, Ctrl+C) is closed by the
next prompt or the end of the session, with its end time set to its last event.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from chatcli_otel import attributes as attrs
from chatcli_otel.cost import CostReader
from chatcli_otel.setup import Telemetry

if TYPE_CHECKING:
    from chatcli import (
        Approval,
        ChatcliError,
        ChatRequest,
        Conversation,
        Message,
        ToolCallPart,
        ToolResultPart,
        ToolSpec,
        Verdict,
    )

__all__ = ["Tracker"]


@dataclass
class _Open:
    """A span under way and when it started (``time.monotonic``, for the metrics)."""

    span: Span
    started: float
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class _State:
    """What is kept of one conversation."""

    session_id: str
    #: the session answering it (a worker's: its root's), for the provider in use
    session: Any
    turn: _Open | None = None
    turn_context: Context | None = None
    chat: _Open | None = None
    tools: dict[str, _Open] = field(default_factory=dict)
    #: when the turn last did something (ns since the epoch), to end it late at that time
    last: int = 0
    #: the tokens of the turn's model calls so far
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def provider(self) -> str:
        """The provider the session answers with now (``/switch`` changes it)."""
        try:
            return str(self.session.provider_name)
        except Exception:  # no session, or a closed one
            return "unknown"


def _root_of(conversation: Conversation) -> Conversation:
    seen = {id(conversation)}
    while conversation.parent is not None and id(conversation.parent) not in seen:
        conversation = conversation.parent
        seen.add(id(conversation))
    return conversation


class Tracker:
    """Spans and metrics for the conversations of the running sessions.

    :param telemetry: the tracer and the instruments.
    :param costs: reads what calls cost from the cost plugin.
    """

    def __init__(self, telemetry: Telemetry, costs: CostReader) -> None:
        self.telemetry = telemetry
        self.costs = costs
        self.capture = telemetry.config.capture_content
        self._states: dict[str, _State] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ state

    def begin(self, conversation: Conversation, session: Any) -> None:
        """A session's conversation starts (``session_start``)."""
        with self._lock:
            self._states[conversation.id] = _State(conversation.id, session)
        self.costs.baseline(conversation)

    def _state(self, conversation: Conversation) -> _State:
        """The conversation's state; a worker's (a child conversation, which has no
        ``session_start``) is made on first sight, with its root's session."""
        with self._lock:
            state = self._states.get(conversation.id)
            if state is None:
                root = self._states.get(_root_of(conversation).id)
                state = self._states[conversation.id] = _State(
                    root.session_id if root else _root_of(conversation).id,
                    root.session if root else None)
            return state

    def _parent_of_turn(self, conversation: Conversation) -> Context | None:
        parent = conversation.parent
        with self._lock:
            state = self._states.get(parent.id) if parent is not None else None
            if state is not None:
                if len(state.tools) == 1:
                    return trace.set_span_in_context(next(iter(state.tools.values())).span)
                if state.turn_context is not None:
                    return state.turn_context
        return self.telemetry.root

    # ------------------------------------------------------------------ turns

    def turn_started(self, conversation: Conversation, message: Message | None) -> None:
        """A turn begins: the user's ``message`` (None: a turn without a prompt)."""
        state = self._state(conversation)
        self._end_turn(state, late=True)
        span = self.telemetry.tracer.start_span(
            f"invoke_agent {attrs.AGENT_NAME}", context=self._parent_of_turn(conversation),
            kind=SpanKind.INTERNAL,
            attributes=attrs.turn_start(state.session_id, message, self.capture))
        with self._lock:
            state.turn = _Open(span, time.monotonic())
            state.turn_context = trace.set_span_in_context(span)
            state.last = time.time_ns()

    def _end_turn(self, state: _State, *, late: bool, error: str | None = None) -> None:
        """End the turn: now, or (``late``) at its last event, the chat and tool spans still
        open with it."""
        with self._lock:
            turn, state.turn, state.turn_context = state.turn, None, None
            chat, state.chat = state.chat, None
            tools, state.tools = list(state.tools.values()), {}
        if turn is None:
            return
        unfinished = ([chat] if chat else []) + tools
        # late, at the turn's last event; unless something of it never finished: then now
        end = state.last if late and not unfinished else None
        for open_span in unfinished:
            open_span.span.set_status(Status(StatusCode.ERROR, "not finished"))
            open_span.span.end(end_time=end)
        turn.span.set_attributes({attrs.INPUT_TOKENS: state.input_tokens,
                                  attrs.OUTPUT_TOKENS: state.output_tokens})
        state.input_tokens = state.output_tokens = 0
        if error is not None:
            turn.span.set_attribute(attrs.ERROR_TYPE, error)
            turn.span.set_status(Status(StatusCode.ERROR, error))
        turn.span.end(end_time=end)
        instruments = self.telemetry.instruments
        if instruments is not None:
            seconds = ((end / 1e9 - time.time() + time.monotonic()) if end else time.monotonic()
                       ) - turn.started
            instruments.turns.record(max(seconds, 0.0), {
                attrs.OPERATION: "invoke_agent", attrs.PROVIDER: state.provider,
                **({attrs.ERROR_TYPE: error} if error else {})})

    # ------------------------------------------------------------------ model calls

    def chat_started(self, conversation: Conversation, request: ChatRequest) -> None:
        """A request leaves (``before_request``)."""
        state = self._state(conversation)
        self.costs.baseline(conversation)
        if state.turn is None:  # a turn without a prompt (/retry), or one already ended
            self.turn_started(conversation, None)
        attributes = attrs.chat_start(request, state.provider, state.session_id)
        span = self.telemetry.tracer.start_span(
            f"chat {request.model}", context=state.turn_context, kind=SpanKind.CLIENT,
            attributes=attributes)
        with self._lock:
            state.chat = _Open(span, time.monotonic(), attributes)

    def chat_ended(self, conversation: Conversation, message: Message | None,
                   error: ChatcliError | None, purpose: str) -> None:
        """A model call ended (``after_response``): the turn's, or a plugin's side call."""
        state = self._state(conversation)
        side = (message is not None and message.id not in conversation.log) or (
            message is None and state.chat is None)
        cost = self.costs.call_cost(conversation)
        if side:
            self._record_call(state, None, message, error, purpose, cost)
            return
        with self._lock:
            chat, state.chat = state.chat, None
        if chat is not None:
            chat.span.set_attributes(attrs.chat_end(message, error, self.capture))
            if cost is not None:
                chat.span.set_attribute(attrs.COST, cost)
            if error is not None:
                chat.span.set_status(Status(StatusCode.ERROR, type(error).__name__))
            chat.span.end()
        state.last = time.time_ns()  # after the span's end: a turn ended late holds it
        if message is not None and message.usage is not None:
            state.input_tokens += message.usage.input_tokens
            state.output_tokens += message.usage.output_tokens
        self._record_call(state, chat, message, error, purpose, cost)
        if error is not None:
            if type(error).__name__ != "ContextTooLongError":  # that one may be retried
                self._end_turn(state, late=False, error=type(error).__name__)
        elif message is not None and not message.tool_calls and not message.interrupted:
            self._end_turn(state, late=False)

    def _record_call(self, state: _State, chat: _Open | None, message: Message | None,
                     error: ChatcliError | None, purpose: str, cost: float | None) -> None:
        instruments = self.telemetry.instruments
        if instruments is None:
            return
        started = chat.attributes if chat is not None else {}
        common = {attrs.OPERATION: "chat",
                  attrs.PROVIDER: (message.provider if message is not None and message.provider
                                   else state.provider),
                  attrs.REQUEST_MODEL: started.get(attrs.REQUEST_MODEL) or (
                      message.model if message is not None and message.model else "unknown"),
                  attrs.PURPOSE: purpose}
        if message is not None and message.model:
            common[attrs.RESPONSE_MODEL] = message.model
        if error is not None:
            common[attrs.ERROR_TYPE] = type(error).__name__
        if chat is not None:
            instruments.duration.record(time.monotonic() - chat.started, common)
        usage = message.usage if message is not None else None
        if usage is not None:
            instruments.tokens.record(usage.input_tokens,
                                      {**common, "gen_ai.token.type": "input"})
            instruments.tokens.record(usage.output_tokens,
                                      {**common, "gen_ai.token.type": "output"})
        if cost is not None:
            instruments.cost.add(cost, common)

    # ------------------------------------------------------------------ tool calls

    def tool_decided(self, conversation: Conversation, call: ToolCallPart, tool: ToolSpec,
                     allowed: bool, approval: Approval | None, verdict: Verdict) -> None:
        """A tool call was decided (``tool_call_decided``): its span starts."""
        state = self._state(conversation)
        attributes = attrs.tool_start(call, tool, allowed, approval, verdict, state.session_id,
                                      self.capture)
        span = self.telemetry.tracer.start_span(
            f"execute_tool {call.name}", context=state.turn_context, kind=SpanKind.INTERNAL,
            attributes=attributes)
        with self._lock:
            state.tools[call.id] = _Open(span, time.monotonic(), attributes)

    def tool_finished(self, conversation: Conversation, call: ToolCallPart,
                      result: ToolResultPart) -> None:
        """A tool call has its result (``after_tool_call``): its span ends (a call that was
        never decided — an unknown tool, bad arguments, not run — gets a span of its own)."""
        state = self._state(conversation)
        with self._lock:
            tool = state.tools.pop(call.id, None)
        if tool is None:
            attributes = {attrs.OPERATION: "execute_tool", attrs.TOOL_NAME: call.name,
                          "gen_ai.tool.call.id": call.id, "gen_ai.tool.type": "function",
                          "chatcli.tool.decision": "not_decided",
                          "gen_ai.conversation.id": state.session_id,
                          "session.id": state.session_id}
            tool = _Open(self.telemetry.tracer.start_span(
                f"execute_tool {call.name}", context=state.turn_context,
                kind=SpanKind.INTERNAL, attributes=attributes), time.monotonic(), attributes)
        ended = attrs.tool_end(result, self.capture)
        tool.span.set_attributes(ended)
        if result.is_error:
            tool.span.set_status(Status(StatusCode.ERROR, "tool_error"))
        tool.span.end()
        state.last = time.time_ns()
        instruments = self.telemetry.instruments
        if instruments is not None:
            labels = {attrs.TOOL_NAME: call.name,
                      "chatcli.tool.decision": tool.attributes.get("chatcli.tool.decision", ""),
                      "chatcli.tool.outcome": ended["chatcli.tool.outcome"]}
            instruments.tool_calls.add(1, labels)
            instruments.tool_duration.record(time.monotonic() - tool.started, labels)

    # ------------------------------------------------------------------ the end

    def end(self, conversation: Conversation) -> None:
        """A conversation ends (``session_end``): a turn still open ends at its last event."""
        with self._lock:
            state = self._states.pop(conversation.id, None)
            children = [key for key, child in self._states.items()
                        if child.session_id == conversation.id]
            kids = [self._states.pop(key) for key in children]
        for leftover in [*kids, *([state] if state else [])]:
            self._end_turn(leftover, late=True)
        self.costs.forget(conversation)

    def open_conversations(self) -> int:
        """How many session conversations are under way."""
        with self._lock:
            return sum(1 for key, state in self._states.items() if key == state.session_id)
