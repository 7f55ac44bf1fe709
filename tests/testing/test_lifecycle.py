"""Server lifecycle, non-streamed faults, the README example, and import lightness."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import openai
import pytest
from chatcli_testing import AnthropicServer, Fault, OllamaServer, OpenAIServer, Reply

README = Path(__file__).parents[2] / "libs/testing/README.md"


@pytest.mark.parametrize("cls", [OpenAIServer, AnthropicServer, OllamaServer])
def test_stop_frees_the_port_even_with_a_stalled_stream(cls: type) -> None:
    server = cls().start()
    url = server.root_url
    server.script(Fault(stall=60))
    path = "/api/chat" if cls is OllamaServer else (
        "/v1/messages" if cls is AnthropicServer else "/v1/chat/completions")
    outcome: list[object] = []

    def stalled_client() -> None:
        request = urllib.request.Request(url + path, data=b'{"stream": true}', method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                outcome.append(response.read())
        except Exception as err:  # the dropped stream
            outcome.append(err)

    thread = threading.Thread(target=stalled_client, daemon=True)
    thread.start()
    while not server.requests:
        thread.join(0.01)
    server.stop()
    thread.join(30)
    assert not thread.is_alive() and outcome
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/", timeout=5)


def test_url_needs_a_started_server() -> None:
    with pytest.raises(RuntimeError, match="start"):
        _ = OpenAIServer().url


def test_non_streamed_cut_and_garbage(openai_server: OpenAIServer) -> None:
    sdk = openai.OpenAI(base_url=openai_server.url, api_key="x", max_retries=0)
    openai_server.script(Fault(cut_after=0), Fault(malformed_after=0))
    with pytest.raises(openai.APIConnectionError):
        sdk.chat.completions.create(model="m", messages=[])
    with pytest.raises(ValueError):
        sdk.chat.completions.create(model="m", messages=[])


def test_delayed_chunks_still_arrive_whole(ollama_server: OllamaServer) -> None:
    import ollama

    ollama_server.script(Reply(text="slowly now", chunk_size=3, delay=0.01))
    parts = ollama.Client(host=ollama_server.url).chat(model="m", messages=[], stream=True)
    assert [p.message.content for p in parts][:4] == ["slo", "wly", " no", "w"]


def test_readme_example_passes(openai_server: OpenAIServer, chatcli_home: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "def test_" in b)
    namespace: dict[str, object] = {}
    exec(compile(example, str(README), "exec"), namespace)
    namespace["test_my_provider_streams_and_retries"](openai_server, chatcli_home)  # type: ignore[operator]


def test_importing_the_package_and_plugin_imports_no_sdk() -> None:
    code = ("import sys, chatcli_testing, chatcli_testing.pytest_plugin; "
            "from chatcli_testing import Reply, OpenAIServer, AnthropicServer, OllamaServer; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('openai', 'anthropic', 'ollama', 'httpx', 'httpx2', 'pydantic')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
