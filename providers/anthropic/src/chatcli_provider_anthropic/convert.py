"""Turn a kernel :class:`~chatcli.ChatRequest` into Messages API parameters (no SDK needed).

Prompt caching. The API caches the prefix ``tools → system → messages`` up to each block that
carries ``cache_control`` (a *breakpoint*), at most :data:`MAX_BREAKPOINTS` per request. The
candidates, in prefix order:

1. the last tool definition (when there are tools);
2. the last system block: the system prompt is one text block per *stable* prompt section;
3. the last block of the last user message *before* the newest one: where the previous
   request of this conversation put its last breakpoint, so that request's cache is read
   exactly, however many blocks (tool calls and results) the newest step added;
4. the last block of the last message before the volatile reminder: the conversation so far,
   for the next request.

Volatile sections (``stable=False``: the date, recalled memory, rules the turn's paths
matched) go at the end of the system prompt, after the last stable block. In an agent run
(``request.volatile_last``, which chatcli-agent sets) they change at every step — the anchor
and its step count — so they travel *after* the cached history instead: one text block at the
end of the newest (user) message, wrapped in ``<system-reminder>`` tags (:func:`reminder`),
with the newest breakpoint before it. Each step then reads the whole previous request from
the cache — its newest breakpoint ends where its reminder began — and the next step drops
that reminder and adds its own. (In the system prompt, a section that changed every step
changed the prefix before every message, so no step could read the history back.) When the
newest message is the model's own (a continued answer) they stay in the system prompt;
``volatile_last = false`` keeps them there always.

When there are more candidates than the API allows, the earliest are dropped: a later
breakpoint covers everything before it, so only the finer steps of the prefix are lost.

A breakpoint is placed even when the prefix before it is shorter than the model's minimum
cacheable size (1,024–4,096 tokens by model): the API then simply caches nothing there, at no
charge. Skipping it would need a token count we only estimate and a table of minimums by model
that moves, and would make the request's bytes depend on the prefix's size: the same sections
and messages always produce the same bytes.

``request.cache_ttl`` (else the ``cache_ttl`` option) chooses how long the prefix is kept:
``"5m"`` (the API's default: no ``ttl`` field is sent) or ``"1h"`` (``"ttl": "1h"``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chatcli import (
    BadRequestError,
    ChatRequest,
    ImagePart,
    Message,
    PromptSection,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    safe_json,
    safe_message,
    safe_text,
    translation,
)
from chatcli_provider_kit import MessageCache, is_url, read_image

__all__ = [
    "CACHE_TTLS", "DEFAULT_MAX_TOKENS", "MAX_BREAKPOINTS", "build_params", "cache_control",
    "cache_ttl", "convert_messages", "place_breakpoints", "reminder", "request_body",
    "system_blocks",
]

_, ngettext = translation(__name__)

#: Output limit used when neither the request nor the config sets one (``max_tokens`` is required).
DEFAULT_MAX_TOKENS = 8192

#: The most ``cache_control`` breakpoints the Messages API accepts in one request.
MAX_BREAKPOINTS = 4

#: The cache lifetimes the API offers, shortest first (its default is the first).
CACHE_TTLS = ("5m", "1h")

Block = dict[str, Any]


def cache_ttl(request: ChatRequest, options: dict[str, Any]) -> str | None:
    """The TTL in force: ``request.cache_ttl`` when it is one the API offers, else the
    ``cache_ttl`` option, else None (the API's default, five minutes)."""
    for ttl in (request.cache_ttl, options.get("cache_ttl")):
        if ttl in CACHE_TTLS:
            return ttl
    return None


def cache_control(ttl: str | None = None) -> Block:
    """A breakpoint's ``cache_control``: ``{"type": "ephemeral"}``, with ``"ttl": "1h"`` for
    the long lifetime (five minutes, the default, is sent without a ``ttl``)."""
    control: Block = {"type": "ephemeral"}
    if ttl is not None and ttl != CACHE_TTLS[0]:
        control["ttl"] = ttl
    return control


def _on(value: Any) -> bool:
    """A switch from the config: false, 0, "false", "no", "off" and "0" are off."""
    return str(value).strip().lower() not in ("false", "0", "no", "off", "")


def reminder(sections: list[PromptSection]) -> str:
    """The volatile sections as the text that follows the history: one block, in prompt order,
    inside ``<system-reminder>`` tags (so the model tells them from what the person wrote)."""
    body = "\n\n".join(safe_text(s.text.strip()) for s in sections if s.text.strip())
    return f"<system-reminder>\n{body}\n</system-reminder>"


def system_blocks(request: ChatRequest, caching: bool = True,
                  options: dict[str, Any] | None = None) -> list[Block]:
    """One text block per non-empty prompt section; ``cache_control`` on the last stable one."""
    sections = [s for s in request.ordered_system() if s.text.strip()]
    blocks: list[Block] = [{"type": "text", "text": safe_text(s.text)} for s in sections]
    if caching:
        stable = [i for i, s in enumerate(sections) if s.stable]
        if stable:
            blocks[stable[-1]]["cache_control"] = cache_control(
                cache_ttl(request, options or {}))
    return blocks


def _tool_result_block(part: ToolResultPart) -> Block:
    block: Block = {"type": "tool_result", "tool_use_id": part.call_id,
                    "content": part.content or "(no output)"}  # untranslated: the model reads it
    if part.is_error:
        block["is_error"] = True
    return block


def _image_block(part: ImagePart) -> Block:
    source = part.source
    if source.startswith("data:"):
        header, _comma, data = source.partition(",")
        if ";base64" not in header:
            raise BadRequestError(_("image data URL is not base64: {start}…").format(
                start=source[:40]), _("encode the image as base64"), provider="anthropic")
        kind = header[5:].split(";")[0] or part.media_type or "image/png"
        return {"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}}
    if is_url(source):
        return {"type": "image", "source": {"type": "url", "url": source}}
    kind, data = read_image(source, part.media_type)
    return {"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}}


def _blocks(message: Message) -> list[Block]:
    message = safe_message(message)  # lone surrogates and NUL cannot be sent (chatcli.safe_text)
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


def _wire(message: Message) -> Block | None:
    """``message`` as an Anthropic message of its own (None when it has nothing to send): kept
    whole in the cache, so a request at 5,000 messages makes no new dictionary per message."""
    blocks = _blocks(message)
    if not blocks:
        return None
    return {"role": "assistant" if message.role == Role.ASSISTANT else "user", "content": blocks}


def convert_messages(messages: list[Message], cache: MessageCache | None = None) -> list[Block]:
    """Kernel messages → Anthropic messages.

    Tool results travel as ``tool_result`` blocks in a user message; consecutive messages of the
    same Anthropic role are merged (tool results first), and messages left empty are dropped.
    With ``cache`` each message's blocks are built once and shared between requests: the lists
    and blocks returned are then not to be modified (copy first, as :func:`build_params` does).
    """
    converted = [_wire(m) for m in messages] if cache is None else cache.convert(
        messages, _wire, "anthropic")
    out: list[Block] = []
    for wire in converted:
        if wire is None:
            continue
        if out and out[-1]["role"] == wire["role"]:
            merged = out[-1]["content"] + wire["content"]
            # the API wants tool results before any other content of a user turn
            merged.sort(key=lambda b: 0 if b["type"] == "tool_result" else 1)
            out[-1] = {"role": wire["role"], "content": merged}  # a new one: wires are shared
        else:
            out.append(wire)
    # an assistant answer cut short must not end with whitespace when it is the last turn
    if out and out[-1]["role"] == "assistant":
        last = out[-1]["content"][-1]
        if last["type"] == "text":
            _replace_last_block(out, {**last, "text": last["text"].rstrip()})
    return out


def _replace_last_block(messages: list[Block], block: Block, index: int = -1) -> None:
    """Put ``block`` in place of the last block of message ``index`` (the last by default),
    copying the list (which may be shared with the cache) rather than changing it."""
    messages[index] = {**messages[index], "content": [*messages[index]["content"][:-1], block]}


def _message_breakpoints(messages: list[Block]) -> list[int]:
    """The messages whose last block may carry a breakpoint, in order: the last user message
    before the newest message (the previous request ended there), then the newest message."""
    if not messages:
        return []
    last = len(messages) - 1
    previous = next((i for i in range(last - 1, -1, -1) if messages[i]["role"] == "user"), None)
    return [last] if previous is None else [previous, last]


def place_breakpoints(params: dict[str, Any], *, stable_end: int | None, messages: bool,
                      ttl: str | None, limit: int = MAX_BREAKPOINTS, tail: int = 0) -> None:
    """Mark the breakpoints of ``params`` (see the module's docstring): the last tool, the
    system block ``stable_end`` (the last stable one, if any), and the conversation (when
    ``messages``); beyond ``limit`` the earliest are dropped. ``tail``: how many blocks at the
    end of the newest message are volatile (the reminder): its breakpoint goes before them."""
    candidates: list[tuple[str, int]] = []
    if params.get("tools"):
        candidates.append(("tools", len(params["tools"]) - 1))
    if stable_end is not None and params.get("system"):
        candidates.append(("system", stable_end))
    if messages:
        candidates += [("messages", i) for i in _message_breakpoints(params["messages"])]
    control = cache_control(ttl)
    newest = len(params["messages"]) - 1 if params.get("messages") else -1
    for where, index in candidates[max(0, len(candidates) - limit):]:
        if where == "messages":
            content = params["messages"][index]["content"]
            at = len(content) - 1 - (tail if index == newest else 0)
            marked = [*content[:at], {**content[at], "cache_control": control}, *content[at + 1:]]
            params["messages"][index] = {**params["messages"][index], "content": marked}
        else:
            params[where][index] = {**params[where][index], "cache_control": control}


def build_params(request: ChatRequest, options: Mapping[str, Any] | None = None,
                 cache: MessageCache | None = None) -> dict[str, Any]:
    """Keyword arguments for ``client.messages.create`` (without ``stream``).

    Text that cannot be sent (lone surrogates, NUL) is replaced as :func:`chatcli.safe_text`
    says, as every provider does, so :func:`request_body` always encodes.

    ``options`` are the provider's config options: ``prompt_caching`` (default true),
    ``cache_messages`` (default true), ``cache_ttl`` ("5m" or "1h"; ``request.cache_ttl`` wins),
    ``volatile_last`` (default true: honour ``request.volatile_last``) and ``max_tokens``.
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
    sections = [s for s in request.ordered_system() if s.text.strip()]
    volatile = [s for s in sections if not s.stable]
    messages = params["messages"]
    tail = int(bool(volatile and messages and messages[-1]["role"] == "user"
                    and getattr(request, "volatile_last", False)
                    and _on(options.get("volatile_last", True))))
    if tail:  # after the cached history, at the end of the newest message
        sections = [s for s in sections if s.stable]
        last = messages[-1]
        messages[-1] = {**last, "content": [*last["content"],
                                            {"type": "text", "text": reminder(volatile)}]}
    if sections:
        params["system"] = [{"type": "text", "text": safe_text(s.text)} for s in sections]
    stable = [i for i, s in enumerate(sections) if s.stable]
    if request.tools:
        params["tools"] = safe_json([
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ])
    if caching:
        place_breakpoints(params, stable_end=stable[-1] if stable else None,
                          messages=bool(options.get("cache_messages", True)),
                          ttl=cache_ttl(request, options), tail=tail)
    if request.temperature is not None:
        # the SDK no longer lists sampling parameters; the API still accepts them (0..1)
        params["extra_body"] = {"temperature": min(float(request.temperature), 1.0)}
    return params


def request_body(params: dict[str, Any]) -> bytes:
    """The JSON body ``client.messages.create(stream=True, **params)`` sends, byte for byte.

    The fields come in the SDK's order, ``extra_body`` merged last, encoded as the SDK encodes
    them; sending these bytes skips the SDK's copy of the whole body on every request.
    """
    body: dict[str, Any] = {
        key: params[key] for key in ("max_tokens", "messages", "model") if key in params}
    body["stream"] = True
    for key in ("system", "tools"):
        if key in params:
            body[key] = params[key]
    body.update(params.get("extra_body") or {})
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
