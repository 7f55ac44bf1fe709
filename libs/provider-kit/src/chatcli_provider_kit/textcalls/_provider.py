"""The provider side of the text protocol: a wrapper that makes a model without native tool
calling look, to the engine, like one with it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import ChatRequest, Message, Provider, ProviderConfig, StreamEvent

__all__ = ["UNREAD_CALLS_NOTE", "TextToolCalls", "as_text", "text_tool_calls"]

#: What the model is told after the results of an answer that held more calls than were read.
UNREAD_CALLS_NOTE = (
    "(Only the first {count} tool calls of your answer were read; the rest were not run. Make "
    "the remaining calls in your next answer.)")


def text_tool_calls(provider: Provider, config: ProviderConfig) -> Provider:
    """``provider`` itself when ``config.native_tools`` (the kernel resolved ``[providers.NAME]
    tool_calls`` and the spec's capability to native tools), else ``provider`` speaking the
    text protocol (:class:`TextToolCalls`). Call it at the end of a provider factory."""
    return provider if config.native_tools else TextToolCalls(provider)


def as_text(message: Message, note: str | None = None) -> Message:
    """``message`` as a model without native tools sees it: calls stay as the text it wrote,
    results arrive as a user message (``note`` after them, unless the last one ends with it)."""
    from chatcli import Message, Role, TextPart

    if message.role == Role.TOOL:
        results = message.tool_results
        text = "\n\n".join(
            f"Result of tool {r.name}{' (error)' if r.is_error else ''}:\n{r.content}"
            for r in results
        )
        if note and results and not results[-1].content.endswith(note):
            text = f"{text}\n\n{note}"
        return Message(id=message.id, role=Role.USER, parts=[TextPart(text=text)])
    if message.tool_calls:
        return Message(id=message.id, role=message.role, parts=[TextPart(text=message.text)])
    return message


class TextToolCalls:
    """A :class:`chatcli.Provider` for a model without native tool calling, around the one that
    talks to it.

    A request that offers tools (``request.tools``) is sent with the tool catalog
    (:func:`~chatcli_provider_kit.textcalls.catalog_section`) as the last system section, no
    tool definitions, and the history as text (:func:`as_text`: each message converted once);
    the answer's text streams on unchanged, and the calls written in it
    (:func:`~chatcli_provider_kit.textcalls.parse_tool_calls`) follow as
    :class:`chatcli.ToolCallEvent` objects just before its :class:`chatcli.StopEvent`. A request
    without tools (a lean one) goes through untouched. Every other attribute is the wrapped
    provider's (``list_models``, ``close``…).
    """

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        #: message id → (message, note it was given, its text form, calls unread after it)
        self._cache: dict[str, tuple[Message, str | None, Message, int]] = {}

    def __getattr__(self, name: str) -> Any:
        if name == "provider":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.provider, name)

    def __repr__(self) -> str:
        return f"TextToolCalls({self.provider!r})"

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` through the text protocol when it offers tools (see the class)."""
        if not request.tools:
            return self.provider.stream(request)
        return self._stream(request)

    def prepare(self, request: ChatRequest) -> ChatRequest:
        """``request`` as the wrapped provider is sent it: when it offers tools, a copy with the
        tool catalog as its last system section, the history as text and no tool definitions;
        else ``request`` itself."""
        if not request.tools:
            return request
        from chatcli_provider_kit.textcalls._parse import catalog_section

        return dataclasses.replace(request, system=[*request.system, catalog_section(
            request.tools)], messages=self.view(request.messages), tools=[])

    def _stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        from chatcli import StopEvent, TextDelta, ToolCallEvent, safe_text

        from chatcli_provider_kit.textcalls._parse import parse_tool_calls

        specs = list(request.tools)
        sent = self.prepare(request)
        text: list[str] = []
        for event in self.provider.stream(sent):
            if isinstance(event, TextDelta):
                text.append(safe_text(event.text))  # what the engine keeps, and reads back
            elif isinstance(event, StopEvent):
                for call in parse_tool_calls("".join(text), specs):
                    yield ToolCallEvent(call=call)
            yield event

    def view(self, messages: list[Message]) -> list[Message]:
        """``messages`` as the model sees them (:func:`as_text`), each converted once:
        messages are not changed after they are appended, so a turn costs only its new ones.
        The results of an answer that held more calls than were read end with
        :data:`UNREAD_CALLS_NOTE`."""
        cache, view, note = self._cache, [], None
        for message in messages:
            hit = cache.get(message.id)
            if hit is None or hit[0] is not message or hit[1] != note:
                hit = cache[message.id] = (message, note, as_text(message, note),
                                           _unread(message))
            view.append(hit[2])
            note = UNREAD_CALLS_NOTE.format(count=hit[3]) if hit[3] else None
        if len(cache) > 2 * len(messages) + 64:  # forget messages that left the view
            keep = {m.id for m in messages}
            for key in [k for k in cache if k not in keep]:
                del cache[key]
        return view


def _unread(message: Message) -> int:
    """For an answer whose text held more calls than were read (or more structure than an
    answer may cost), how many were read; else 0."""
    from chatcli import Role

    if message.role != Role.ASSISTANT or not message.tool_calls:
        return 0
    from chatcli_provider_kit.textcalls._parse import scan_tool_calls

    found = scan_tool_calls(message.text)
    return len(found) if found.truncated else 0
