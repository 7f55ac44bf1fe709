"""The Ollama provider: streams ``/api/chat`` through the official ``ollama`` SDK.

The request goes out on the SDK client's HTTP client (``client._client``: host, headers,
``OLLAMA_API_KEY``, timeouts) with the very body ``client.chat`` sends, built from messages the
SDK's ``Message`` model validated once each (``client.chat`` would validate and dump the whole
history on every call); the NDJSON lines are read into the SDK's ``ChatResponse`` here, as the SDK
does, so that errors of any shape keep the service's words.

Ollama has no retries of its own; the kernel engine retries. Failures surface as
:mod:`chatcli` errors exceptions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import httpx
import ollama
from chatcli import (
    ChatRequest,
    ConfigError,
    ProviderConfig,
    StopEvent,
    StopReason,
    StreamCutError,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    Usage,
    UsageEvent,
    translation,
)
from chatcli_provider_kit import MessageCache, nested_too_deep, parse_tool_arguments
from pydantic import TypeAdapter

from chatcli_provider_ollama.convert import build_params
from chatcli_provider_ollama.errormap import error_words, map_error, service_error

__all__ = ["OllamaProvider", "read_line", "stop_reason"]

_, ngettext = translation(__name__)


def stop_reason(done_reason: str | None, has_tool_calls: bool) -> StopReason:
    """The kernel stop reason for Ollama's ``done_reason``."""
    if done_reason == "length":
        return StopReason.MAX_TOKENS
    return StopReason.TOOL_USE if has_tool_calls else StopReason.END_TURN


class _ErrorLine(Exception):
    """An ``{"error": …}`` line inside the answer stream."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


#: How ``ollama.Client.chat`` validates these top-level fields (``keep_alive=300`` is sent as
#: ``300.0``, ``think=1`` as ``true``).
_KEEP_ALIVE: TypeAdapter[float | str | None] = TypeAdapter(float | str | None)
_THINK: TypeAdapter[bool | str | None] = TypeAdapter(bool | str | None)


def sdk_message(message: dict[str, Any]) -> dict[str, Any]:
    """A message dict as ``ollama.Client.chat`` puts it in the body: empty fields dropped,
    validated by ``ollama.Message`` (images as ``ollama.Image``), dumped without nulls."""
    fields = {k: [ollama.Image(value=i) for i in v] if k == "images" else v
              for k, v in message.items() if v}
    return ollama.Message.model_validate(fields).model_dump(exclude_none=True)


def sdk_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool dict as ``ollama.Client.chat`` puts it in the body (through ``ollama.Tool``)."""
    out = ollama.Tool.model_validate(tool).model_dump(exclude_none=True)
    parameters = (out.get("function") or {}).get("parameters") or {}
    if "defs" in parameters:
        parameters["$defs"] = parameters.pop("defs")
    return out


def request_json(params: dict[str, Any]) -> dict[str, Any]:
    """The JSON body ``ollama.Client.chat(stream=True, **params)`` sends, with the same fields in
    the same order, when ``params["messages"]`` already holds :func:`sdk_message` dicts.

    The SDK would validate and dump every message of the history again on every request.
    """
    body: dict[str, Any] = {"model": params["model"], "stream": True}
    if params.get("options") is not None:
        body["options"] = dict(params["options"])
    keep_alive = _KEEP_ALIVE.validate_python(params.get("keep_alive"))
    if keep_alive is not None:
        body["keep_alive"] = keep_alive
    body["messages"] = params["messages"]
    body["tools"] = [sdk_tool(t) for t in params.get("tools") or []]
    think = _THINK.validate_python(params.get("think"))
    if think is not None:
        body["think"] = think
    return body


#: A JSON string (one left open runs to the end of the line) or a bracket.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
_SCALAR_END = re.compile(r"[,}\]]")
_SPACES = re.compile(r"\s*")
_ARGUMENTS_KEY = '"arguments"'
_PLACEHOLDER = "\x00chatcli: raw arguments "


def read_line(line: str) -> tuple[Any, dict[int, str]]:
    """One NDJSON line of the answer, and the raw JSON text of the arguments of its tool calls
    (by their index in ``message.tool_calls``) that nest deeper than ``MAX_ARGUMENT_DEPTH``:
    those calls get ``{}``, so the engine refuses them in one line as the other providers do.

    Ollama sends arguments as a JSON object inside the line, so arguments nested some
    thousand levels deep make the whole line unreadable (``RecursionError``); the values of
    every ``"arguments"`` key are then cut out as text by a quote-aware scan before the rest is
    read. A line still too deep raises ``ValueError`` (read as an unreadable stream line).
    """
    try:
        part = json.loads(line)
    except RecursionError:
        part = None
    if part is not None and not any(nested_too_deep(_arguments(call))
                                    for call in _tool_calls(part)):
        return part, {}
    text, cut = _cut_arguments(line)
    try:
        part = json.loads(text)
    except RecursionError:
        raise ValueError("an answer line nested too deep to read") from None
    raw: dict[int, str] = {}
    for index, call in enumerate(_tool_calls(part)):
        value = _arguments(call)
        if isinstance(value, str) and value.startswith(_PLACEHOLDER):
            arguments, bad = parse_tool_arguments(cut[int(value[len(_PLACEHOLDER):])])
            call["function"]["arguments"] = arguments
            if bad is not None:
                raw[index] = bad
    return part, raw


def _tool_calls(part: Any) -> list[dict[str, Any]]:
    message = part.get("message") if isinstance(part, dict) else None
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _arguments(call: dict[str, Any]) -> Any:
    function = call.get("function")
    return function.get("arguments") if isinstance(function, dict) else None


