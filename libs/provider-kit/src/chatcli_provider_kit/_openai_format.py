"""The OpenAI chat-completions wire format, shared by every provider that speaks it.

llama.cpp, vLLM, LM Studio, OpenAI itself and most hosted services accept the same JSON: a
``messages`` list (assistant ``tool_calls``, ``tool`` role results, ``image_url`` parts),
``function`` tool definitions, and a stream of ``chat.completion.chunk`` objects whose
``delta.tool_calls`` fragments are joined by ``index``. This module holds that translation once,
as pure data (no SDK, no HTTP): :func:`chat_messages` and :func:`tool_definitions` build the
request, :class:`ChunkAssembler` turns chunk dicts into kernel stream events.

Where providers differ (servers without vision or native tools, services that reject empty
messages), keyword options choose the behaviour; the defaults suit a modern OpenAI-style service.
Provider errors (error chunks, streams that end early) stay with the provider, which knows how
to word them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import field
from typing import Any, Literal

from chatcli import (
    ChatRequest,
    ImagePart,
    Message,
    Role,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
    UsageEvent,
    new_id,
    safe_json,
    safe_message,
    safe_text,
)
from chatcli_records_lite import dataclass

from chatcli_provider_kit._cache import MessageCache
from chatcli_provider_kit._util import image_data_url, parse_tool_arguments

__all__ = [
    "FINISH_REASONS",
    "ChunkAssembler",
    "ImageMode",
    "chat_messages",
    "stop_reason",
    "tool_call",
    "tool_definitions",
    "usage_from",
]

#: How images in user messages are sent: ``"inline"`` as ``image_url`` parts (local files become
#: ``data:`` URLs), ``"source"`` as ``image_url`` parts with the source unchanged, ``"text"`` as
#: an ``[image: SOURCE]`` note in the text (for models without vision).
ImageMode = Literal["inline", "source", "text"]

#: OpenAI ``finish_reason`` → kernel stop reason (anything else is the end of the turn).
FINISH_REASONS: dict[str, StopReason] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.END_TURN,
}


# --------------------------------------------------------------------------------------------
# Request
# --------------------------------------------------------------------------------------------


def tool_definitions(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as ``{"type": "function", "function": {...}}`` definitions (their text made
    safe to send, as :func:`chatcli.safe_json` does: an MCP server's description may hold a
    lone surrogate)."""
    return safe_json([
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
        for spec in specs
    ])


def tool_call(call: ToolCallPart) -> dict[str, Any]:
    """One assistant ``tool_calls`` entry; arguments that were not JSON are sent back as sent."""
    arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(
        call.arguments, ensure_ascii=False
    )
    function = {"name": call.name, "arguments": arguments}
    return {"id": call.id, "type": "function", "function": function}


def chat_messages(
    request: ChatRequest,
    *,
    tools: bool = True,
    images: ImageMode = "inline",
    drop_empty: bool = False,
    empty_content: str | None = None,
    error_prefix: bool = False,
    cache: MessageCache | None = None,
) -> list[dict[str, Any]]:
    """The ``messages`` list for ``request``: the joined system sections, then the conversation.

    :param tools: whether the server takes native tool calls. When it does not, assistant tool
        calls become ``[called tool NAME with {...}]`` lines in the assistant text and tool
        results become one user message of ``[result of tool NAME]`` blocks, so the model still
        sees what happened.
    :param images: how images travel (see :data:`ImageMode`).
    :param drop_empty: leave out assistant messages with neither text nor tool calls (an answer
        interrupted before anything arrived) and user messages with neither text nor images;
        several services reject them.
    :param empty_content: the ``content`` of an assistant message without text (``None`` is
        JSON ``null``; some servers want ``""``).
    :param error_prefix: start failed tool results with ``Error:`` (unless they already do), for
        services whose ``tool`` messages have no error flag.
    :param cache: where each message's wire form is kept between requests (a provider passes
        the same :class:`MessageCache` on every call), so a long history is converted once;
        the dicts returned are then shared between calls and must not be modified.

    Every tool result becomes its own ``tool`` message right after the message holding it.
    Text that cannot be sent (lone surrogates, NUL) is replaced as :func:`chatcli.safe_text`
    says, the same way for every provider, so the body always encodes as UTF-8 JSON.
    """
    messages: list[dict[str, Any]] = []
    system = safe_text(request.system_text())
    if system:
        messages.append({"role": "system", "content": system})

    def convert(message: Message) -> list[dict[str, Any]]:
        return _message(safe_message(message), tools, images, drop_empty, empty_content,
                        error_prefix)

    if cache is None:
        for message in request.messages:
            messages.extend(convert(message))
    else:
        variant = ("chat_messages", tools, images, drop_empty, empty_content, error_prefix)
        for wire in cache.convert(request.messages, convert, variant):
            messages.extend(wire)
    return messages


