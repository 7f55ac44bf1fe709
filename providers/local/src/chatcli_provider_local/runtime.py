"""The llama.cpp engine: loaded once per model file, in a process of its own, stopped at exit.

xllamacpp's ``Server`` loads the model and runs llama.cpp's server loop on a thread of its own;
``handle_chat_completions`` then answers OpenAI-style chat requests, calling back once per streamed
chunk. Both run in a child process (:mod:`chatcli_provider_local.model_process`), because the load
holds the GIL for as long as it takes: in chatcli's own process it froze the chat's spinner and
its Ctrl+C. (The server also listens on a random localhost port; nothing here uses it.)

llama.cpp logs to stderr from C code. ``verbosity = 0`` keeps even its error lines away from the
user's terminal; load failures are explained by :mod:`chatcli_provider_local.gguf` instead.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import ProviderError, translation

from chatcli_provider_local.model_process import TEMPLATE_FAILURE, ModelProcess

__all__ = [
    "DEFAULT_CONTEXT",
    "DEFAULT_THREADS",
    "LoadedModel",
    "RuntimeOptions",
    "default_batch_threads",
    "load_model",
    "track_generation",
    "unload_all",
]

_, ngettext = translation(__name__)

# Busy-waiting OpenMP threads fight each other on small machines (7 instead of 78 tokens/s with
# 2 threads on 2 cores). Passive waiting must be chosen before llama.cpp's OpenMP runtime starts,
# that is before ``xllamacpp`` is imported; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

#: Context window used unless ``providers.local.context_size`` says otherwise (the KV cache of
#: SmolLM2-135M takes about 90 MB at this size).
DEFAULT_CONTEXT = 4096


#: CPU threads that generate tokens: one token at a time is a small matrix-vector product, and
#: on a 2-core machine a second thread costs more in synchronisation than it computes
#: (bench/local_model.py: 76 tokens/s with 1 thread, 47 with 2).
DEFAULT_THREADS = 1


def default_batch_threads() -> int:
    """CPU threads that read the prompt: every core, at most 4 (the prompt is one large batch, and
    two threads read it in 0.55 of the time one needs on a 2-core machine)."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class RuntimeOptions:
    """How llama.cpp runs: context size, the threads that generate (``threads``) and those that
    read the prompt (``batch_threads``)."""

    context_size: int = DEFAULT_CONTEXT
    threads: int = DEFAULT_THREADS
    batch_threads: int = 1
    #: a jinja template or a llama.cpp built-in name to use instead of the model's own (empty)
    chat_template: str = ""


@dataclass
class LoadedModel:
    """A model file loaded into a llama.cpp server (``server``: a :class:`ModelProcess`)."""

    path: Path
    server: Any
    options: RuntimeOptions
    load_seconds: float


_models: dict[tuple[Path, RuntimeOptions], LoadedModel] = {}
_generations: dict[threading.Thread, threading.Event] = {}
_lock = threading.Lock()
#: Seconds to wait at exit for a generation to notice its stop signal.
_EXIT_JOIN_SECONDS = 5.0


def load_model(path: Path, options: RuntimeOptions) -> LoadedModel:
    """The loaded model for ``path`` with ``options``, loading it on first use (thread-safe).

    The calling thread waits for the child process without holding the GIL. A load nobody waits
    for any more (Ctrl+C) goes on in the child, and the next request uses the model.
    """
    key = (path, options)
    with _lock:
        loaded = _models.get(key)
        if loaded is not None and loaded.server is not None and not loaded.server.alive:
            loaded = None  # the model's process died (killed, out of memory): start another
        if loaded is None:
            process = ModelProcess(path, options.context_size, options.threads,
                                   options.batch_threads, options.chat_template)
            loaded = _models[key] = LoadedModel(path, process, options, 0.0)
    server = loaded.server
    try:
        if server is not None:
            loaded.load_seconds = server.ready()
    except RuntimeError as err:
        with _lock:
            if _models.get(key) is loaded:
                del _models[key]  # the next request tries again
        if str(err) == TEMPLATE_FAILURE:
            raise ProviderError(
                _("llama.cpp cannot run the model {path}: its chat template "
                  "(tokenizer.chat_template) does not run in llama.cpp's jinja engine").format(
                      path=path),
                _("set providers.local.chat_template to a built-in template (chatml, llama3, "
                  "gemma, mistral-v7…) or to a jinja template of your own"),
                provider="local",
            ) from None
        raise ProviderError(
            _("llama.cpp could not load {path} ({reason})").format(path=path, reason=err),
            _("the file may be damaged or use an architecture this llama.cpp build lacks; set "
              "providers.local.model_path to another .gguf file"),
            provider="local",
        ) from None
    return loaded


@contextmanager
def track_generation(worker: threading.Thread, stop: threading.Event) -> Iterator[None]:
    """Register a generating ``worker`` thread so :func:`unload_all` can stop it first."""
    with _lock:
        _generations[worker] = stop
    try:
        yield
    finally:
        with _lock:
            _generations.pop(worker, None)


@atexit.register
def unload_all() -> None:
    """Stop running generations and every loaded model's process (also run at exit).

    A generation still running at exit (a stream that was never closed) is told to stop and
    waited for, so its thread is not left reading from a process that is going away.
    """
    with _lock:
        generations = list(_generations.items())
        models = list(_models.values())
        _models.clear()
    for _worker, stop in generations:
        stop.set()
    for worker, _stop in generations:
        worker.join(_EXIT_JOIN_SECONDS)
    for loaded in models:
        server, loaded.server = loaded.server, None
        if server is not None:
            server.close()  # the child stops llama.cpp's threads and exits
