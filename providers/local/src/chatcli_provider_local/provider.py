"""The offline provider: a GGUF model run by llama.cpp (in a process of its own: see runtime).

``handle_chat_completions`` blocks while it generates and calls back once per chunk, so it runs on
a worker thread that hands chunks over a queue; :meth:`LocalProvider.stream` yields from that
queue. Closing the stream (or Ctrl+C in the consumer) makes the next callback return True, which
tells llama.cpp to stop generating.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chatcli import (
    BadRequestError,
    ChatRequest,
    ConfigError,
    ProviderConfig,
    ProviderError,
    ServerError,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    Usage,
    UsageEvent,
    translation,
)
from chatcli_provider_kit import MessageCache

from chatcli_provider_local.convert import DEFAULT_MAX_TOKENS, ChunkMapper, request_body
from chatcli_provider_local.gguf import (
    DEFAULT_MODEL,
    GGUFInfo,
    bundled_model_path,
    read_gguf_info,
    resolve_model_path,
)
from chatcli_provider_local.repetition import RepetitionGuard
from chatcli_provider_local.runtime import (
    DEFAULT_CONTEXT,
    DEFAULT_THREADS,
    LoadedModel,
    RuntimeOptions,
    default_batch_threads,
    load_model,
    track_generation,
)

__all__ = ["LocalProvider"]

_, ngettext = translation(__name__)

_DONE = object()
#: Seconds to wait for the worker thread after the consumer stops reading.
_JOIN_SECONDS = 5.0


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class LocalProvider:
    """Streams answers from a local GGUF model (SmolLM2-135M unless configured otherwise).

    Options (``[providers.local]`` in the config): ``model_path`` (a .gguf file),
    ``context_size`` (tokens; 4096, or the model's own if smaller), ``threads`` (generating;
    default 1), ``batch_threads`` (reading the prompt; default every core, at most 4),
    ``max_tokens`` (the answer's length when the request sets none; default 512),
    ``stop_on_repetition`` (stop an answer that loops; default true), ``chat_template`` (a
    llama.cpp built-in name or a jinja template instead of the model's own). Tool definitions go to
    the model natively only when its chat template renders them (and ``tool_calls = "native"``
    sends them); otherwise earlier calls and results are written into the text.
    """

    def __init__(self, config: ProviderConfig) -> None:
        options = dict(config.options)
        self.path: Path = resolve_model_path(config.model, options)
        self.info: GGUFInfo = read_gguf_info(self.path)
        trained = self.info.context_length or DEFAULT_CONTEXT
        self.runtime = RuntimeOptions(
            context_size=_int_option(
                options, "context_size", min(DEFAULT_CONTEXT, trained), 128, 1 << 20
            ),
            threads=_int_option(options, "threads", DEFAULT_THREADS, 1, 256),
            batch_threads=_int_option(options, "batch_threads", default_batch_threads(), 1, 256),
            chat_template=str(options.get("chat_template") or ""),
        )
        self.max_tokens = _int_option(options, "max_tokens", DEFAULT_MAX_TOKENS, 1, 1 << 20)
        self.stop_on_repetition = _bool_option(options, "stop_on_repetition", True)
        self.tools: bool = self.info.template_supports_tools
        self.model_name = self._display_name(config.model)
        self._loaded: LoadedModel | None = None
        self._messages = MessageCache()

    def _display_name(self, model: str | None) -> str:
        bundled = bundled_model_path()
        if bundled is not None and self.path == bundled.resolve():
            return DEFAULT_MODEL
        return self.path.stem if not model or model == DEFAULT_MODEL else model

    def load(self) -> LoadedModel:
        """Load the model now (it is otherwise loaded by the first :meth:`stream`)."""
        loaded = self._loaded
        if loaded is None or (loaded.server is not None and not loaded.server.alive):
            self._loaded = loaded = load_model(self.path, self.runtime)
        return loaded

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Generate the answer to ``request``, yielding text per token, usage and the stop."""
        server = self.load().server
        if server is None:
            raise ServerError(_("the local model was already unloaded"), provider="local")
        body = request_body(request, tools=self.tools, cache=self._messages,
                            max_tokens=self.max_tokens)
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.put(chunk)
            return stop.is_set()  # True tells llama.cpp to stop generating

        def work() -> None:
            try:
                server.handle_chat_completions(body, on_chunk)
            except BaseException as err:  # handed to the consumer thread
                chunks.put(_Failure(err))
            finally:
                chunks.put(_DONE)

        worker = threading.Thread(target=work, name="chatcli-local-generate", daemon=True)
        mapper = ChunkMapper(self.model_name)
        guard = RepetitionGuard() if self.stop_on_repetition else None
        looping, pieces = False, 0
        with track_generation(worker, stop):
            worker.start()
            try:
                while True:
                    item = chunks.get()
                    if item is _DONE:
                        break
                    if isinstance(item, _Failure):
                        raise _map_failure(item.error)
                    for event in mapper.feed(item):
                        if looping:  # what llama.cpp sends before it stops is dropped
                            continue
                        if isinstance(event, TextDelta):
                            pieces += 1
                            if guard is not None and guard.feed(event.text):
                                looping = True
                                stop.set()  # llama.cpp stops at the next token
                        yield event
                if looping:  # llama.cpp sends no usage after a stop: its timings say it
                    usage = mapper.usage or mapper.usage_so_far() or Usage(output_tokens=pieces)
                    yield UsageEvent(usage=usage)
                    yield StopEvent(reason=StopReason.REPETITION, model=self.model_name)
                else:
                    yield from mapper.finish()
            finally:
                stop.set()
                worker.join(_JOIN_SECONDS)


def _map_failure(error: BaseException) -> ProviderError:
    first = (str(error).splitlines() or [""])[0][:300]
    if isinstance(error, (ValueError, TypeError)):
        return BadRequestError(_("local model rejected the request: {reason}").format(
            reason=first), provider="local")
    return ServerError(_("local model failed: {kind}: {reason}").format(
        kind=type(error).__name__, reason=first), provider="local")


def _bool_option(options: dict[str, Any], key: str, default: bool) -> bool:
    value = options.get(key, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ConfigError(
        _("providers.local.{key} must be true or false, not {value!r}").format(
            key=key, value=value),
        _("fix it with `chatcli config set providers.local.{key} {default}`").format(
            key=key, default=str(default).lower()),
    )


def _int_option(options: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = options.get(key, default)
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = low - 1
    if isinstance(value, bool) or not low <= number <= high:
        raise ConfigError(
            _("providers.local.{key} must be a whole number from {low} to {high}, not "
              "{value!r}").format(key=key, low=low, high=high, value=value),
            _("fix it with `chatcli config set providers.local.{key} {default}`").format(
                key=key, default=default),
        )
    return number