def _message(message: Message, tools: bool, images: ImageMode, drop_empty: bool,
             empty_content: str | None, error_prefix: bool) -> list[dict[str, Any]]:
    """The wire messages of one conversation message (its tool results follow it)."""
    wire: list[dict[str, Any]] = []
    if message.role == Role.ASSISTANT:
        wire.extend(_assistant(message, tools, images, drop_empty, empty_content))
    elif message.role == Role.USER:
        has_content = any(isinstance(p, (TextPart, ImagePart)) for p in message.parts)
        if has_content or not drop_empty:
            wire.append({"role": "user", "content": _user_content(message, images)})
    wire.extend(_results(message.tool_results, tools, error_prefix))
    return wire


def _text(message: Message, images: ImageMode) -> str:
    """The text parts, with ``[image: SOURCE]`` notes when images are sent as text."""
    if images != "text":
        return message.text
    return "".join(
        p.text if isinstance(p, TextPart) else f"[image: {p.source}]"
        for p in message.parts
        if isinstance(p, (TextPart, ImagePart))
    )


def _user_content(message: Message, images: ImageMode) -> str | list[dict[str, Any]]:
    if images == "text" or not any(isinstance(p, ImagePart) for p in message.parts):
        return _text(message, images)
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            url = part.source
            if images == "inline":
                url = image_data_url(part.source, part.media_type)
            content.append({"type": "image_url", "image_url": {"url": url}})
    return content


def _assistant(
    message: Message, tools: bool, images: ImageMode, drop_empty: bool, empty: str | None
) -> list[dict[str, Any]]:
    text = _text(message, images)
    calls = message.tool_calls
    if drop_empty and not text and not calls:
        return []
    if calls and not tools:
        described = "\n".join(
            f"[called tool {c.name} with {json.dumps(c.arguments, ensure_ascii=False)}]"
            for c in calls
        )
        return [{"role": "assistant", "content": f"{text}\n{described}".strip()}]
    entry: dict[str, Any] = {"role": "assistant", "content": text or empty}
    if calls:
        entry["tool_calls"] = [tool_call(c) for c in calls]
    return [entry]


def _results(
    results: list[ToolResultPart], tools: bool, error_prefix: bool
) -> list[dict[str, Any]]:
    if not results:
        return []
    if not tools:
        text = "\n\n".join(
            f"[result of tool {r.name}{' (error)' if r.is_error else ''}]\n{r.content}"
            for r in results
        )
        return [{"role": "user", "content": text}]
    wire = []
    for result in results:
        content = result.content
        if error_prefix and result.is_error and not content.lower().startswith("error"):
            content = f"Error: {content}"
        wire.append({"role": "tool", "tool_call_id": result.call_id, "content": content})
    return wire


# --------------------------------------------------------------------------------------------
# Response stream
# --------------------------------------------------------------------------------------------


def usage_from(raw: dict[str, Any]) -> Usage:
    """Kernel usage from a ``usage`` object (``prompt_tokens`` already counts cached tokens).

    Cache hits come from ``prompt_tokens_details.cached_tokens``, or DeepSeek's top-level
    ``prompt_cache_hit_tokens``.
    """
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        cached = raw.get("prompt_cache_hit_tokens")
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=int(cached or 0),
    )


def stop_reason(finish_reason: str | None, *, had_calls: bool = False) -> StopReason:
    """The kernel stop reason for a ``finish_reason``.

    Some servers say ``"stop"`` after tool calls; with ``had_calls`` that is tool use.
    """
    reason = FINISH_REASONS.get(finish_reason or "stop", StopReason.END_TURN)
    if had_calls and reason == StopReason.END_TURN:
        return StopReason.TOOL_USE
    return reason


