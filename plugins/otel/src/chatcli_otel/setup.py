"""The OpenTelemetry side: a tracer and a meter exporting over OTLP/HTTP, the instruments, the
parent context from ``TRACEPARENT``, and a shutdown that never waits longer than it was told.

Imported only when telemetry is on (at the first session that has it), so chatcli without a
collector never loads OpenTelemetry. The providers are this plugin's own, never the global ones
(``trace.set_tracer_provider``): chatcli embedded in a program with its own telemetry leaves it
alone. Nothing here registers an ``atexit`` handler (the SDK's own would flush for 30 s into a
dead collector): :meth:`Telemetry.stop` is called at the end of the last session and
:meth:`Telemetry.wait` before the process exits.

The SDK reports export failures through :mod:`logging`; with nobody listening, Python would print
them (tracebacks included) on stderr. Its loggers are silenced here unless the program set up
handlers for them, and a failure is said once, in one line, by :meth:`Telemetry.wait`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from chatcli import translation
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExportResult, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from chatcli_otel.config import OtelConfig

__all__ = ["Telemetry"]

_, ngettext = translation(__name__)

#: The semantic conventions' bucket boundaries for gen_ai.client.token.usage.
TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                 16777216, 67108864]
#: ... and for durations in seconds (gen_ai.client.operation.duration).
SECONDS_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
                   40.96, 81.92]


def _quiet_sdk_logs() -> None:
    """Keep the SDK's export errors off stderr (unless the program listens to them)."""
    sdk = logging.getLogger("opentelemetry")
    if not sdk.handlers:
        sdk.addHandler(logging.NullHandler())
        sdk.propagate = False


