"""llama.cpp in a process of its own, so that loading a model never freezes chatcli.

``xllamacpp.Server(params)`` loads the model while holding the GIL (its constructor has no
``nogil`` section): for the half second to several seconds a load takes, no other Python thread
of the process runs — not the chat's spinner, not its Ctrl+C key, not the engine noticing the
cancel. In a child process the load runs beside chatcli instead; generation moves with it.

:class:`ModelProcess` (chatcli's side) starts ``python -m chatcli_provider_local.model_process
PATH CONTEXT THREADS BATCH_THREADS [TEMPLATE]`` and answers like
``xllamacpp.Server.handle_chat_completions``. The two
talk in lines of bytes, a letter first:

- child → chatcli: ``r SECONDS`` loaded, ``f MESSAGE`` could not load (then it exits),
  ``c JSON`` a streamed chunk, ``e`` the end of an answer or ``e JSON`` its failure
  (``{"type": …, "message": …}``);
- chatcli → child: ``r N JSON`` request number N, ``s N`` stop request N. The end of its input
  (chatcli exited or closed it) stops any generation and ends the child.

The child has a session of its own: the terminal's Ctrl+C (SIGINT to the foreground group) never
reaches it; chatcli decides when it stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["TEMPLATE_FAILURE", "ModelProcess", "main"]

#: Seconds a child that was told to end may take before it is killed.
_EXIT_SECONDS = 2.0

#: The load failure the child reports when the model loads with chatml but not with its own
#: chat template (llama.cpp's jinja engine cannot parse it).
TEMPLATE_FAILURE = (
    "its chat template (tokenizer.chat_template) does not run in llama.cpp's jinja engine")


def _(message: str) -> str:
    """``message`` in the user's language; chatcli is imported on chatcli's side only (the child
    never shows a message)."""
    from chatcli import translation

    return translation(__name__)[0](message)


#: Exceptions of the child raised again as themselves (the provider maps them to bad requests).
_SAME_TYPE: dict[str, type[Exception]] = {"ValueError": ValueError, "TypeError": TypeError}


class ModelProcess:
    """A model loaded by llama.cpp in a child process (started here, loading at once)."""

    def __init__(self, path: Path, context_size: int, threads: int, batch_threads: int = 1,
                 chat_template: str = "") -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(path), str(context_size), str(threads),
             str(batch_threads), chat_template],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._lock = threading.Lock()  # one request at a time, and the load read once
        self._loaded: float | None = None
        self._failure: str | None = None
        self._requests = 0

    @property
    def alive(self) -> bool:
        """Whether the child still runs (a crash or a kill ends it)."""
        return self._process.poll() is None

    def ready(self) -> float:
        """Wait until the model is loaded; the seconds the load took.

        Raises ``RuntimeError`` with llama.cpp's reason when it could not load (every call).
        """
        with self._lock:
            if self._loaded is None and self._failure is None:
                line = self._output.readline()
                if line.startswith(b"r"):
                    self._loaded = float(line[1:])
                else:
                    self._failure = line[1:].decode(errors="replace").strip() if line else (
                        _("the model's process ended with exit code {code}").format(
                            code=self._process.wait()))
                    self.close()
            if self._failure is not None:
                raise RuntimeError(self._failure)
            assert self._loaded is not None
            return self._loaded

    def handle_chat_completions(self, body: dict[str, Any], callback: Callable[[Any], bool]
                                ) -> None:
        """Stream the answer to ``body``: ``callback(chunk)`` per chunk; True stops it."""
        request = json.dumps(body).encode()
        self.ready()
        with self._lock:
            self._requests += 1
            number = self._requests
            self._send(b"r%d %s\n" % (number, request))
            stopping = False
            while line := self._output.readline():
                if line.startswith(b"c"):
                    if not stopping and callback(_chunk(line[1:])):
                        self._send(b"s%d\n" % number)
                        stopping = True
                elif line.startswith(b"e"):
                    if line.strip() != b"e":
                        failure = json.loads(line[1:])
                        raise _SAME_TYPE.get(failure["type"], RuntimeError)(failure["message"])
                    return
        raise RuntimeError(_("the model's process ended (exit code {code})").format(
            code=self._process.poll()))

    def close(self) -> None:
        """End the child: it stops generating and exits, or is killed (loading, stuck)."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):  # a broken pipe: the child has gone
                self._process.stdin.close()
        try:
            self._process.wait(_EXIT_SECONDS if self._loaded is not None else 0)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    @property
    def _output(self) -> IO[bytes]:
        assert self._process.stdout is not None
        return self._process.stdout

    def _send(self, line: bytes) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
        except (OSError, ValueError):  # a closed pipe, or a closed file
            raise RuntimeError(_("the model's process ended (exit code {code})").format(
                code=self._process.poll())) from None


