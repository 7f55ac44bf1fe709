"""ChatRequest → the JSON body of ``POST /chat/completions`` (pure data, no SDK)."""

from __future__ import annotations

from typing import Any

from chatcli import ChatRequest, PromptSection, ToolSpec, safe_text
from chatcli_provider_kit import MessageCache, chat_messages, tool_definitions

__all__ = ["build_body", "build_messages", "build_tools", "reminder", "short_tool_id",
           "short_tool_ids", "with_reminder"]

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def build_messages(request: ChatRequest, cache: MessageCache | None = None,
                   volatile_last: bool = True) -> list[dict[str, Any]]:
    """The ``messages`` list: the joined stable system sections, then the conversation, then
    the volatile sections.

    Assistant tool calls travel in ``tool_calls``; every tool result becomes its own ``tool``
    message (wherever it was stored). Empty assistant messages (an answer interrupted before
    anything arrived) are left out, since several services reject them. With ``cache`` each
    message is converted once and its dicts are shared between requests.

    The service caches prompts by exact prefix (1,024 tokens and more). Volatile sections
    (``stable=False``: the date, recalled memory) end the system message. In an agent run
    (``request.volatile_last``, set by chatcli-agent) they change at every step — the anchor
    and its step count — so they travel after the history instead (:func:`with_reminder`):
    each step's prompt then starts with the whole previous one. When the newest message is the
    model's own (or ``volatile_last`` is off) they stay at the end of the system message.
    """
    volatile = [s for s in request.system if not s.stable and s.text.strip()]
    if (volatile and volatile_last and request.messages
            and getattr(request, "volatile_last", False)):
        stable = ChatRequest(model=request.model, messages=request.messages,
                             system=[s for s in request.system if s.stable])
        messages = chat_messages(stable, drop_empty=True, error_prefix=True, cache=cache)
        if messages and messages[-1]["role"] in ("user", "tool"):
            return with_reminder(messages, reminder(
                [s for s in request.ordered_system() if not s.stable]))
    return chat_messages(request, drop_empty=True, error_prefix=True, cache=cache)


def reminder(sections: list[PromptSection]) -> str:
    """Volatile sections as the text after the history, in ``<system-reminder>`` tags (so the
    model tells them from what the person wrote)."""
    body = "\n\n".join(safe_text(s.text.strip()) for s in sections if s.text.strip())
    return f"<system-reminder>\n{body}\n</system-reminder>"


def with_reminder(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """``messages`` with ``text`` after the newest one: appended to the person's message
    (a text part when it has parts), or as a user message of its own after tool results.
    The newest message is copied (the others may be shared with the cache)."""
    last = messages[-1]
    if last["role"] == "tool":
        return [*messages, {"role": "user", "content": text}]
    content = last.get("content")
    if isinstance(content, list):
        content = [*content, {"type": "text", "text": text}]
    else:
        content = f"{content}\n\n{text}" if content else text
    return [*messages[:-1], {**last, "content": content}]


def build_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as OpenAI function definitions."""
    return tool_definitions(tools)


def build_body(
    request: ChatRequest,
    model: str,
    *,
    max_tokens_param: str = "max_tokens",
    stream_usage: bool = True,
    extra_body: dict[str, Any] | None = None,
    cache: MessageCache | None = None,
    volatile_last: bool = True,
) -> dict[str, Any]:
    """The streaming request's JSON body, sent as is (the SDK's param transform is skipped).

    Fields come in the order ``chat.completions.create`` sends them, so the bytes are the same.
    ``extra_body`` and ``request.options`` are extra top-level fields (service specific switches
    such as ``reasoning_effort``) that override the built ones, request options winning.
    ``cache`` keeps each message's wire form between requests (see :func:`build_messages`);
    ``volatile_last`` False: never move the volatile sections after the history, even when the
    request asks for it.
    """
    messages = build_messages(request, cache, volatile_last)
    body: dict[str, Any] = {"model": model, "stream": True, "messages": messages}
    if request.max_tokens is not None:
        body[max_tokens_param] = request.max_tokens
    if stream_usage:
        body["stream_options"] = {"include_usage": True}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.tools:
        body["tools"] = build_tools(request.tools)
    return {**body, **(extra_body or {}), **request.options}


def short_tool_id(call_id: str) -> str:
    """``call_id`` when it is nine letters and digits, else a stable nine-character digest of it
    in that alphabet (the same id always maps to the same digest, so calls and results pair)."""
    if len(call_id) == 9 and call_id.isascii() and call_id.isalnum():
        return call_id
    import hashlib

    number = int.from_bytes(hashlib.sha256(call_id.encode("utf-8")).digest()[:8], "big")
    digits = []
    for _ in range(9):
        number, rest = divmod(number, len(_ALPHABET))
        digits.append(_ALPHABET[rest])
    return "".join(digits)


def short_tool_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with every tool-call id (``tool_calls[].id``, ``tool_call_id``) as
    :func:`short_tool_id` gives it; changed messages are copies (the cached dicts stay)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls:
            message = {**message, "tool_calls": [
                {**call, "id": short_tool_id(str(call.get("id", "")))} for call in calls]}
        if message.get("role") == "tool" and "tool_call_id" in message:
            message = {**message, "tool_call_id": short_tool_id(str(message["tool_call_id"]))}
        out.append(message)
    return out
