"""chatcli-otel: OpenTelemetry traces and metrics of chatcli's turns, model calls and tool calls,
exported over OTLP/HTTP; off and free unless configured (see :mod:`chatcli_otel.plugin`)."""
