"""An in-process provider driven by the same :class:`Reply` / :class:`Fault` script as the servers.

Use it for engine and CLI tests that do not need a wire format::

    provider = ScriptedProvider([Reply(text="hi"), Fault(status=429, retry_after=0)])
    host.register(scripted_plugin(provider), "scripted")
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

import chatcli
from chatcli import (
    ChatRequest,
    ProviderConfig,
    ProviderSpec,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    Tool,
    ToolCallEvent,
    ToolCallPart,
    Usage,
    UsageEvent,
    hookimpl,
)
from pydantic import BaseModel

from chatcli_testing.script import DEFAULT_REPLY_TEXT, Fault, Reply

__all__ = ["AddTool", "ScriptedProvider", "fault_error", "reply_events", "scripted_plugin"]

ScriptItem = Reply | Fault | BaseException | str


def fault_error(fault: Fault, provider: str = "scripted") -> chatcli.ProviderError:
    """The kernel error a provider would raise for an HTTP-status ``fault``."""
    status = fault.status or 500
    message = f"{provider}: {fault.message} (HTTP {status})"
    kw: dict[str, Any] = {"provider": provider, "status": status}
    if status == 429:
        return chatcli.RateLimitError(message, retry_after=fault.retry_after, **kw)
    if status in (401, 403):
        return chatcli.AuthError(message, "check the API key", **kw)
    if status == 404:
        return chatcli.ModelNotFoundError(message, **kw)
    if status == 413:
        return chatcli.ContextTooLongError(message, **kw)
    if status >= 500:
        return chatcli.ServerError(message, retry_after=fault.retry_after, **kw)
    return chatcli.BadRequestError(message, **kw)


def _stop_reason(value: str) -> StopReason:
    try:
        return StopReason(value)
    except ValueError:
        return StopReason.END_TURN


def reply_events(reply: Reply, model: str | None = None) -> list[StreamEvent]:
    """The kernel events of ``reply``: text deltas, tool calls, usage, stop."""
    events: list[Any] = [TextDelta(text=piece) for piece in reply.text_chunks()]
    for call in reply.tool_calls:
        parsed = call.arguments_object()
        part = ToolCallPart(name=call.name, arguments=parsed or {},
                            raw_arguments=None if parsed is not None else call.arguments_json())
        if call.id:
            part.id = call.id
        events.append(ToolCallEvent(call=part))
    events.append(UsageEvent(usage=Usage(**reply.resolved_usage())))
    events.append(StopEvent(reason=_stop_reason(reply.resolved_stop_reason()),
                            model=reply.model or model))
    return events


class ScriptedProvider:
    """A :class:`chatcli.Provider` answering from a script, recording every request.

    Items: :class:`Reply` (or a ``str``, meaning ``Reply(text=…)``), :class:`Fault` (HTTP status →
    the matching kernel error before any event; ``cut_after`` / ``malformed_after`` →
    :class:`~chatcli.StreamCutError` after that many text chunks; ``error_event_after`` →
    :class:`~chatcli.ServerError` after that many; ``stall`` → wait first), or an exception
    instance to raise. An empty script answers ``Reply(text="ok")``.
    """

    def __init__(self, replies: Iterable[ScriptItem] = (), name: str = "scripted") -> None:
        self.name = name
        self._queue: deque[ScriptItem] = deque(replies)
        self._lock = threading.Lock()
        self.requests: list[ChatRequest] = []
        self.configs: list[ProviderConfig] = []
        self.closed_early = 0

    def script(self, *items: ScriptItem) -> ScriptedProvider:
        """Queue more answers."""
        with self._lock:
            self._queue.extend(items)
        return self

    @property
    def pending(self) -> int:
        """How many scripted items are still queued."""
        with self._lock:
            return len(self._queue)

    def _next(self) -> ScriptItem:
        with self._lock:
            return self._queue.popleft() if self._queue else Reply(text=DEFAULT_REPLY_TEXT)

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Record ``request`` and yield the next scripted answer's events."""
        self.requests.append(request)
        item = self._next()
        return self._events(item, request)

    def _events(self, item: ScriptItem, request: ChatRequest) -> Iterator[StreamEvent]:
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, str):
            item = Reply(text=item)
        fault = item if isinstance(item, Fault) else None
        if fault is not None and fault.status is not None:
            raise fault_error(fault, self.name)
        reply = fault.partial_reply() if fault is not None else item
        assert isinstance(reply, Reply)
        if fault is not None and fault.stall:
            time.sleep(fault.stall)
        limit, error = self._limit(fault)
        finished = False
        try:
            sent = 0
            for event in reply_events(reply, request.model):
                if limit is not None and (sent >= limit or not isinstance(event, TextDelta)):
                    raise error  # type: ignore[misc]
                if isinstance(event, TextDelta):
                    if reply.wait_before(sent):
                        time.sleep(reply.wait_before(sent))
                    sent += 1
                yield event
            finished = True
        finally:
            if not finished:
                self.closed_early += 1

    def _limit(self, fault: Fault | None) -> tuple[int | None, chatcli.ProviderError | None]:
        if fault is None:
            return None, None
        if fault.cut_after is not None:
            return fault.cut_after, chatcli.StreamCutError(
                f"{self.name}: the answer stream ended early", provider=self.name)
        if fault.malformed_after is not None:
            return fault.malformed_after, chatcli.StreamCutError(
                f"{self.name}: the answer stream carried unreadable data", provider=self.name)
        if fault.error_event_after is not None:
            return fault.error_event_after, chatcli.ServerError(
                f"{self.name}: {fault.message}", provider=self.name)
        return None, None


def scripted_plugin(provider: Any, name: str = "scripted", default_model: str = "scripted-model"
                    ) -> object:
    """A plugin object registering ``provider`` as ProviderSpec ``name`` (no key needed).

    Use with ``PluginHost.register(scripted_plugin(provider), name)``.
    """

    def factory(config: ProviderConfig) -> Any:
        configs = getattr(provider, "configs", None)
        if isinstance(configs, list):
            configs.append(config)
        return provider

    spec = ProviderSpec(name=name, display_name=f"Scripted ({name})", factory=factory,
                        default_model=default_model, requires_key=False,
                        models=[default_model], description="chatcli_testing scripted provider")

    class ScriptedPlugin:
        @hookimpl
        def register_providers(self, register: Any) -> None:
            register(spec)

    return ScriptedPlugin()


class _AddArgs(BaseModel):
    a: int
    b: int


class AddTool:
    """A plugin registering one read-only tool, ``add(a, b)``: the tool for tool-call tests.

    ``host.register(AddTool(), "add-tool")``; a model that calls ``add`` with ``{"a": 2, "b": 3}``
    gets the result ``"5"``.
    """

    @hookimpl
    def register_tools(self, register: Any) -> None:
        """Register ``add``."""
        register(Tool(name="add", description="Add two numbers", args_model=_AddArgs,
                      run=lambda args, ctx: str(args.a + args.b)))
