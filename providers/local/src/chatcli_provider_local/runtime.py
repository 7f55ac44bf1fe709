"""The llama.cpp engine inside this process: loaded once per model file, stopped at exit.

xllamacpp's ``Server`` loads the model and runs llama.cpp's server loop on a thread of its own;
``handle_chat_completions`` then answers OpenAI-style chat requests in-process, calling back once
per streamed chunk, with no HTTP in between. (The server also listens on a random localhost port;
nothing here uses it.)

llama.cpp logs to stderr from C code. ``verbosity = 0`` keeps even its error lines away from the
user's terminal; load failures are explained by :mod:`chatcli_provider_local.gguf` instead.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import ProviderError

__all__ = [
    "DEFAULT_CONTEXT",
    "LoadedModel",
    "RuntimeOptions",
    "load_model",
    "track_generation",
    "unload_all",
]

# Busy-waiting OpenMP threads fight each other on small machines (7 instead of 78 tokens/s with
# 2 threads on 2 cores). Passive waiting must be chosen before llama.cpp's OpenMP runtime starts,
# that is before ``xllamacpp`` is imported; a value the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

#: Context window used unless ``providers.local.context_size`` says otherwise (the KV cache of
#: SmolLM2-135M takes about 90 MB at this size).
DEFAULT_CONTEXT = 4096


@dataclass(frozen=True)
class RuntimeOptions:
    """How llama.cpp runs: context size and CPU threads (1 is fastest on a 2-core machine)."""

    context_size: int = DEFAULT_CONTEXT
    threads: int = 1


@dataclass
class LoadedModel:
    """A model file loaded into an in-process llama.cpp server."""

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
    """The loaded model for ``path`` with ``options``, loading it on first use (thread-safe)."""
    key = (path, options)
    with _lock:
        loaded = _models.get(key)
        if loaded is None:
            loaded = _models[key] = _load(path, options)
        return loaded


def _load(path: Path, options: RuntimeOptions) -> LoadedModel:
    import xllamacpp  # heavy (a 100 MB extension): only when the model is first needed

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = options.context_size
    params.n_parallel = 1
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.verbosity = 0  # nothing from llama.cpp reaches stderr, not even its errors
    params.warmup = False  # an empty warm-up run costs load time and gains nothing here
    params.port = 0  # the unused HTTP listener takes a free port instead of 8080
    params.hostnames = ["127.0.0.1"]
    started = time.perf_counter()
    handler = _sigint_handler()
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as err:
        raise ProviderError(
            f"llama.cpp could not load {path} ({err})",
            "the file may be damaged or use an architecture this llama.cpp build lacks; set "
            "providers.local.model_path to another .gguf file",
            provider="local",
        ) from None
    finally:
        _restore_sigint(handler)
    return LoadedModel(path, server, options, time.perf_counter() - started)


def _sigint_handler() -> Any:
    if threading.current_thread() is threading.main_thread():
        return signal.getsignal(signal.SIGINT)
    return None


def _restore_sigint(handler: Any) -> None:
    # llama.cpp's server may install its own SIGINT handler; Ctrl+C must stay Python's.
    if handler is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


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
    """Stop running generations and every loaded model's server loop (also run at exit).

    A generation still running when the interpreter shuts down (a stream that was never closed)
    would be torn down inside llama.cpp's C++ frames and abort the process, so each one is told
    to stop and waited for before the servers go.
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
        loaded.server = None  # the C++ destructor stops the loop thread and frees the model
