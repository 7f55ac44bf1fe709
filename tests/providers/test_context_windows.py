"""Every provider says how much its models' context holds (ProviderSpec.context_windows), and
the session takes it (the yardstick of compaction) unless the settings say otherwise."""

from __future__ import annotations

import chatcli_provider_anthropic.plugin as anthropic_plugin
import chatcli_provider_local.plugin as local_plugin
import chatcli_provider_ollama.plugin as ollama_plugin
import chatcli_provider_openai.plugin as openai_plugin
import pytest
from chatcli import PluginHost, Session, SessionOptions, Settings


def specs() -> dict:
    host = PluginHost(warn=lambda line: None)
    for name, module in (("openai", openai_plugin), ("anthropic", anthropic_plugin),
                         ("ollama", ollama_plugin), ("local", local_plugin)):
        host.register(module, name)
    return host.providers()


@pytest.mark.parametrize(("provider", "model", "tokens"), [
    ("anthropic", "claude-sonnet-5-5", 200_000),
    ("anthropic", "claude-haiku-4-5-20251001", 200_000),
    ("anthropic", "someone-elses-model", None),
    ("openai", "gpt-5.4-mini", 272_000),
    ("openai", "gpt-5-chat-latest", 128_000),
    ("openai", "gpt-4.1-mini", 1_047_576),
    ("openai", "gpt-4o", 128_000),
    ("openai", "gpt-4o-mini", 128_000),
    ("openai", "gpt-4", 8_192),
    ("openai", "o1-mini", 128_000),
    ("openai", "o3", 200_000),
    ("openai", "some-local-model", None),  # OPENAI_BASE_URL elsewhere: chatcli's default
    ("openrouter", "openai/gpt-5.4-mini", 272_000),
    ("openrouter", "anthropic/claude-sonnet-4.5", 200_000),
    ("groq", "openai/gpt-oss-120b", 131_072),
    ("xai", "grok-4.3", 256_000),
    ("lmstudio", "whatever-is-loaded", None),
    ("ollama", "llama3.2", 4_096),
    ("local", "smollm2-135m", 4_096),
])
def test_the_registered_windows(provider, model, tokens):
    assert specs()[provider].context_window(model) == tokens


def test_the_local_window_is_the_one_the_model_runs_with():
    from chatcli_provider_local.runtime import DEFAULT_CONTEXT

    assert local_plugin.CONTEXT_WINDOW == DEFAULT_CONTEXT


def test_the_session_uses_the_providers_window_unless_configured(openai_server, chatcli_home,
                                                                 monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-window-test-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    for settings, window in ((Settings(provider="openai", model="gpt-4o"), 128_000),
                             (Settings(provider="openai", model="gpt-4.1"), 1_047_576),
                             (Settings(provider="openai", model="gpt-4.1", context_window=50_000),
                              50_000),
                             (Settings(provider="openai", model="mystery"), 128_000)):
        with Session(host, settings, SessionOptions(), workspace=tmp_path).open() as session:
            assert session.engine.current.context_window == window