def _cut_arguments(line: str) -> tuple[str, list[str]]:
    """``line`` with the value of every ``"arguments":`` key replaced by a placeholder string
    (numbered), and the values' texts. Linear: the scan jumps from token to token (strings are
    matched whole, so brackets and keys inside strings do not count)."""
    out: list[str] = []
    cut: list[str] = []
    done = position = 0
    while (token := _TOKEN.search(line, position)) is not None:
        position = token.end()
        if token.group() != _ARGUMENTS_KEY:
            continue
        colon = _SPACES.match(line, position).end()  # type: ignore[union-attr]
        if not line.startswith(":", colon):
            continue
        start = _SPACES.match(line, colon + 1).end()  # type: ignore[union-attr]
        end = _value_end(line, start)
        out += [line[done:start], json.dumps(f"{_PLACEHOLDER}{len(cut)}")]
        cut.append(line[start:end])
        done = position = end
    out.append(line[done:])
    return "".join(out), cut


def _value_end(line: str, start: int) -> int:
    """Where the JSON value starting at ``start`` ends (at worst, the end of the line)."""
    if not line.startswith(("{", "["), start):
        token = _TOKEN.match(line, start)
        if token is not None:  # a string
            return token.end()
        stop = _SCALAR_END.search(line, start)
        return stop.start() if stop else len(line)
    depth, position = 0, start
    while (token := _TOKEN.search(line, position)) is not None:
        position = token.end()
        mark = token.group()
        if mark in "[{":
            depth += 1
        elif mark in "]}":
            depth -= 1
            if depth == 0:
                return position
    return len(line)


class OllamaProvider:
    """Streams chat requests to an Ollama server."""

    def __init__(self, config: ProviderConfig) -> None:
        from chatcli_provider_ollama.defaults import DEFAULT_HOST

        self.config = config
        self.host = (config.base_url or DEFAULT_HOST).rstrip("/")
        timeout = float(config.timeout)
        try:
            # the key chatcli found and checked (OLLAMA_API_KEY or keys.toml), not the SDK's
            # own read of the variable
            headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else None
            self.client = ollama.Client(
                host=self.host, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                headers=headers)
        except ValueError as err:  # the SDK parses the host: "::::", "http://h:port"…
            raise ConfigError(
                _("the Ollama address '{host}' is not valid ({reason})").format(
                    host=self.host, reason=err),
                _("set OLLAMA_HOST or [providers.ollama].base_url to host:port or "
                  "http://host:port"),
            ) from None
        self._messages = MessageCache()

    def list_models(self) -> list[str]:
        """The models pulled into the server (``GET /api/tags`` through the SDK's ``list``)."""
        try:
            return [m.model for m in self.client.list().models if m.model]
        except Exception as err:
            raise map_error(err, model=self.config.model, host=self.host,
                            started=False) from None

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and the stop event.

        The request goes out on the SDK's HTTP client (its host, headers and timeouts) with the
        body ``client.chat`` would send; the NDJSON answer is read here, so that error objects
        of any shape are reported in the service's words.
        """
        started = responded = False
        headers: Mapping[str, str] | None = None
        try:
            params = build_params(request, self.config.options, self._messages, sdk_message)
            http: httpx.Client = self.client._client
            with http.stream("POST", "/api/chat", json=request_json(params)) as response:
                responded = True
                if response.is_error:
                    response.read()
                    headers = response.headers
                    raise service_error(response.status_code, error_words(response.text),
                                        model=request.model, host=self.host, started=False,
                                        headers=headers)
                for event in self._events(self._chunks(response), request):
                    started = True
                    yield event
        except _ErrorLine as err:
            raise service_error(-1, err.words, model=request.model, host=self.host,
                                started=started) from None
        except Exception as err:
            raise map_error(err, model=request.model, host=self.host, started=started,
                            responded=responded, headers=headers) from None

    def _chunks(self, response: httpx.Response
                ) -> Iterator[tuple[ollama.ChatResponse, dict[int, str]]]:
        """The NDJSON lines as ``ollama.ChatResponse`` objects (as the SDK reads them), each
        with the raw argument text of its tool calls nested too deep to take (by index, see
        :func:`read_line`); an error line raises the kernel error naming the service's words."""
        for line in response.iter_lines():
            if not line.strip():
                continue
            part, raw = read_line(line)
            if isinstance(part, dict) and part.get("error"):
                raise _ErrorLine(error_words(part["error"]))
            yield ollama.ChatResponse(**part), raw

    def _events(self, chunks: Iterator[tuple[Any, dict[int, str]]], request: ChatRequest
                ) -> Iterator[StreamEvent]:
        calls = 0
        for chunk, raw in chunks:
            message = chunk.message
            if message.content:
                yield TextDelta(text=message.content)
            for index, call in enumerate(message.tool_calls or []):
                calls += 1
                yield ToolCallEvent(call=ToolCallPart(
                    name=call.function.name, arguments=dict(call.function.arguments),
                    raw_arguments=raw.get(index)))
            if chunk.done:
                yield UsageEvent(usage=Usage(input_tokens=chunk.prompt_eval_count or 0,
                                             output_tokens=chunk.eval_count or 0))
                yield StopEvent(reason=stop_reason(chunk.done_reason, calls > 0),
                                model=chunk.model or request.model)
                return
        raise StreamCutError(_("Ollama ended the answer stream before it finished"),
                             _("try again"), provider="ollama")
