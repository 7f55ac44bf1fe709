"""What a collector receives from ``chatcli -p``: the real command line, the OpenAI wire server
playing a model that calls a tool, and a real OTLP/HTTP receiver decoding what arrives.

One turn: the model reads a file (a tool call), then answers. The collector gets the turn's
span (``invoke_agent chatcli``) with two model calls (``chat gpt-test``) and one tool call
(``execute_tool read``) under it, the GenAI attributes with the scripted token counts, a CI
job's ``TRACEPARENT`` as the turn's parent, and the metrics (token usage, duration, cost, tool
calls).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from otel_support import CHATCLI, OPENAI_KEY, chatcli_env, receiver

pytestmark = pytest.mark.slow

CI_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CI_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{CI_TRACE}-{CI_SPAN}-01"
HEADER_TOKEN = "otel-header-canary-5f3a9c2e71d4"

FIRST = {"input_tokens": 1200, "output_tokens": 30, "cache_read_tokens": 1000}
SECOND = {"input_tokens": 1500, "output_tokens": 45}
#: USD per million tokens; OpenAI's cached input at its own price
PRICES = """\
[cost.prices."openai/gpt-test"]
input = 2.0
output = 8.0
cache_read = 0.5
"""


def _script(server) -> None:
    server.script(
        Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"}, id="call_read_1")],
              usage=FIRST),
        Reply(text="The notes say hello.", usage=SECOND))


def _run(workspace: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHATCLI), "-p", "what do the notes say?", "--model", "gpt-test"],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    """One scripted turn exported to a receiver (once for the module's tests); returns (the
    process, the receiver)."""
    root = tmp_path_factory.mktemp("otel-run")
    home, workspace = root / "home", root / "project"
    for folder in (home / "config", home / "data", home / "cache", workspace / ".git"):
        folder.mkdir(parents=True)
    (workspace / "notes.txt").write_text("hello\n")
    (home / "config" / "config.toml").write_text(PRICES)
    with OpenAIServer() as server, receiver() as collector:
        _script(server)
        env = chatcli_env(home, server, OTEL_EXPORTER_OTLP_ENDPOINT=collector.url,
                          OTEL_EXPORTER_OTLP_HEADERS=f"authorization=Bearer {HEADER_TOKEN}",
                          TRACEPARENT=TRACEPARENT, TRACESTATE="vendor=ci")
        done = _run(workspace, env)
    return done, collector


def test_the_turn_holds_its_model_calls_and_its_tool_call(run):
    done, collector = run
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The notes say hello."
    spans = collector.spans()
    assert sorted(s.name for s in spans) == [
        "chat gpt-test", "chat gpt-test", "execute_tool read", "invoke_agent chatcli"]
    turn = next(s for s in spans if s.name == "invoke_agent chatcli")
    for span in spans:
        assert span.trace_id == CI_TRACE
        assert span.trace_state == "vendor=ci"  # TRACESTATE goes along
        assert span.end >= span.start
        if span is not turn:
            assert span.parent_id == turn.span_id
            assert turn.start <= span.start and span.end <= turn.end
    # the CI job's span is the turn's parent
    assert turn.parent_id == CI_SPAN
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    # the model calls come in order: the tool call between them
    chats = sorted((s for s in spans if s.name.startswith("chat ")), key=lambda s: s.start)
    tool = next(s for s in spans if s.name == "execute_tool read")
    assert chats[0].end <= tool.start and tool.end <= chats[1].start


def test_model_calls_carry_the_genai_attributes_and_token_counts(run):
    _done, collector = run
    chats = sorted((s for s in collector.spans() if s.name.startswith("chat ")),
                   key=lambda s: s.start)
    first, second = (c.attributes for c in chats)
    for attributes in (first, second):
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == "openai"
        assert attributes["gen_ai.system"] == "openai"
        assert attributes["gen_ai.request.model"] == "gpt-test"
        assert attributes["gen_ai.response.model"] == "gpt-test"
        assert attributes["session.id"] == attributes["gen_ai.conversation.id"]
        assert attributes["session.id"].startswith("s_")
    assert (first["gen_ai.usage.input_tokens"], first["gen_ai.usage.output_tokens"],
            first["gen_ai.usage.cache_read.input_tokens"]) == (1200, 30, 1000)
    assert (second["gen_ai.usage.input_tokens"], second["gen_ai.usage.output_tokens"],
            second["gen_ai.usage.cache_read.input_tokens"]) == (1500, 45, 0)
    assert first["gen_ai.response.finish_reasons"] == ["tool_use"]
    assert second["gen_ai.response.finish_reasons"] == ["end_turn"]
    # the cost plugin's prices: (200 × 2 + 1,000 × 0.5 + 30 × 8) / 1e6, (1,500 × 2 + 45 × 8) / 1e6
    assert first["chatcli.cost.usd"] == pytest.approx(0.00114)
    assert second["chatcli.cost.usd"] == pytest.approx(0.00336)
    # nothing of what was said goes by default
    assert not any("messages" in key for c in chats for key in c.attributes)


def test_the_tool_call_says_its_name_risk_and_decision(run):
    _done, collector = run
    tool = next(s for s in collector.spans() if s.name == "execute_tool read")
    assert tool.attributes == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read",
        "gen_ai.tool.call.id": "call_read_1", "gen_ai.tool.type": "function",
        "chatcli.tool.risk": "read", "chatcli.tool.decision": "allowed",
        "chatcli.tool.decided_by": "policy", "chatcli.tool.verdict": "allow",
        "chatcli.tool.outcome": "ok", "gen_ai.conversation.id": tool.attributes["session.id"],
        "session.id": tool.attributes["session.id"]}
    assert tool.status == 0  # unset: it went well


def test_the_resource_names_chatcli_and_its_version(run):
    import chatcli

    _done, collector = run
    for span in collector.spans():
        assert span.resource["service.name"] == "chatcli"
        assert span.resource["service.version"] == chatcli.__version__


def test_metrics_count_tokens_cost_tool_calls_and_latency(run):
    _done, collector = run
    assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "chatcli.cost",
            "chatcli.tool.calls", "chatcli.tool.duration",
            "chatcli.turn.duration"} <= collector.metric_names()
    tokens = collector.data_points("gen_ai.client.token.usage")
    by_type = {attributes["gen_ai.token.type"]: point for attributes, point in tokens}
    assert (by_type["input"].count, by_type["input"].sum) == (2, 2700)
    assert (by_type["output"].count, by_type["output"].sum) == (2, 75)
    assert all(a["gen_ai.provider.name"] == "openai" and a["gen_ai.request.model"] == "gpt-test"
               for a, _ in tokens)
    durations = collector.data_points("gen_ai.client.operation.duration")
    assert sum(point.count for _, point in durations) == 2
    cost = collector.data_points("chatcli.cost")
    assert sum(point.as_double for _, point in cost) == pytest.approx(0.0045)
    calls = collector.data_points("chatcli.tool.calls")
    assert [(a["gen_ai.tool.name"], a["chatcli.tool.outcome"], p.as_int)
            for a, p in calls] == [("read", "ok", 1)]


def test_no_key_or_header_token_reaches_the_collector_or_the_output(run):
    done, collector = run
    assert done.returncode == 0
    # the header went where it was meant to go: the collector's door
    assert all(h.get("authorization") == f"Bearer {HEADER_TOKEN}" for h in collector.headers)
    received = b"".join(r.SerializeToString() for r in [*collector.traces, *collector.metrics])
    for canary in (OPENAI_KEY, HEADER_TOKEN):
        assert canary.encode() not in received
        assert canary not in done.stdout + done.stderr
    # the tool lines of chatcli -p, and not a word from telemetry
    assert [line for line in done.stderr.splitlines()
            if not line.startswith("chatcli: tool read")] == []
