"""chatcli-provider-ollama in Brazilian Portuguese: its errors with their fixes (the SDK's own
words kept inside the sentence) and its options' descriptions; English unchanged."""

from __future__ import annotations

import chatcli_provider_ollama.plugin as ollama_plugin
from chatcli import PluginHost
from chatcli_provider_ollama.errormap import service_error
from process_support import CHATCLI, run_process


def test_a_bad_ollama_host_is_told_in_portuguese(tmp_path):
    args = [CHATCLI, "-p", "hello", "--provider", "ollama"]
    done = run_process(args, tmp_path, OLLAMA_HOST="http://h:port", CHATCLI_LANG="pt_BR")
    assert done.returncode != 0
    assert "OLLAMA_HOST 'http://h:port' não é um endereço válido (" in done.stderr
    assert "defina OLLAMA_HOST como host:porta ou http://host:porta" in done.stderr
    english = run_process(args, tmp_path, OLLAMA_HOST="http://h:port")
    assert "OLLAMA_HOST 'http://h:port' is not a valid address (" in english.stderr
    assert "set OLLAMA_HOST to host:port or http://host:port" in english.stderr


def test_a_missing_model_names_the_pull_in_portuguese(chatcli_language):
    chatcli_language("pt_BR")
    err = service_error(404, "model 'qwen9' not found", model="qwen9", host="http://h",
                        started=False)
    assert err.message == "o Ollama não tem o modelo 'qwen9': model 'qwen9' not found"
    assert err.hint == "rode `ollama pull qwen9` ou escolha outro com --model"


def test_the_description_and_options_are_translated(chatcli_language):
    chatcli_language("pt_BR")
    host = PluginHost()
    host.register(ollama_plugin, "ollama")
    spec = host.providers()["ollama"]
    assert spec.description == "Modelos servidos pelo Ollama (`ollama serve`), sem chave de API."
    assert spec.options["stop"].description == "sequências de parada"
