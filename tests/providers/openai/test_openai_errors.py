"""Every wire-server fault surfaces as the right kernel error: one line, never the key.

The faults every provider shares are also in ``test_openai_contract.py``; this file checks
OpenAI's wording, hints, presets and the faults only OpenAI-compatible services have.
"""

from __future__ import annotations

import gc
import json
import os
import socket
import subprocess
import sys
import warnings

import pytest
from _openai_testlib import TEST_KEY, ask, preset
from chatcli import (
    AuthError,
    BadRequestError,
    ContextTooLongError,
    ModelNotFoundError,
    NetworkError,
    ProviderConfig,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StreamCutError,
    TextDelta,
)
from chatcli_testing import Fault, OpenAIServer, Reply


def fail(provider, request=None) -> tuple[ProviderError, list]:
    """Stream until the error; returns it and the events that arrived before it."""
    seen: list = []
    with pytest.raises(ProviderError) as info:
        for event in provider.stream(request or ask()):
            seen.append(event)
    err = info.value
    text = str(err)
    assert "\n" not in text
    assert TEST_KEY not in text
    assert "Traceback" not in text
    return err, seen


@pytest.mark.parametrize(
    ("fault", "kind", "retryable"),
    [
        (Fault(status=401), AuthError, False),
        (Fault(status=403), AuthError, False),
        (Fault(status=404, message="The model `gpt-test` does not exist"), ModelNotFoundError,
         False),
        (Fault(status=400, message="This model's maximum context length is 8192 tokens"),
         ContextTooLongError, False),
        (Fault(status=400, message="Invalid value for 'temperature'"), BadRequestError, False),
        (Fault(status=422, message="Unprocessable"), BadRequestError, False),
        (Fault(status=500), ServerError, True),
        (Fault(status=503), ServerError, True),
        (Fault(status=429), RateLimitError, True),
    ],
)
def test_status_faults_map_to_the_taxonomy(make_provider, openai_server, fault, kind, retryable):
    openai_server.script(fault)
    err, seen = fail(make_provider())
    assert type(err) is kind
    assert err.retryable is retryable
    assert err.status == fault.status
    assert err.provider == "openai"
    assert "OpenAI" in err.message
    assert err.hint  # names the fix
    assert seen == []


def test_server_error_carries_retry_after(make_provider, openai_server):
    openai_server.script(Fault(status=503, retry_after=2))
    err, _ = fail(make_provider())
    assert isinstance(err, ServerError)
    assert err.retry_after == 2.0


def test_auth_error_names_the_variable_and_hides_the_key(make_provider, openai_server):
    openai_server.script(Fault(status=401, message=f"Incorrect API key provided: {TEST_KEY}"))
    err, _ = fail(make_provider())  # fail() asserts the key is not in the text
    assert "OPENAI_API_KEY" in str(err)
    assert "chatcli keys set openai" in str(err)


def test_preset_errors_name_the_preset(make_provider, openai_server):
    openai_server.script(Fault(status=401))
    err, _ = fail(make_provider("groq"))
    assert err.message.startswith("Groq")
    assert "GROQ_API_KEY" in str(err)


def test_quota_exhausted_is_not_retried(make_provider, openai_server):
    openai_server.script(Fault(status=429, message="You exceeded your current quota"))
    err, _ = fail(make_provider())
    assert isinstance(err, AuthError)
    assert not err.retryable


def test_malformed_chunk(make_provider, openai_server):
    openai_server.script(Fault(malformed_after=2, reply=Reply(text="abcdefghijklmnop")))
    err, seen = fail(make_provider())
    assert isinstance(err, StreamCutError)
    assert "malformed" in err.message
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "abcdefgh"


def test_error_event_mid_stream(make_provider, openai_server):
    openai_server.script(Fault(error_event_after=1, message="upstream overloaded",
                               reply=Reply(text="abcdefgh")))
    err, seen = fail(make_provider())
    assert isinstance(err, ServerError)
    assert "upstream overloaded" in err.message
    assert [e.text for e in seen] == ["abcd"]


