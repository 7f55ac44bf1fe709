"""ChatRequest → keyword arguments of ``client.chat.completions.create`` (pure data, no SDK)."""

from __future__ import annotations

import json
from typing import Any

from chatcli.providers_util import image_data_url
from chatcli.types import (
    ChatRequest,
    ImagePart,
    Message,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)

__all__ = ["build_messages", "build_params", "build_tools"]


def _tool_call(call: ToolCallPart) -> dict[str, Any]:
    arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(
        call.arguments, ensure_ascii=False
    )
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _tool_result(result: ToolResultPart) -> dict[str, Any]:
    content = result.content
    if result.is_error and not content.lower().startswith("error"):
        content = f"Error: {content}"
    return {"role": "tool", "tool_call_id": result.call_id, "content": content}


def _user_content(message: Message) -> str | list[dict[str, Any]]:
    texts = [p for p in message.parts if isinstance(p, TextPart)]
    images = [p for p in message.parts if isinstance(p, ImagePart)]
    if not images:
        return "".join(p.text for p in texts)
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            url = image_data_url(part.source, part.media_type)
            content.append({"type": "image_url", "image_url": {"url": url}})
    return content


def build_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The ``messages`` list: the joined system sections, then the conversation.

    Assistant tool calls travel in ``tool_calls``; every tool result becomes its own ``tool``
    message (wherever it was stored). Empty assistant messages (an answer interrupted before
    anything arrived) are left out, since several services reject them.
    """
    messages: list[dict[str, Any]] = []
    system = request.system_text()
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        if message.role == Role.ASSISTANT:
            text = message.text
            calls = message.tool_calls
            if not text and not calls:
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = [_tool_call(c) for c in calls]
            messages.append(entry)
        elif message.role == Role.USER and any(
            isinstance(p, (TextPart, ImagePart)) for p in message.parts
        ):
            messages.append({"role": "user", "content": _user_content(message)})
        messages.extend(_tool_result(r) for r in results)
    return messages


def build_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as OpenAI function definitions."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def build_params(
    request: ChatRequest,
    model: str,
    *,
    max_tokens_param: str = "max_tokens",
    stream_usage: bool = True,
    extra_body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """All keyword arguments of ``chat.completions.create(stream=True, ...)``.

    ``request.options`` and ``extra_body`` are sent as extra top-level body fields (service
    specific switches such as ``reasoning_effort``), request options winning.
    """
    params: dict[str, Any] = {
        "model": model,
        "messages": build_messages(request),
        "stream": True,
    }
    if stream_usage:
        params["stream_options"] = {"include_usage": True}
    if request.tools:
        params["tools"] = build_tools(request.tools)
    if request.max_tokens is not None:
        params[max_tokens_param] = request.max_tokens
    if request.temperature is not None:
        params["temperature"] = request.temperature
    body = {**(extra_body or {}), **request.options}
    if body:
        params["extra_body"] = body
    return params
