"""Turn a kernel :class:`~chatcli.ChatRequest` into ``ollama.Client.chat`` arguments.

No SDK import here: messages and tools are plain dicts the SDK validates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    ToolSpec,
    safe_json,
    safe_message,
    safe_text,
    translation,
)
from chatcli_provider_kit import MessageCache, is_url, read_image

__all__ = [
    "build_params", "convert_message", "convert_messages", "convert_tool", "ollama_options",
]

Dict = dict[str, Any]

_, ngettext = translation(__name__)

#: ``[providers.ollama]`` keys passed straight into Ollama's ``options`` (model parameters).
MODEL_OPTIONS = ("num_ctx", "num_predict", "top_k", "top_p", "min_p", "seed", "repeat_penalty",
                 "temperature", "stop", "num_gpu", "num_thread")


def _image(part: ImagePart) -> str:
    if part.source.startswith("data:") and ";base64," in part.source:
        return part.source.partition(",")[2]
    if is_url(part.source):
        raise BadRequestError(_("Ollama cannot fetch image URLs: {url}").format(
            url=part.source[:80]), _("download the image and pass the local file"),
            provider="ollama")
    return read_image(part.source, part.media_type)[1]


def convert_message(message: Message) -> list[Dict]:
    """One conversation message as Ollama messages (tool results become ``tool`` messages),
    its text made safe to send as every provider does (:func:`chatcli.safe_text`)."""
    message = safe_message(message)
    if message.role == Role.TOOL:
        return [{"role": "tool", "content": r.content or "(no output)", "tool_name": r.name}
                for r in message.parts if isinstance(r, ToolResultPart)]
    text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
    out: Dict = {"role": message.role.value, "content": text}
    images = [_image(p) for p in message.parts if isinstance(p, ImagePart)]
    if images:
        out["images"] = images
    calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
    if calls and message.role == Role.ASSISTANT:
        out["tool_calls"] = [{"function": {"name": c.name, "arguments": dict(c.arguments)}}
                             for c in calls]
    results = [p for p in message.parts if isinstance(p, ToolResultPart)]
    extra = [{"role": "tool", "content": r.content or "(no output)", "tool_name": r.name}
             for r in results]
    if not text and not images and not calls:
        return extra
    return [out, *extra]


def convert_messages(request: ChatRequest, cache: MessageCache | None = None,
                     wire: Callable[[Dict], Dict] | None = None) -> list[Dict]:
    """The system prompt (one ``system`` message) followed by the conversation.

    ``wire``, if given, is applied to every message dict (the provider passes the form the SDK
    sends). With ``cache`` each conversation message is converted once and its dicts are shared
    between requests (not to be modified).
    """
    def convert(message: Message) -> list[Dict]:
        out = convert_message(message)
        return [wire(m) for m in out] if wire else out

    system = safe_text(request.system_text())
    out: list[Dict] = []
    if system:
        head = {"role": "system", "content": system}
        out.append(wire(head) if wire else head)
    if cache is None:
        for message in request.messages:
            out.extend(convert(message))
    else:
        for converted in cache.convert(request.messages, convert, ("ollama", wire)):
            out.extend(converted)
    return out


def _simplify(schema: Any) -> Any:
    """Fold ``anyOf`` unions of simple types into a type list the SDK's tool model keeps."""
    if not isinstance(schema, dict):
        return schema
    schema = dict(schema)
    if "anyOf" in schema and "type" not in schema:
        types = [s.get("type") for s in schema["anyOf"] if isinstance(s, dict)]
        flat = [t for t in types if isinstance(t, str)]
        if flat and len(flat) == len(types):
            schema["type"] = flat[0] if len(flat) == 1 else flat
            items = [s.get("items") for s in schema["anyOf"] if isinstance(s, dict)]
            if any(items) and "items" not in schema:
                schema["items"] = next(i for i in items if i)
    if isinstance(schema.get("properties"), dict):
        schema["properties"] = {k: _simplify(v) for k, v in schema["properties"].items()}
    return schema


def convert_tool(tool: ToolSpec) -> Dict:
    """One tool as Ollama's ``{"type": "function", "function": {...}}``."""
    return safe_json({"type": "function",
                      "function": {"name": tool.name, "description": tool.description,
                                   "parameters": _simplify(tool.parameters)}})


def ollama_options(request: ChatRequest, options: Dict) -> Dict:
    """Model parameters: config options first, then the request's temperature and max_tokens."""
    result: Dict = {k: options[k] for k in MODEL_OPTIONS if k in options}
    extra = options.get("options")
    if isinstance(extra, dict):
        result.update(extra)
    if request.temperature is not None:
        result["temperature"] = request.temperature
    if request.max_tokens:
        result["num_predict"] = request.max_tokens
    return result


def build_params(request: ChatRequest, options: Mapping[str, Any] | None = None,
                 cache: MessageCache | None = None,
                 wire: Callable[[Dict], Dict] | None = None) -> Dict:
    """Keyword arguments for ``client.chat`` (without ``stream``); ``cache`` and ``wire`` as in
    :func:`convert_messages`."""
    options = {**(options or {}), **request.options}
    params: Dict = {"model": request.model, "messages": convert_messages(request, cache, wire)}
    if request.tools:
        params["tools"] = [convert_tool(t) for t in request.tools]
    model_options = ollama_options(request, options)
    if model_options:
        params["options"] = model_options
    if "keep_alive" in options:
        params["keep_alive"] = options["keep_alive"]
    if "think" in options:
        params["think"] = options["think"]
    return params