@dataclass
class _PendingCall:
    """A tool call whose fragments are still arriving."""

    id: str | None = None
    name: str = ""
    fragments: list[str] = field(default_factory=list)

    def part(self, strip: bool) -> ToolCallPart:
        raw = "".join(self.fragments)
        if strip:
            raw = raw.strip()
        arguments, bad = parse_tool_arguments(raw)
        return ToolCallPart(
            id=self.id or new_id("call_"), name=self.name, arguments=arguments, raw_arguments=bad
        )


class ChunkAssembler:
    """Turns ``chat.completion.chunk`` dicts into kernel stream events, in order.

    Feed each chunk to :meth:`feed`, then call :meth:`finish` once the stream has ended (check
    :attr:`finished` first: a stream without a ``finish_reason`` was cut, which the provider
    reports in its own words). Text is yielded as it arrives; tool-call fragments are joined by
    ``index`` (a fragment without one continues the last call unless it brings a new ``id``) and
    yielded as whole :class:`ToolCallEvent` objects, with arguments that are not a JSON object
    kept in ``raw_arguments``.

    :param model: the model named in the :class:`StopEvent`; by default the last one the chunks
        named.
    :param flush_on_finish: yield the tool calls as soon as a choice finishes (rather than at
        :meth:`finish`).
    :param usage_at_end: hold usage back and yield it in :meth:`finish` (rather than with the
        chunk carrying it).
    :param skip_nameless: drop tool calls that never got a name.
    :param join_names: join name fragments (for servers that stream the name in pieces) rather
        than keep the first name.
    :param strip_arguments: strip whitespace around the joined argument text.
    :param tool_use_on_calls: report ``"stop"`` after tool calls as tool use.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        flush_on_finish: bool = False,
        usage_at_end: bool = False,
        skip_nameless: bool = False,
        join_names: bool = False,
        strip_arguments: bool = False,
        tool_use_on_calls: bool = True,
    ) -> None:
        self.fixed_model = model
        self.model: str | None = model
        self.flush_on_finish = flush_on_finish
        self.usage_at_end = usage_at_end
        self.skip_nameless = skip_nameless
        self.join_names = join_names
        self.strip_arguments = strip_arguments
        self.tool_use_on_calls = tool_use_on_calls
        self.calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.emitted_calls = 0

    @property
    def finished(self) -> bool:
        """Whether a choice has finished (a ``finish_reason`` arrived)."""
        return self.finish_reason is not None

    def feed(self, chunk: dict[str, Any]) -> Iterator[StreamEvent]:
        """The events carried by one chunk (error chunks are the caller's to check)."""
        if self.fixed_model is None:
            self.model = chunk.get("model") or self.model
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if content:
                if not isinstance(content, str):
                    raise TypeError(f"delta.content is {type(content).__name__}, not text")
                yield TextDelta(text=content)
            for fragment in delta.get("tool_calls") or []:
                self._add_fragment(fragment)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
                if self.flush_on_finish:
                    yield from self._flush_calls()
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_from(usage)
            if not self.usage_at_end:
                yield UsageEvent(usage=self.usage)

    def finish(self) -> Iterator[StreamEvent]:
        """The closing events: the tool calls not yet yielded, held usage, the stop event."""
        yield from self._flush_calls()
        if self.usage_at_end and self.usage is not None:
            yield UsageEvent(usage=self.usage)
        if self.finish_reason is None and not self.tool_use_on_calls:
            reason = StopReason.TOOL_USE if self.emitted_calls else StopReason.END_TURN
        else:
            reason = stop_reason(
                self.finish_reason, had_calls=self.tool_use_on_calls and self.emitted_calls > 0
            )
        yield StopEvent(reason=reason, model=self.model)

    def _add_fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index")
        if index is None:  # servers that omit the index send each call whole
            index = len(self.calls) if fragment.get("id") or not self.calls else max(self.calls)
        pending = self.calls.setdefault(int(index), _PendingCall())
        if fragment.get("id") and not pending.id:
            pending.id = fragment["id"]
        function = fragment.get("function") or {}
        name = function.get("name")
        if name and (self.join_names or not pending.name):
            pending.name += name
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            pending.fragments.append(arguments)
        elif isinstance(arguments, dict):  # a few servers send the object itself
            pending.fragments.append(json.dumps(arguments, ensure_ascii=False))

    def _flush_calls(self) -> Iterator[StreamEvent]:
        for index in sorted(self.calls):
            pending = self.calls[index]
            if pending.name or not self.skip_nameless:
                self.emitted_calls += 1
                yield ToolCallEvent(call=pending.part(self.strip_arguments))
        self.calls.clear()
