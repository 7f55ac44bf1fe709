"""A scripted local HTTP server (standard library only) that the wire servers build on.

It runs :class:`http.server.ThreadingHTTPServer` on ``127.0.0.1`` and a free port in a daemon
thread, speaks HTTP/1.1 (JSON answers with ``Content-Length``, streams with chunked transfer
encoding so a dropped connection is visible to the client as an incomplete body), records every
request and answers chat requests from a queue of :class:`Reply` / :class:`Fault` items.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Literal, NamedTuple, Self

from chatcli_testing.script import DEFAULT_REPLY_TEXT, Fault, Reply

__all__ = ["Exchange", "RecordedRequest", "ScriptedServer", "WireEvent"]

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError)


@dataclass
class RecordedRequest:
    """One request the server received: method, path (with query), lower-case headers, JSON body."""

    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    body: bytes = b""


class WireEvent(NamedTuple):
    """One unit written to a stream: an SSE event or an NDJSON line.

    ``kind`` is ``"pre"`` (protocol preamble), ``"content"`` (a text piece or argument fragment;
    these are what stream faults count) or ``"post"`` (closing events).
    """

    data: bytes
    kind: Literal["pre", "content", "post"]


class Exchange:
    """The response side of one request, with helpers that never raise if the client has gone."""

    def __init__(self, handler: BaseHTTPRequestHandler, stopping: threading.Event) -> None:
        self.handler = handler
        self.stopping = stopping
        self.streaming = False

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """Send a complete JSON answer."""
        self.send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def send_bytes(self, status: int, body: bytes, content_type: str,
                   headers: dict[str, str] | None = None) -> None:
        """Send a complete answer with ``Content-Length``."""
        with contextlib.suppress(*_CLIENT_GONE):
            h = self.handler
            h.send_response(status)
            h.send_header("Content-Type", content_type)
            h.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                h.send_header(name, value)
            h.end_headers()
            h.wfile.write(body)
            h.wfile.flush()

    def start_stream(self, content_type: str, headers: dict[str, str] | None = None) -> None:
        """Send status 200 and headers for a chunked stream."""
        with contextlib.suppress(*_CLIENT_GONE):
            h = self.handler
            h.send_response(200)
            h.send_header("Content-Type", content_type)
            h.send_header("Cache-Control", "no-cache")
            h.send_header("Transfer-Encoding", "chunked")
            for name, value in (headers or {}).items():
                h.send_header(name, value)
            h.end_headers()
            h.wfile.flush()
            self.streaming = True

    def write(self, data: bytes) -> bool:
        """Write one HTTP chunk; False if the client has gone."""
        if not data:
            return True
        try:
            self.handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.handler.wfile.flush()
        except _CLIENT_GONE:
            self.handler.close_connection = True
            return False
        return True

    def end_stream(self) -> None:
        """Write the terminating chunk: the body is complete."""
        with contextlib.suppress(*_CLIENT_GONE):
            self.handler.wfile.write(b"0\r\n\r\n")
            self.handler.wfile.flush()

    def abort(self) -> None:
        """Drop the connection without finishing the body (a cut stream)."""
        self.handler.close_connection = True
        with contextlib.suppress(*_CLIENT_GONE):
            self.handler.wfile.flush()
            self.handler.connection.shutdown(socket.SHUT_RDWR)

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if the server is stopping (so streams end at once)."""
        return self.stopping.wait(seconds) if seconds > 0 else self.stopping.is_set()


Route = Callable[[Exchange, RecordedRequest], None]


