"""The attributes of chatcli's spans and metrics, named as OpenTelemetry's GenAI semantic
conventions name them (``gen_ai.*``), with chatcli's own under ``chatcli.*``.

Pure functions from chatcli's objects to attribute dicts: no OpenTelemetry import. Message
content (prompts, answers, tool arguments and results) appears only when asked for
(``[otel] capture_content``), redacted of keys and cut short.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import (
        Approval,
        ChatcliError,
        ChatRequest,
        Message,
        ToolCallPart,
        ToolResultPart,
        ToolSpec,
        Usage,
        Verdict,
    )

__all__ = ["AGENT_NAME", "Attributes", "chat_end", "chat_start", "content", "tool_end",
           "tool_start", "turn_start", "usage_attributes"]

#: An attribute dict as OpenTelemetry takes it.
Attributes = dict[str, Any]

#: ``gen_ai.agent.name`` of the turn spans (``invoke_agent chatcli``).
AGENT_NAME = "chatcli"
#: The longest text a captured attribute holds.
CONTENT_LIMIT = 4_000

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"  # the older name of gen_ai.provider.name, kept for older backends
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE = "gen_ai.usage.cache_creation.input_tokens"
TOOL_NAME = "gen_ai.tool.name"
ERROR_TYPE = "error.type"
PURPOSE = "chatcli.purpose"
COST = "chatcli.cost.usd"


def content(text: str) -> str:
    """``text`` as a captured attribute may hold it: keys redacted, cut to ``CONTENT_LIMIT``."""
    from chatcli import redact

    text = redact(text)
    return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT] + "…"


def _messages(role: str, text: str) -> str:
    """A one-message ``gen_ai.input.messages`` / ``gen_ai.output.messages`` value."""
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": content(text)}]}],
                      ensure_ascii=False)


def turn_start(session_id: str, message: Message | None, capture: bool) -> Attributes:
    """A turn's span (``invoke_agent chatcli``); ``message`` is the user's prompt (None when
    the turn answers what is there: ``/retry``)."""
    attributes: Attributes = {
        OPERATION: "invoke_agent", "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.conversation.id": session_id, "session.id": session_id,
    }
    if message is None:
        attributes["chatcli.turn.retry"] = True
    elif capture:
        attributes["gen_ai.input.messages"] = _messages("user", message.text)
    return attributes


def chat_start(request: ChatRequest, provider: str, session_id: str) -> Attributes:
    """A model call's span (``chat {model}``) as the request leaves."""
    attributes: Attributes = {
        OPERATION: "chat", PROVIDER: provider, SYSTEM: provider,
        REQUEST_MODEL: request.model, "gen_ai.conversation.id": session_id,
        "session.id": session_id, PURPOSE: request.purpose,
    }
    if request.max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = request.max_tokens
    if request.temperature is not None:
        attributes["gen_ai.request.temperature"] = request.temperature
    return attributes


def usage_attributes(usage: Usage | None) -> Attributes:
    """The token counts of a response (input counts the whole prompt, cache included)."""
    if usage is None:
        return {}
    return {INPUT_TOKENS: usage.input_tokens, OUTPUT_TOKENS: usage.output_tokens,
            CACHE_READ: usage.cache_read_tokens, CACHE_WRITE: usage.cache_write_tokens}


def chat_end(message: Message | None, error: ChatcliError | None, capture: bool) -> Attributes:
    """What a finished model call adds: the answering model and provider, the usage, why it
    stopped, the error's kind."""
    attributes: Attributes = {}
    if message is not None:
        if message.model:
            attributes[RESPONSE_MODEL] = message.model
        if message.provider:
            attributes[PROVIDER] = attributes[SYSTEM] = message.provider
        if message.stop_reason is not None:
            attributes["gen_ai.response.finish_reasons"] = [str(message.stop_reason)]
        attributes.update(usage_attributes(message.usage))
        if message.tool_calls:
            attributes["chatcli.tool_calls"] = len(message.tool_calls)
        if capture and message.text:
            attributes["gen_ai.output.messages"] = _messages("assistant", message.text)
    if error is not None:
        attributes[ERROR_TYPE] = type(error).__name__
    return attributes


def tool_start(call: ToolCallPart, tool: ToolSpec, allowed: bool, approval: Approval | None,
               verdict: Verdict, session_id: str, capture: bool) -> Attributes:
    """A tool call's span (``execute_tool {name}``) once it was decided."""
    attributes: Attributes = {
        OPERATION: "execute_tool", TOOL_NAME: call.name, "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function", "chatcli.tool.risk": str(tool.risk),
        "chatcli.tool.decision": "allowed" if allowed else "denied",
        "chatcli.tool.decided_by": "user" if approval is not None else (
            verdict.by if verdict.by and str(verdict.decision) != "ask" else "policy"),
        "chatcli.tool.verdict": str(verdict.decision),
        "gen_ai.conversation.id": session_id, "session.id": session_id,
    }
    if capture:
        attributes["gen_ai.tool.call.arguments"] = content(
            json.dumps(call.arguments, ensure_ascii=False, default=str))
    return attributes


def tool_end(result: ToolResultPart, capture: bool) -> Attributes:
    """What a tool call's result adds: whether it failed."""
    attributes: Attributes = {"chatcli.tool.outcome": "error" if result.is_error else "ok"}
    if result.is_error:
        attributes[ERROR_TYPE] = "tool_error"
    if capture:
        attributes["gen_ai.tool.call.result"] = content(result.content)
    return attributes
