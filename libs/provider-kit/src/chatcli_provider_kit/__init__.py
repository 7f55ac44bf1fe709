"""chatcli-provider-kit: what provider plugins share, as a library (not a plugin).

- the OpenAI chat-completions wire format (:func:`chat_messages`, :func:`tool_definitions`,
  :class:`ChunkAssembler`), spoken by OpenAI, llama.cpp, vLLM, LM Studio and most hosted services;
- :class:`MessageCache`, each message's wire form kept between requests (a long history is not
  converted again on every call);
- :func:`status_error`, one table from an HTTP error status to chatcli's error taxonomy;
- :class:`CancellableStream`, a stream with ``cancel()`` (stop a subprocess or a socket now);
- :func:`shared_tls_context`, one TLS context per process for every SDK client;
- ``Retry-After`` parsing, image loading, tool-argument parsing, one-line error text;
- :func:`remote_models`, what a provider's service serves now (``chatcli models --remote``);
- :mod:`chatcli_provider_kit.textcalls`, the text tool-call protocol for models without native
  tool calling (imported on its own: ``from chatcli_provider_kit.textcalls import …``).

Nothing here imports an SDK or an HTTP library. The public API is ``__all__``; the modules behind
it are private.
"""

from __future__ import annotations

from chatcli_provider_kit._cache import MessageCache
from chatcli_provider_kit._models import ModelLister, remote_models
from chatcli_provider_kit._openai_format import (
    FINISH_REASONS,
    ChunkAssembler,
    ImageMode,
    chat_messages,
    stop_reason,
    tool_call,
    tool_definitions,
    usage_from,
)
from chatcli_provider_kit._stream import CancellableStream
from chatcli_provider_kit._tls import shared_tls_context
from chatcli_provider_kit._util import (
    MAX_ARGUMENT_DEPTH,
    MAX_IMAGE_BYTES,
    check_base_url,
    image_data_url,
    is_url,
    looks_like_context_overflow,
    nested_too_deep,
    one_line,
    parse_retry_after,
    parse_tool_arguments,
    read_image,
    retry_after_from_headers,
    status_error,
)

__version__ = "1.0.0"

__all__ = [
    "FINISH_REASONS",
    "MAX_ARGUMENT_DEPTH",
    "MAX_IMAGE_BYTES",
    "CancellableStream",
    "ChunkAssembler",
    "ImageMode",
    "MessageCache",
    "ModelLister",
    "__version__",
    "chat_messages",
    "check_base_url",
    "image_data_url",
    "is_url",
    "looks_like_context_overflow",
    "nested_too_deep",
    "one_line",
    "parse_retry_after",
    "parse_tool_arguments",
    "read_image",
    "remote_models",
    "retry_after_from_headers",
    "shared_tls_context",
    "status_error",
    "stop_reason",
    "tool_call",
    "tool_definitions",
    "usage_from",
]