class _HTTPServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` that never blocks in ``accept``: its listening socket is
    non-blocking, so a connection the poll saw that is gone by the time it is accepted makes one
    empty turn of the loop instead of a server stuck until the next client (a test's ``with
    server:`` then waited forever in ``shutdown``); and a backlog for many clients at once
    (parallel workers, a crowd of streams) instead of 5."""

    daemon_threads = True
    request_queue_size = 128

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.setblocking(False)

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, address = self.socket.accept()
        conn.setblocking(True)
        return conn, address


class ScriptedServer:
    """Base of the wire servers: lifecycle, request recording, the script queue, routing, faults.

    Subclasses set ``url_suffix`` and ``routes`` and implement the provider-specific encoders
    (:meth:`error_body`, :meth:`stream_events`, :meth:`full_response`, …).
    """

    url_suffix: ClassVar[str] = ""
    stream_content_type: ClassVar[str] = "text/event-stream"
    default_model: ClassVar[str] = "test-model"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply | Fault] = deque()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests: list[RecordedRequest] = []
        self.models: list[str] = [self.default_model]

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        """Start serving in a daemon thread (idempotent); returns self."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((self._host, self._port), _make_handler(self))
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}-{httpd.server_address[1]}", daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake stalled streams and close open connections."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port the server listens on (after :meth:`start`)."""
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started; call .start() first")
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` without the provider's path prefix."""
        return f"http://{self._host}:{self.port}"

    @property
    def url(self) -> str:
        """The base URL to give the provider's SDK."""
        return self.root_url + self.url_suffix

    # ---------------------------------------------------------------- script

    def script(self, *items: Reply | Fault | str) -> ScriptedServer:
        """Queue answers; each chat request consumes one (a ``str`` means ``Reply(text=…)``)."""
        with self._lock:
            for item in items:
                if isinstance(item, str):
                    item = Reply(text=item)
                if not isinstance(item, (Reply, Fault)):
                    raise TypeError(f"script() takes Reply, Fault or str, not {type(item)!r}")
                self._queue.append(item)
        return self

    def reset(self) -> None:
        """Forget the queued script and the recorded requests."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    @property
    def pending(self) -> int:
        """How many scripted items are still queued."""
        with self._lock:
            return len(self._queue)

    def next_item(self) -> Reply | Fault:
        """The next scripted item, or ``Reply(text="ok")`` when the queue is empty."""
        with self._lock:
            return self._queue.popleft() if self._queue else Reply(text=DEFAULT_REPLY_TEXT)

    # ---------------------------------------------------------------- routing

    def routes(self) -> dict[tuple[str, str], Route]:
        """``{(METHOD, path): handler}``; subclasses extend it."""
        return {}

    def dispatch(self, exchange: Exchange, request: RecordedRequest) -> None:
        """Answer ``request`` through its route, or with the provider's 404 error."""
        path = request.path.split("?", 1)[0].rstrip("/") or "/"
        route = self.routes().get((request.method, path))
        if route is None:
            exchange.send_json(
                404, self.error_body(404, f"Unknown path {request.method} {path}")
            )
            return
        route(exchange, request)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    # ---------------------------------------------------------------- chat answering

    def answer_chat(self, exchange: Exchange, request: RecordedRequest, stream: bool) -> None:
        """Answer one chat request from the script: an error status, a stream or a full reply."""
        item = self.next_item()
        fault = item if isinstance(item, Fault) else None
        if fault is not None and fault.status is not None:
            self.send_error_status(exchange, fault)
            return
        reply = fault.partial_reply() if fault is not None else item
        assert isinstance(reply, Reply)
        body = request.json if isinstance(request.json, dict) else {}
        model = reply.model or body.get("model") or self.default_model
        if stream:
            self.run_stream(exchange, self.stream_events(reply, model, body), reply, fault)
        else:
            self.send_full(exchange, reply, model, body, fault)

    def send_error_status(self, exchange: Exchange, fault: Fault) -> None:
        """An HTTP error in the provider's JSON shape, with ``Retry-After`` if scripted."""
        status = fault.status or 500
        headers = self.error_headers(status)
        if fault.retry_after is not None:
            headers["Retry-After"] = _seconds(fault.retry_after)
        exchange.send_json(status, self.error_body(status, fault.message), headers)

    def run_stream(self, exchange: Exchange, events: Iterable[WireEvent], reply: Reply,
                   fault: Fault | None) -> None:
        """Write ``events`` as a chunked stream, applying the stream fault, if any."""
        exchange.start_stream(self.stream_content_type, self.stream_headers())
        if not exchange.streaming:
            return
        if fault is not None and fault.stall and self._stall(exchange, fault):
            exchange.abort()
            return
        sent = 0
        fired = False
        for event in events:
            if not fired and fault is not None and event.kind != "pre":
                trigger = _first_trigger(fault)
                if trigger is not None and (event.kind == "post" or sent >= trigger[1]):
                    fired = True
                    if self._fire(exchange, trigger[0], fault):
                        return
            if event.kind == "content":
                wait = reply.wait_before(sent)
                if wait and exchange.wait(wait):
                    exchange.abort()
                    return
                sent += 1
            if not exchange.write(event.data):
                return
        exchange.end_stream()

    def _stall(self, exchange: Exchange, fault: Fault) -> bool:
        """Wait ``fault.stall`` seconds (dripping keep-alives); True when the server stops."""
        keepalive = self.keepalive_event() if fault.keepalive else None
        if keepalive is None:
            return exchange.wait(fault.stall or 0)
        deadline = time.monotonic() + (fault.stall or 0)
        while (left := deadline - time.monotonic()) > 0:
            if exchange.wait(min(left, fault.keepalive or left)):
                return True
            if not exchange.write(keepalive):
                return True
        return False

    def keepalive_event(self) -> bytes | None:
        """What the server writes to keep a silent stream open (an SSE comment)."""
        return b": keep-alive\n\n" if "event-stream" in self.stream_content_type else None

    def _fire(self, exchange: Exchange, what: str, fault: Fault) -> bool:
        """Apply a stream fault; True when the stream is over."""
        if what == "cut":
            exchange.abort()
        elif what == "malformed":
            exchange.write(self.malformed_event())
            exchange.end_stream()
        else:
            exchange.write(self.stream_error_event(fault.message))
            exchange.end_stream()
        return True

    def send_full(self, exchange: Exchange, reply: Reply, model: str, body: dict[str, Any],
                  fault: Fault | None) -> None:
        """A non-streamed answer; stream faults map to a stalled, cut or garbage body."""
        payload = json.dumps(self.full_response(reply, model, body)).encode()
        if fault is not None and fault.stall and exchange.wait(fault.stall):
            exchange.abort()
            return
        if fault is not None and fault.cut_after is not None:
            with contextlib.suppress(*_CLIENT_GONE):
                h = exchange.handler
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(len(payload)))
                h.end_headers()
                h.wfile.write(payload[: len(payload) // 2])
            exchange.abort()
        elif fault is not None and fault.malformed_after is not None:
            exchange.send_bytes(200, b'{"this is": not json', "application/json")
        elif fault is not None and fault.error_event_after is not None:
            exchange.send_json(500, self.error_body(500, fault.message), self.error_headers(500))
        else:
            exchange.send_bytes(200, payload, "application/json", self.stream_headers())

    # ---------------------------------------------------------------- provider encoders

    def error_body(self, status: int, message: str) -> Any:
        """The provider's error JSON for an HTTP ``status``."""
        return {"error": message}

    def error_headers(self, status: int) -> dict[str, str]:
        """Extra headers sent with an error answer (request ids…)."""
        return {}

    def stream_headers(self) -> dict[str, str]:
        """Extra headers sent with a successful answer."""
        return {}

    def stream_events(self, reply: Reply, model: str, body: dict[str, Any]) -> list[WireEvent]:
        """The wire events of a streamed ``reply``."""
        raise NotImplementedError

    def full_response(self, reply: Reply, model: str, body: dict[str, Any]) -> Any:
        """The JSON of a non-streamed ``reply``."""
        raise NotImplementedError

    def malformed_event(self) -> bytes:
        """A garbage chunk in the provider's stream framing."""
        raise NotImplementedError

    def stream_error_event(self, message: str) -> bytes:
        """The provider's in-stream error event."""
        raise NotImplementedError


def _first_trigger(fault: Fault) -> tuple[str, int] | None:
    for what, after in (("cut", fault.cut_after), ("malformed", fault.malformed_after),
                        ("error", fault.error_event_after)):
        if after is not None:
            return what, max(0, after)
    return None


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if "chunked" in handler.headers.get("Transfer-Encoding", "").lower():
        parts = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                break
            parts.append(handler.rfile.read(size))
            handler.rfile.readline()
        return b"".join(parts)
    length = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(length) if length else b""


def _make_handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "chatcli-testing/1.0"

        def setup(self) -> None:
            super().setup()
            # Stream events are small writes: without this, Nagle's algorithm and delayed ACKs
            # hold each one back by up to 40 ms.
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            server.track(self.connection, True)

        def finish(self) -> None:
            with contextlib.suppress(*_CLIENT_GONE):
                super().finish()
            server.track(self.connection, False)

        def handle(self) -> None:
            # A client dropping a kept-alive connection is normal, not an error to print.
            with contextlib.suppress(*_CLIENT_GONE):
                super().handle()

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _handle(self) -> None:
            try:
                raw = _read_body(self)
            except (ValueError, *_CLIENT_GONE):
                self.close_connection = True
                return
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = None
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                json=parsed,
                body=raw,
            )
            server.record(request)
            exchange = Exchange(self, server._stopping)
            if raw and parsed is None:
                exchange.send_json(400, server.error_body(400, "The request body is not JSON"))
                return
            server.dispatch(exchange, request)

        do_GET = do_POST = do_DELETE = do_PUT = _handle

    return Handler
