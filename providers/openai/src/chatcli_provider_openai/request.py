"""ChatRequest → keyword arguments of ``client.chat.completions.create`` (pure data, no SDK)."""

from __future__ import annotations

from typing import Any

from chatcli import ChatRequest, ToolSpec
from chatcli_provider_kit import chat_messages, tool_definitions

__all__ = ["build_messages", "build_params", "build_tools"]


def build_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The ``messages`` list: the joined system sections, then the conversation.

    Assistant tool calls travel in ``tool_calls``; every tool result becomes its own ``tool``
    message (wherever it was stored). Empty assistant messages (an answer interrupted before
    anything arrived) are left out, since several services reject them.
    """
    return chat_messages(request, drop_empty=True, error_prefix=True)


def build_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as OpenAI function definitions."""
    return tool_definitions(tools)


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
