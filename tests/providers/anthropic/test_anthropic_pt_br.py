"""chatcli-provider-anthropic in Brazilian Portuguese: its errors with their fixes and its
options' descriptions; the service's own words kept as they arrive; English unchanged."""

from __future__ import annotations

import socket

import chatcli_provider_anthropic.plugin as anthropic_plugin
import pytest
from chatcli import ChatRequest, Message, NetworkError, PluginHost, ProviderConfig
from chatcli_provider_anthropic.errormap import map_error
from chatcli_provider_anthropic.provider import AnthropicProvider


def _unreachable() -> NetworkError:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = ProviderConfig(name="anthropic", model="claude-test", api_key="sk-ant-test-0123",
                            base_url=f"http://127.0.0.1:{port}", timeout=2)
    provider = AnthropicProvider(config)
    try:
        with pytest.raises(NetworkError) as info:
            list(provider.stream(ChatRequest(model="claude-test",
                                             messages=[Message.user("hi")])))
    finally:
        provider.client.close()
    return info.value


def test_an_unreachable_service_is_told_in_portuguese(chatcli_language):
    chatcli_language("pt_BR")
    err = _unreachable()
    assert err.message.startswith("não foi possível acessar a Anthropic em http://127.0.0.1:")
    assert err.hint == "confira sua conexão de rede e ANTHROPIC_BASE_URL"
    chatcli_language("en")
    assert _unreachable().message.startswith("cannot reach Anthropic at http://127.0.0.1:")


def test_an_unexpected_failure_keeps_its_own_words(chatcli_language):
    chatcli_language("pt_BR")
    err = map_error(RuntimeError("socket says no"), model="m", base_url="http://h",
                    started=False)
    assert err.message == "a requisição à Anthropic falhou: RuntimeError: socket says no"


def test_the_description_and_options_are_translated(chatcli_language):
    chatcli_language("pt_BR")
    host = PluginHost()
    host.register(anthropic_plugin, "anthropic")
    spec = host.providers()["anthropic"]
    assert spec.description.startswith("Modelos Claude pela API Messages da Anthropic")
    assert spec.options["max_tokens"].description == "limite de saída quando nenhum é definido"
