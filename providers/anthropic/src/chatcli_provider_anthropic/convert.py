"""Turn a kernel :class:`~chatcli.ChatRequest` into Messages API parameters (no SDK needed).

Prompt caching: the system prompt is sent as one text block per prompt section, stable sections
first. The last stable block carries ``cache_control``, so tools plus the whole stable prefix are
cached and the volatile sections after it (the date, retrieved memory) never break that cache. The
last tool definition and, unless disabled, the last message block carry a breakpoint as well, so a
growing conversation re-reads its earlier turns from the cache (at most 4 breakpoints in all).
"""

from __future__ import annotations

import json
from typing import Any

from chatcli import (
    BadRequestError,
    ChatRequest,
    ImagePart,
    Message,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from chatcli_provider_kit import MessageCache, is_url, read_image

__all__ = [
    "DEFAULT_MAX_TOKENS", "build_params", "convert_messages", "request_body", "system_blocks",
]

#: Output limit used when neither the request nor the config sets one (``max_tokens`` is required).
DEFAULT_MAX_TOKENS = 8192

Block = dict[str, Any]


def _cache_control(options: dict[str, Any]) -> Block:
    control: Block = {"type": "ephemeral"}
    ttl = options.get("cache_ttl")
    if ttl in ("5m", "1h"):
        control["ttl"] = ttl
    return control


def system_blocks(request: ChatRequest, caching: bool = True,
                  options: dict[str, Any] | None = None) -> list[Block]:
    """One text block per non-empty prompt section; ``cache_control`` on the last stable one."""
    sections = [s for s in request.ordered_system() if s.text.strip()]
    blocks: list[Block] = [{"type": "text", "text": s.text} for s in sections]
    if caching:
        stable = [i for i, s in enumerate(sections) if s.stable]
        if stable:
            blocks[stable[-1]]["cache_control"] = _cache_control(options or {})
    return blocks


def _tool_result_block(part: ToolResultPart) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": part.call_id,
                    "content": part.content or "(no output)"}
    if part.is_error:
        block["is_error"] = True
    return block


def _image_block(part: ImagePart) -> Block:
    source = part.source
    if source.startswith("data:"):
        header, _, data = source.partition(",")
        if ";base64" not in header:
            raise BadRequestError(f"image data URL is not base64: {source[:40]}…",
                                  "encode the image as base64", provider="anthropic")
        kind = header[5:].split(";")[0] or part.media_type or "image/png"
        return {"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}}
    if is_url(source):
        return {"type": "image", "source": {"type": "url", "url": source}}
    kind, data = read_image(source, part.media_type)
    return {"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}}


def _blocks(message: Message) -> list[Block]:
    blocks: list[Block] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text.strip():
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ToolCallPart):
            if message.role == Role.ASSISTANT:
                blocks.append({"type": "tool_use", "id": part.id, "name": part.name,
                               "input": dict(part.arguments)})
        elif isinstance(part, ToolResultPart):
            blocks.append(_tool_result_block(part))
        elif isinstance(part, ImagePart):
            blocks.append(_image_block(part))
    return blocks


def convert_messages(messages: list[Message], cache: MessageCache | None = None) -> list[Block]:
    """Kernel messages → Anthropic messages.

    Tool results travel as ``tool_result`` blocks in a user message; consecutive messages of the
    same Anthropic role are merged (tool results first), and messages left empty are dropped.
    With ``cache`` each message's blocks are built once and shared between requests: the lists
    and blocks returned are then not to be modified (copy first, as :func:`build_params` does).
    """
    converted = [_blocks(m) for m in messages] if cache is None else cache.convert(
        messages, _blocks, "anthropic")
    out: list[Block] = []
    for message, blocks in zip(messages, converted, strict=True):
        role = "assistant" if message.role == Role.ASSISTANT else "user"
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            merged = out[-1]["content"] + blocks
            # the API wants tool results before any other content of a user turn
            merged.sort(key=lambda b: 0 if b["type"] == "tool_result" else 1)
            out[-1]["content"] = merged
        else:
            out.append({"role": role, "content": blocks})
    # an assistant answer cut short must not end with whitespace when it is the last turn
    if out and out[-1]["role"] == "assistant":
        last = out[-1]["content"][-1]
        if last["type"] == "text":
            _replace_last_block(out, {**last, "text": last["text"].rstrip()})
    return out


def _replace_last_block(messages: list[Block], block: Block) -> None:
    """Put ``block`` in place of the last block of the last message, copying the list (which
    may be shared with the cache) rather than changing it."""
    messages[-1] = {**messages[-1], "content": [*messages[-1]["content"][:-1], block]}


def build_params(request: ChatRequest, options: dict[str, Any] | None = None,
                 cache: MessageCache | None = None) -> dict[str, Any]:
    """Keyword arguments for ``client.messages.create`` (without ``stream``).

    ``options`` are the provider's config options: ``prompt_caching`` (default true),
    ``cache_messages`` (default true), ``cache_ttl`` ("5m" or "1h") and ``max_tokens``.
    ``cache`` keeps each message's blocks between requests (see :func:`convert_messages`).
    """
    options = {**(options or {}), **request.options}
    caching = bool(options.get("prompt_caching", True))
    max_tokens = request.max_tokens or options.get("max_tokens") or DEFAULT_MAX_TOKENS
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": int(max_tokens),
        "messages": convert_messages(request.messages, cache),
    }
    system = system_blocks(request, caching, options)
    if system:
        params["system"] = system
    if request.tools:
        tools: list[Block] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        if caching:
            tools[-1]["cache_control"] = _cache_control(options)
        params["tools"] = tools
    if caching and options.get("cache_messages", True) and params["messages"]:
        last = params["messages"][-1]["content"][-1]
        _replace_last_block(params["messages"], {**last, "cache_control": _cache_control(options)})
    if request.temperature is not None:
        # the SDK no longer lists sampling parameters; the API still accepts them (0..1)
        params["extra_body"] = {"temperature": min(float(request.temperature), 1.0)}
    return params


def request_body(params: dict[str, Any]) -> bytes:
    """The JSON body ``client.messages.create(stream=True, **params)`` sends, byte for byte.

    The fields come in the SDK's order, ``extra_body`` merged last, encoded as the SDK encodes
    them; sending these bytes skips the SDK's copy of the whole body on every request.
    """
    body = {key: params[key] for key in ("max_tokens", "messages", "model") if key in params}
    body["stream"] = True
    for key in ("system", "tools"):
        if key in params:
            body[key] = params[key]
    body.update(params.get("extra_body") or {})
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
