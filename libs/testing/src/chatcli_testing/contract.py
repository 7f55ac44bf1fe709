"""A conformance kit for provider plugins: subclass :class:`ProviderContract` in a test module.

The base class holds the tests every chatcli provider must pass against its wire server:
text streamed in order, usage (cache tokens included), tool-call arguments assembled from
fragments, malformed tool arguments kept raw, the HTTP faults mapped to the kernel's error
taxonomy (429 with ``Retry-After``, 500, 401 without the key in the message, 404), a stream cut
mid-answer, a malformed chunk, a stall against a short timeout, and closing the stream early.

pytest collects it only through a subclass whose name starts with ``Test``::

    from chatcli_testing import ProviderContract

    class TestMyProviderContract(ProviderContract):
        server_fixture = "openai_server"      # the chatcli_testing server speaking your wire format
        model = "my-model"

        def make_provider(self, server, *, timeout=30.0):
            return MyProvider(ProviderConfig(name="mine", model=self.model, api_key=self.api_key,
                                             base_url=server.url, timeout=timeout))

Attributes name what a wire format cannot carry (e.g. Ollama reports no cache tokens); the
defaults are the strict expectations.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from chatcli import (
    AuthError,
    ChatRequest,
    Message,
    ModelNotFoundError,
    Provider,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StopEvent,
    StopReason,
    StreamCutError,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    Usage,
    UsageEvent,
)

from chatcli_testing.script import Fault, Reply, ToolCall

__all__ = ["ProviderContract"]


class ProviderContract:
    """Conformance tests for a chatcli provider, run against a ``chatcli_testing`` wire server.

    Subclasses (named ``Test...``) set :attr:`server_fixture` and implement
    :meth:`make_provider`; they may override the other attributes below.
    """

    #: Name of the pytest fixture giving the wire server: ``"openai_server"``,
    #: ``"anthropic_server"`` or ``"ollama_server"``.
    server_fixture: ClassVar[str] = ""
    #: The model every request names.
    model: ClassVar[str] = "test-model"
    #: The key to give the provider (``None`` for keyless services); no error may show it.
    api_key: ClassVar[str | None] = "sk-contract-0123456789abcdefSECRET"
    #: The wire format reports cached prompt tokens read (OpenAI, Anthropic).
    reports_cache_read_tokens: ClassVar[bool] = True
    #: The wire format reports prompt tokens written to the cache (Anthropic).
    reports_cache_write_tokens: ClassVar[bool] = True
    #: The wire's input count leaves out cached tokens (Anthropic), so the provider must add
    #: cache reads and writes to report the whole prompt as ``input_tokens``.
    wire_input_excludes_cache: ClassVar[bool] = False
    #: The wire carries tool-call ids (Ollama's does not: the provider makes unique ones).
    wire_has_tool_call_ids: ClassVar[bool] = True
    #: The wire turns a tool call with unparseable arguments into plain text (Ollama): then the
    #: text must arrive whole and no tool call is made up.
    malformed_tool_arguments_arrive_as_text: ClassVar[bool] = False
    #: The provider timeout used by the stall test (the server stalls for 5 seconds).
    stall_timeout: ClassVar[float] = 0.5

    def make_provider(self, server: Any, *, timeout: float = 30.0) -> Provider:
        """Build the provider under test, pointed at ``server.url`` and holding :attr:`api_key`."""
        raise NotImplementedError("ProviderContract subclasses implement make_provider()")

    def make_request(self, text: str = "hi") -> ChatRequest:
        """The one-message request every contract test sends."""
        return ChatRequest(model=self.model, messages=[Message.user(text)])

    # -------------------------------------------------------------------------------- plumbing

    @pytest.fixture
    def contract_server(self, request: pytest.FixtureRequest, chatcli_home: Any) -> Any:
        """The wire server named by :attr:`server_fixture`, in an isolated chatcli home."""
        if not self.server_fixture:
            pytest.fail(f"{type(self).__name__} must set server_fixture")
        return request.getfixturevalue(self.server_fixture)

    @pytest.fixture(autouse=True)
    def _close_providers(self) -> Iterator[None]:
        self._providers: list[Any] = []
        yield
        for provider in self._providers:
            close = getattr(provider, "close", None)
            if callable(close):
                close()

    def provider(self, server: Any, *, timeout: float = 30.0) -> Provider:
        """:meth:`make_provider`, closed (if it has ``close()``) after the test."""
        built = self.make_provider(server, timeout=timeout)
        self._providers.append(built)
        return built

    def stream(self, server: Any, *, timeout: float = 30.0) -> list[StreamEvent]:
        """All events of one answer to :meth:`make_request`."""
        return list(self.provider(server, timeout=timeout).stream(self.make_request()))

    def fail(self, server: Any, fault: Fault, kind: type[ProviderError], *,
             timeout: float = 30.0) -> tuple[Any, list[StreamEvent]]:
        """Script ``fault``, stream until the error; check it is a one-line ``kind``.

        Returns the error and the events that arrived before it.
        """
        server.script(fault)
        seen: list[StreamEvent] = []
        with pytest.raises(ProviderError) as info:
            for event in self.provider(server, timeout=timeout).stream(self.make_request()):
                seen.append(event)
        err = info.value
        assert isinstance(err, kind), f"expected {kind.__name__}, got {type(err).__name__}: {err}"
        text = str(err)
        assert "\n" not in text and "Traceback" not in text, text
        if self.api_key:
            assert self.api_key not in text
        return err, seen

    # -------------------------------------------------------------------------------- streaming

    def test_streams_text_in_order(self, contract_server: Any) -> None:
        reply = Reply(text="Hello there, dear world!", chunk_size=3)
        contract_server.script(reply)
        events = self.stream(contract_server)

        deltas = [e.text for e in events if isinstance(e, TextDelta)]
        assert deltas == reply.text_chunks()  # each piece as it arrives, none merged or lost
        assert isinstance(events[-1], StopEvent)
        assert events[-1].reason == StopReason.END_TURN
        assert events[-1].model == self.model

    def test_usage_includes_cache_tokens(self, contract_server: Any) -> None:
        sent = {"input_tokens": 1200, "output_tokens": 34, "cache_read_tokens": 1024,
                "cache_write_tokens": 150}
        contract_server.script(Reply(text="cached", usage=sent))
        events = self.stream(contract_server)

        usages = [e.usage for e in events if isinstance(e, UsageEvent)]
        assert usages, "no UsageEvent"
        read = sent["cache_read_tokens"] if self.reports_cache_read_tokens else 0
        write = sent["cache_write_tokens"] if self.reports_cache_write_tokens else 0
        prompt = sent["input_tokens"] + (read + write if self.wire_input_excludes_cache else 0)
        assert usages[-1] == Usage(input_tokens=prompt, output_tokens=sent["output_tokens"],
                                   cache_read_tokens=read, cache_write_tokens=write)
        assert isinstance(events[-1], StopEvent)

    def test_tool_call_arguments_assembled_from_fragments(self, contract_server: Any) -> None:
        args = {"path": "src/main.py", "lines": [1, 20], "note": 'ünïcode "quoted"'}
        contract_server.script(Reply(text="Looking.", chunk_size=2, tool_calls=[
            ToolCall("read_file", args, id="call_abc"), ToolCall("noop", {}, id="call_def")]))
        events = self.stream(contract_server)

        calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
        assert [(c.name, c.arguments, c.raw_arguments) for c in calls] == [
            ("read_file", args, None), ("noop", {}, None)]
        if self.wire_has_tool_call_ids:
            assert [c.id for c in calls] == ["call_abc", "call_def"]
        else:
            assert all(c.id for c in calls) and calls[0].id != calls[1].id
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Looking."
        assert isinstance(events[-1], StopEvent)
        assert events[-1].reason == StopReason.TOOL_USE

    def test_malformed_tool_arguments_are_kept_raw(self, contract_server: Any) -> None:
        contract_server.script(Reply(tool_calls=[ToolCall("add", '{"a": 1, "b":')]))
        events = self.stream(contract_server)

        calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
        if self.malformed_tool_arguments_arrive_as_text:
            assert calls == []
            assert "".join(e.text for e in events if isinstance(e, TextDelta)) == '{"a": 1, "b":'
            return
        (call,) = calls
        assert (call.name, call.arguments, call.raw_arguments) == ("add", {}, '{"a": 1, "b":')

    # -------------------------------------------------------------------------------- HTTP faults

    def test_429_is_a_rate_limit_with_retry_after(self, contract_server: Any) -> None:
        err, seen = self.fail(contract_server, Fault(status=429, retry_after=7), RateLimitError)
        assert err.retry_after == 7.0
        assert err.retryable
        assert seen == []
        assert len(contract_server.requests) == 1  # the engine retries, never the provider

    def test_500_is_a_retryable_server_error(self, contract_server: Any) -> None:
        err, seen = self.fail(contract_server, Fault(status=500, message="upstream broke"),
                              ServerError)
        assert err.retryable
        assert seen == []
        assert len(contract_server.requests) == 1

    def test_401_is_an_auth_error_without_the_key(self, contract_server: Any) -> None:
        echo = f"Incorrect API key provided: {self.api_key}" if self.api_key else "unauthorized"
        err, seen = self.fail(contract_server, Fault(status=401, message=echo), AuthError)
        assert not err.retryable
        assert seen == []
        assert len(contract_server.requests) == 1

    def test_404_is_model_not_found(self, contract_server: Any) -> None:
        err, seen = self.fail(contract_server,
                              Fault(status=404, message=f"model '{self.model}' not found"),
                              ModelNotFoundError)
        assert not err.retryable
        assert self.model in str(err)
        assert seen == []

    # -------------------------------------------------------------------------------- stream faults

    def test_cut_mid_stream_after_the_partial_text(self, contract_server: Any) -> None:
        fault = Fault(cut_after=3, reply=Reply(text="abcdefghijklmnop", chunk_size=2))
        _, seen = self.fail(contract_server, fault, StreamCutError)
        assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "abcdef"

    def test_malformed_chunk_is_a_stream_cut(self, contract_server: Any) -> None:
        fault = Fault(malformed_after=2, reply=Reply(text="abcdefghijklmnop", chunk_size=2))
        _, seen = self.fail(contract_server, fault, StreamCutError)
        assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "abcd"

    def test_stall_times_out(self, contract_server: Any) -> None:
        fault = Fault(stall=5, reply=Reply(text="late"))
        err, seen = self.fail(contract_server, fault, ProviderTimeoutError,
                              timeout=self.stall_timeout)
        assert err.retryable
        assert not [e for e in seen if isinstance(e, TextDelta)]

    def test_closing_the_stream_early_releases_the_connection(self, contract_server: Any) -> None:
        contract_server.script(Reply(text="x" * 400, chunk_size=1, delay=0.02))
        stream = self.provider(contract_server).stream(self.make_request())
        first = next(e for e in stream if isinstance(e, TextDelta))
        assert first.text == "x"
        assert _open_connections(contract_server), "no connection while streaming"
        stream.close()  # type: ignore[attr-defined]
        # the server notices the dropped connection long before its 8 s of stream are over
        deadline = time.monotonic() + 5
        while _open_connections(contract_server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _open_connections(contract_server), "the connection is still open"


def _open_connections(server: Any) -> int:
    """How many client connections the wire server holds open."""
    return len(server._connections)