def _chunk(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data.decode(errors="replace")  # the provider reports an unreadable chunk


# ---------------------------------------------------------------------------- the child


def main(argv: list[str]) -> int:
    """The child: load the model, then answer requests until the input ends."""
    out = sys.stdout.buffer

    def send(kind: bytes, data: bytes = b"") -> None:
        out.write(kind + data.replace(b"\n", b" ") + b"\n")  # JSON: a newline is only spacing
        out.flush()

    started = time.perf_counter()
    path, context, threads = Path(argv[0]), int(argv[1]), int(argv[2])
    batch_threads = int(argv[3]) if len(argv) > 3 else threads
    template = argv[4] if len(argv) > 4 else ""
    try:
        server = _load(path, context, threads, batch_threads, template)
    except Exception as err:  # llama.cpp's RuntimeError, or xllamacpp missing
        reason = str(err) if isinstance(err, RuntimeError) else f"{type(err).__name__}: {err}"
        if isinstance(err, RuntimeError) and _template_fails(path, template):
            reason = TEMPLATE_FAILURE
        send(b"f", reason.encode())
        os._exit(1)  # now: the check's llama.cpp server is up, and its destructor can hang
    send(b"r", f"{time.perf_counter() - started:.3f}".encode())

    requests: queue.Queue[bytes | None] = queue.Queue()
    stopped = [0]  # the highest request number chatcli stopped

    def read() -> None:
        for line in sys.stdin.buffer:
            if line.startswith(b"s"):
                stopped[0] = max(stopped[0], int(line[1:]))
            elif line.startswith(b"r"):
                requests.put(line[1:])
        stopped[0] = sys.maxsize  # chatcli has gone: stop whatever runs
        requests.put(None)

    threading.Thread(target=read, name="chatcli-local-input", daemon=True).start()
    while (request := requests.get()) is not None:
        number, _, body = request.partition(b" ")

        def on_chunk(data: bytes, number: int = int(number)) -> bool:
            send(b"c", data)
            return stopped[0] >= number

        try:
            server.handle_chat_completions(body, on_chunk)
        except Exception as err:
            send(b"e", json.dumps({"type": type(err).__name__, "message": str(err)}).encode())
        else:
            send(b"e")
    del server  # the C++ destructor stops llama.cpp's threads before the interpreter goes
    return 0


def _template_fails(path: Path, template: str) -> bool:
    """Whether the model's own chat template is why it did not load: it loads with chatml.

    The server this loads is left running (the child exits at once after): destroying a second
    llama.cpp server in one process can wait forever on its HTTP thread."""
    if template:
        return False
    try:
        _kept.append(_load(path, 256, 1, 1, "chatml"))
    except Exception:
        return False
    return True


_kept: list[Any] = []


def _load(path: Path, context_size: int, threads: int, batch_threads: int,
          chat_template: str = "") -> Any:
    import xllamacpp  # a 100 MB extension: in the child only

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = context_size
    params.n_parallel = 1
    params.cpuparams.n_threads = threads  # generation: one token at a time
    params.cpuparams_batch.n_threads = batch_threads  # reading the prompt: one large batch
    # The model's own chat template (GGUF ``tokenizer.chat_template``), run by llama.cpp's jinja
    # engine, rather than the built-in template its name-sniffing would pick (chatml for any
    # template that mentions <|im_start|>); or the template the user set instead.
    params.use_jinja = True
    params.chat_template = chat_template
    params.verbosity = 0  # nothing from llama.cpp reaches stderr, not even its errors
    params.warmup = False  # an empty warm-up run costs load time and gains nothing here
    params.port = 0  # the unused HTTP listener takes a free port instead of 8080
    params.hostnames = ["127.0.0.1"]
    return xllamacpp.Server(params)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (BrokenPipeError, KeyboardInterrupt):  # chatcli has gone
        sys.exit(0)
