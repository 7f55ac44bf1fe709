"""The OpenAI-compatible service presets (Gemini, GitHub Models, Mistral, Together, Fireworks,
Cerebras, Perplexity): each one's key variables, URL, default model and output-limit field,
sent through the real openai SDK to the local wire server standing in for the service."""

from __future__ import annotations

import chatcli_provider_openai.plugin as openai_plugin
import pytest
from _openai_testlib import TEST_KEY, ask
from chatcli import (
    PluginHost,
    ProviderSpec,
    Settings,
    TextDelta,
    build_provider,
    choose_provider,
    hookimpl,
)
from chatcli._providers import native_tools
from chatcli_testing import Reply

SERVICES = {
    # name: (key variables, base URL, default model, output-limit field)
    "gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY"),
               "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-3.5-flash",
               "max_tokens"),
    "github": (("GITHUB_TOKEN",), "https://models.github.ai/inference", "openai/gpt-4.1",
               "max_completion_tokens"),
    "mistral": (("MISTRAL_API_KEY",), "https://api.mistral.ai/v1", "mistral-medium-latest",
                "max_tokens"),
    "together": (("TOGETHER_API_KEY",), "https://api.together.ai/v1", "openai/gpt-oss-120b",
                 "max_tokens"),
    "fireworks": (("FIREWORKS_API_KEY",), "https://api.fireworks.ai/inference/v1",
                  "accounts/fireworks/models/gpt-oss-120b", "max_tokens"),
    "cerebras": (("CEREBRAS_API_KEY",), "https://api.cerebras.ai/v1", "gpt-oss-120b",
                 "max_completion_tokens"),
    "perplexity": (("PERPLEXITY_API_KEY", "PPLX_API_KEY"), "https://api.perplexity.ai",
                   "sonar-pro", "max_tokens"),
}

CASES = [(name, variable) for name, (keys, *_rest) in SERVICES.items() for variable in keys]


def specs() -> dict[str, ProviderSpec]:
    host = PluginHost()
    host.register(openai_plugin, "openai")
    return host.providers()


@pytest.fixture
def no_keys(monkeypatch):
    for keys, *_rest in SERVICES.values():
        for variable in keys:
            monkeypatch.delenv(variable, raising=False)


def test_each_service_is_registered_with_its_data():
    registered = specs()
    for name, (keys, url, model, _field) in SERVICES.items():
        spec = registered[name]
        assert tuple(spec.env_keys) == keys, name
        assert spec.base_url == url, name
        assert spec.default_model == model, name
        assert model in spec.models, name
        assert spec.requires_key, name
        # every default model has a registered context window
        assert spec.context_window(model), name


@pytest.mark.parametrize(("name", "variable"), CASES)
def test_a_request_reaches_the_service_with_its_key_model_and_path(
        name, variable, openai_server, chatcli_home, no_keys, monkeypatch):
    _keys, _url, model, field = SERVICES[name]
    monkeypatch.setenv(variable, TEST_KEY)
    spec = specs()[name]
    settings = Settings(providers={name: {"base_url": openai_server.url}})
    provider, config = build_provider(spec, settings)
    assert (config.model, config.api_key) == (model, TEST_KEY)
    openai_server.script(Reply(text=f"hello from {name}"))
    try:
        events = list(provider.stream(ask(model=config.model, max_tokens=64)))
    finally:
        provider.close()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == f"hello from {name}"
    sent = openai_server.requests[-1]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert sent.json["model"] == model
    assert sent.json[field] == 64
    other = {"max_tokens", "max_completion_tokens"} - {field}
    assert not other & set(sent.json)


def test_the_first_key_variable_wins(chatcli_home, no_keys, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-google-0123456789")
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-gemini-0123456789")
    _provider, config = build_provider(specs()["gemini"], Settings())
    assert config.api_key == "AIza-gemini-0123456789"


def test_keyed_services_are_chosen_automatically_but_github_only_when_named(
        chatcli_home, no_keys, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_0123456789abcdef")  # set by gh and CI for git

    class Offline:  # stands in for chatcli-provider-local (keyless, chosen when nothing else)
        @hookimpl
        def register_providers(self, register):
            register(ProviderSpec(name="local", display_name="Local", factory=lambda c: None,
                                  default_model="smol", requires_key=False, priority=10))

    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(Offline(), "local")
    assert choose_provider(host, Settings()).name == "local"
    assert choose_provider(host, Settings(provider="github")).name == "github"
    monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-0123456789")
    assert choose_provider(host, Settings()).name == "mistral"


def test_perplexity_gets_tools_in_the_prompt_not_the_api():
    registered = specs()
    assert native_tools(registered["perplexity"], Settings()) is False
    assert all(native_tools(registered[name], Settings())
               for name in SERVICES if name != "perplexity")
    # the user can still say otherwise
    forced = Settings(providers={"perplexity": {"tool_calls": "native"}})
    assert native_tools(registered["perplexity"], forced) is True


def test_perplexity_through_the_cli_sends_no_tools_but_describes_them(openai_server,
                                                                      chatcli_home):
    from _openai_testlib import run_chatcli

    openai_server.script(Reply(text="grounded answer"))
    done = run_chatcli(chatcli_home, "-p", "what changed in Python 3.14?", "--provider",
                       "perplexity", "--raw", PERPLEXITY_API_KEY=TEST_KEY,
                       CHATCLI_PROVIDERS__PERPLEXITY__BASE_URL=openai_server.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "grounded answer"
    body = openai_server.requests[-1].json
    assert body["model"] == "sonar-pro" and "tools" not in body
    system = body["messages"][0]["content"]
    assert "tool_call" in system  # the text protocol tells the model how to call a tool


def test_mistral_through_the_cli_sends_tools_natively(openai_server, chatcli_home):
    from _openai_testlib import run_chatcli

    openai_server.script(Reply(text="native"))
    done = run_chatcli(chatcli_home, "-p", "hi", "--provider", "mistral", "--raw",
                       MISTRAL_API_KEY=TEST_KEY,
                       CHATCLI_PROVIDERS__MISTRAL__BASE_URL=openai_server.url)
    assert done.returncode == 0, done.stderr
    body = openai_server.requests[-1].json
    assert body["tools"] and "tool_call" not in body["messages"][0]["content"]
