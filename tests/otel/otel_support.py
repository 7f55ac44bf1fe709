"""Helpers of the OpenTelemetry tests: a real OTLP/HTTP receiver (what a collector's ``otlphttp``
receiver does: ``POST /v1/traces`` and ``/v1/metrics`` with protobuf bodies, decoded here with
``opentelemetry-proto``), collectors that are down or never answer, and chatcli as a real
process against the OpenAI wire server.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from process_support import CHATCLI, process_env

__all__ = ["CHATCLI", "Receiver", "Span", "dead_endpoint", "silent_collector", "value_of"]


def value_of(value: AnyValue) -> Any:
    """An OTLP attribute value as Python (arrays as lists)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, kind) if kind else None


@dataclass
class Span:
    """One received span, its ids as hex."""

    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    status: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    start: int
    end: int
    trace_state: str = ""

    @property
    def seconds(self) -> float:
        return (self.end - self.start) / 1e9


@dataclass
class Receiver:
    """An OTLP/HTTP endpoint in a thread: what it was sent, decoded, and the headers."""

    url: str = ""
    traces: list[ExportTraceServiceRequest] = field(default_factory=list)
    metrics: list[ExportMetricsServiceRequest] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def spans(self) -> list[Span]:
        """Every span received, in the order received."""
        found = []
        with self.lock:
            requests = list(self.traces)
        for request in requests:
            for resource_spans in request.resource_spans:
                resource = {kv.key: value_of(kv.value)
                            for kv in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        found.append(Span(
                            span.name, span.trace_id.hex(), span.span_id.hex(),
                            span.parent_span_id.hex(), span.kind, span.status.code,
                            {kv.key: value_of(kv.value) for kv in span.attributes},
                            resource, span.start_time_unix_nano, span.end_time_unix_nano,
                            span.trace_state))
        return found

    def data_points(self, name: str) -> list[tuple[dict[str, Any], Any]]:
        """The points of metric ``name`` across every request: (attributes, point)."""
        points = []
        with self.lock:
            requests = list(self.metrics)
        for request in requests:
            for resource_metrics in request.resource_metrics:
                for scope in resource_metrics.scope_metrics:
                    for metric in scope.metrics:
                        if metric.name != name:
                            continue
                        kind = metric.WhichOneof("data")
                        for point in getattr(metric, kind).data_points:
                            points.append(({kv.key: value_of(kv.value)
                                            for kv in point.attributes}, point))
        return points

    def metric_names(self) -> set[str]:
        with self.lock:
            requests = list(self.metrics)
        return {metric.name for request in requests for rm in request.resource_metrics
                for scope in rm.scope_metrics for metric in scope.metrics}


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with receiver.lock:
                receiver.paths.append(self.path)
                receiver.headers.append({k.lower(): v for k, v in self.headers.items()})
            answer: Any
            if self.path == "/v1/traces":
                request: Any = ExportTraceServiceRequest.FromString(body)
                answer = ExportTraceServiceResponse()
                with receiver.lock:
                    receiver.traces.append(request)
            elif self.path == "/v1/metrics":
                request = ExportMetricsServiceRequest.FromString(body)
                answer = ExportMetricsServiceResponse()
                with receiver.lock:
                    receiver.metrics.append(request)
            else:
                self.send_response(404)
                self.end_headers()
                return
            payload = answer.SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def receiver() -> Iterator[Receiver]:
    """An OTLP/HTTP receiver on a free local port, stopped and joined at the end."""
    received = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(received))
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    # polled every 50 ms, not the default 500: shutdown() waits for the next poll
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def dead_endpoint() -> str:
    """A local URL where nothing listens (a collector that is down)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def silent_collector() -> Iterator[str]:
    """A local URL that accepts connections and never answers (a collector that hangs)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def chatcli_env(home: Path, server: Any, **extra: str) -> dict[str, str]:
    """The environment of a ``chatcli -p`` run against the OpenAI wire ``server``, with the
    plugins a scripted tool call needs, no ``OTEL_*`` or ``TRACE*`` variable of the test's own,
    and ``extra``."""
    env = {k: v for k, v in process_env(home).items()
           if not k.startswith("OTEL_") and k not in ("TRACEPARENT", "TRACESTATE")}
    env.update(CHATCLI_CACHE_DIR=str(home / "cache"), OPENAI_API_KEY=OPENAI_KEY,
               OPENAI_BASE_URL=server.url, CHATCLI_PLUGINS="openai,coder,cost,print,otel")
    env.update(extra)
    return env


#: The OpenAI key of the runs: a canary that must appear in no span, metric or line.
OPENAI_KEY = "sk-otelcanary-0123456789abcdefABCDEF"