class _Failures:
    """How many exports failed (spans and metric batches), counted by the exporters."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.count += 1


def _last_try(exporter: object) -> None:
    """Let ``exporter``'s next export try once, without the SDK's retries a second apart: at
    the end of a session a collector that refuses the connection is down, and waiting for it
    would only hold chatcli (its HTTP client's retry loop gives up when its shutdown event is
    set; an SDK without that event keeps its retries, within the same bound)."""
    event = getattr(getattr(exporter, "_client", None), "_shutdown_event", None)
    if isinstance(event, threading.Event):
        event.set()


class _SpanExporter(OTLPSpanExporter):
    """The OTLP/HTTP span exporter, counting failed exports."""

    def __init__(self, failures: _Failures, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._failures = failures

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = super().export(spans)
        if result is not SpanExportResult.SUCCESS:
            self._failures.add()
        return result


class _MetricExporter(OTLPMetricExporter):
    """The OTLP/HTTP metric exporter, counting failed exports."""

    def __init__(self, failures: _Failures, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._failures = failures

    def export(self, metrics_data: Any, timeout_millis: float | None = 10_000,
               **kwargs: Any) -> MetricExportResult:
        result = super().export(metrics_data, timeout_millis=timeout_millis, **kwargs)
        if result is not MetricExportResult.SUCCESS:
            self._failures.add()
        return result


def _resource(version: str) -> Resource:
    attributes: dict[str, Any] = {"service.version": version}
    if not os.environ.get("OTEL_SERVICE_NAME", "").strip():
        attributes["service.name"] = "chatcli"
    return Resource.create(attributes)


def parent_from_environment() -> Context | None:
    """The context ``TRACEPARENT`` (and ``TRACESTATE``) carry, as a CI job passes its trace to
    the programs it runs; None when there is none or it is malformed."""
    carrier = {name.lower(): os.environ[name] for name in ("TRACEPARENT", "TRACESTATE")
               if os.environ.get(name)}
    if "traceparent" not in carrier:
        return None
    context = TraceContextTextMapPropagator().extract(carrier)
    span = trace.get_current_span(context)
    return context if span.get_span_context().is_valid else None


class Telemetry:
    """The tracer, the meter and its instruments, for one stretch of sessions.

    :param config: where to export, and how long it may take.
    :param version: chatcli's version (``service.version``).
    """

    def __init__(self, config: OtelConfig, version: str) -> None:
        _quiet_sdk_logs()
        self.config = config
        self.failures = _Failures()
        resource = _resource(version)
        headers = dict(config.headers) or None
        base = config.endpoint
        self._exporters: list[object] = [_SpanExporter(
            self.failures, endpoint=f"{base}/v1/traces" if base else None, headers=headers,
            timeout=config.timeout)]
        self._spans = BatchSpanProcessor(self._exporters[0])  # type: ignore[arg-type]
        self._tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self._tracer_provider.add_span_processor(self._spans)
        self.tracer = self._tracer_provider.get_tracer("chatcli", version)
        #: the parent of every turn that has no other (TRACEPARENT's, else none: a new trace)
        self.root: Context | None = parent_from_environment()
        self._meter_provider: MeterProvider | None = None
        if config.metrics:
            exporter = _MetricExporter(
                self.failures, endpoint=f"{base}/v1/metrics" if base else None,
                headers=headers, timeout=config.timeout)
            self._exporters.append(exporter)
            reader = PeriodicExportingMetricReader(exporter)
            self._meter_provider = MeterProvider(resource=resource, metric_readers=[reader],
                                                 shutdown_on_exit=False)
        meter = (self._meter_provider.get_meter("chatcli", version) if self._meter_provider
                 else None)
        self.meter = meter
        self.instruments = _Instruments(meter) if meter is not None else None
        self._stopping: list[threading.Thread] = []
        self._deadline = 0.0

    def stop(self) -> None:
        """Start sending what is left and stopping, traces and metrics side by side, on daemon
        threads; :meth:`wait` says how it went. Called once; later calls do nothing."""
        if self._stopping:
            return
        timeout_ms = self.config.timeout * 1000
        for exporter in self._exporters:
            _last_try(exporter)
        stops = [self._stop_traces]
        if self._meter_provider is not None:
            meter_provider = self._meter_provider
            stops.append(lambda: meter_provider.shutdown(timeout_millis=timeout_ms))
        self._stopping = [threading.Thread(target=self._guarded, args=(stop,), daemon=True,
                                           name="chatcli-otel-shutdown") for stop in stops]
        for worker in self._stopping:
            worker.start()
        self._deadline = time.monotonic() + self.config.timeout + 0.5

    def wait(self) -> str | None:
        """Wait for :meth:`stop` to finish, until ``config.timeout`` seconds after it started
        (an export still hanging then is given up: its thread is a daemon). Returns one line
        for the person when telemetry was lost, else None."""
        self.stop()
        for worker in self._stopping:
            worker.join(max(0.0, self._deadline - time.monotonic()))
        if any(worker.is_alive() for worker in self._stopping) or self.failures.count:
            return _("otel: the collector did not take this run's telemetry (unreachable or "
                     "refused); check [otel] endpoint or OTEL_EXPORTER_OTLP_ENDPOINT")
        return None

    def _stop_traces(self) -> None:
        # the exporter's own timeout (config.timeout) bounds the last export
        self._spans.shutdown()  # type: ignore[no-untyped-call]
        self._tracer_provider.shutdown()

    def _guarded(self, stop: Any) -> None:
        try:
            stop()
        except Exception:  # the collector's trouble is never chatcli's
            self.failures.add()


#: What each metric is, as the collector shows it: metric metadata (protocol), in English.
_DESCRIPTIONS = {
    "gen_ai.client.token.usage":
        "Tokens used by a model call, by gen_ai.token.type (input, output)",
    "gen_ai.client.operation.duration": "How long a model call took, until its answer ended",
    "chatcli.cost": "What model calls cost, as chatcli's cost plugin prices them",
    "chatcli.tool.calls": "Tool calls, by tool, decision and outcome",
    "chatcli.tool.duration": "How long a tool call took",
    "chatcli.turn.duration": "How long a turn took",
}


class _Instruments:
    """The metrics: GenAI's token usage and operation duration, and chatcli's cost, tool calls,
    tool durations and turns."""

    def __init__(self, meter: Any) -> None:
        def histogram(name: str, unit: str, buckets: Sequence[float]) -> Any:
            return meter.create_histogram(name, unit=unit, description=_DESCRIPTIONS[name],
                                          explicit_bucket_boundaries_advisory=buckets)

        def counter(name: str, unit: str) -> Any:
            return meter.create_counter(name, unit=unit, description=_DESCRIPTIONS[name])

        self.tokens = histogram("gen_ai.client.token.usage", "{token}", TOKEN_BUCKETS)
        self.duration = histogram("gen_ai.client.operation.duration", "s", SECONDS_BUCKETS)
        self.cost = counter("chatcli.cost", "USD")
        self.tool_calls = counter("chatcli.tool.calls", "{call}")
        self.tool_duration = histogram("chatcli.tool.duration", "s", SECONDS_BUCKETS)
        self.turns = histogram("chatcli.turn.duration", "s", SECONDS_BUCKETS)