def test_stall_times_out(make_provider, openai_server):
    openai_server.script(Fault(stall=5, reply=Reply(text="late")))
    err, seen = fail(make_provider(timeout=0.3))
    assert isinstance(err, ProviderTimeoutError)
    assert err.retryable
    assert "0.3s" in err.message
    assert seen == []


def test_unreachable_server_is_a_network_error(chatcli_home):
    from chatcli_provider_openai.provider import OpenAIProvider

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = OpenAIProvider(ProviderConfig(
        name="lmstudio", model="m", base_url=f"http://127.0.0.1:{port}/v1", timeout=5),
        preset=preset("lmstudio"))
    err, _ = fail(provider)
    assert isinstance(err, NetworkError)
    assert f"127.0.0.1:{port}" in err.message
    assert "LMSTUDIO_BASE_URL" in str(err)


class WrongShapeServer(OpenAIServer):
    """Sends ``chunk`` (valid JSON of the wrong shape) where a malformed chunk is scripted."""

    def __init__(self, chunk: object) -> None:
        super().__init__()
        self.chunk = chunk

    def malformed_event(self) -> bytes:
        return f"data: {json.dumps(self.chunk)}\n\n".encode()


@pytest.mark.parametrize("chunk", [
    {"choices": [{"index": 0, "delta": "oops"}]},
    {"choices": "not a list"},
    [1, 2],
    None,
    {"choices": [{"index": 0, "delta": {"content": 5}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": "first"}]}}]},
    {"choices": [], "usage": {"prompt_tokens": "many"}},
])
def test_a_chunk_of_the_wrong_shape_is_one_line_and_no_warnings(chatcli_home, chunk):
    from chatcli_provider_openai.provider import OpenAIProvider

    gc.collect()  # an earlier test's unclosed socket is not this test's warning
    with WrongShapeServer(chunk) as server, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.script(Fault(malformed_after=1, reply=Reply(text="abcdefgh")))
        provider = OpenAIProvider(ProviderConfig(name="openai", model="gpt-test",
                                                 api_key=TEST_KEY, base_url=server.url),
                                  preset=preset("openai"))
        err, seen = fail(provider)
        provider.close()
    # pydantic printed serializer warnings (a finalizer's ResourceWarning may land here too)
    assert [str(w.message) for w in caught if w.category is not ResourceWarning] == []
    assert isinstance(err, StreamCutError)
    assert err.message.startswith("OpenAI sent a stream chunk of an unexpected shape: ")
    assert json.dumps(chunk) in err.message
    assert [e.text for e in seen] == ["abcd"]


def closed_port() -> int:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_password_in_the_base_url_is_never_printed(chatcli_home):
    from chatcli_provider_openai.provider import OpenAIProvider

    url = f"http://user:hunter2-secret@127.0.0.1:{closed_port()}/v1"
    provider = OpenAIProvider(ProviderConfig(name="openai", model="m", api_key=TEST_KEY,
                                             base_url=url, timeout=5), preset=preset("openai"))
    err, _ = fail(provider)
    assert isinstance(err, NetworkError)
    assert "hunter2-secret" not in str(err)
    assert "http://user:***@127.0.0.1:" in err.message  # still says where it tried


def test_the_one_shot_cli_hides_a_password_in_openai_base_url(chatcli_home):
    port = closed_port()
    env = {**os.environ, "OPENAI_API_KEY": "test",
           "OPENAI_BASE_URL": f"http://user:hunter2-secret@127.0.0.1:{port}/v1",
           "CHATCLI_PROVIDERS__OPENAI__MAX_RETRIES": "0"}
    done = subprocess.run([sys.executable, "-m", "chatcli_cli", "-p", "hi",
                           "--provider", "openai"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "hunter2-secret" not in done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"chatcli: error: cannot reach OpenAI at http://user:***@127.0.0.1:{port}")
