"""chatcli-provider-local in Brazilian Portuguese: its errors with their fixes and its options'
descriptions; English unchanged."""

from __future__ import annotations

import chatcli_provider_local.plugin as local_plugin
from chatcli import PluginHost
from process_support import CHATCLI, run_process


def test_an_unknown_local_model_is_told_in_portuguese(tmp_path):
    args = [CHATCLI, "-p", "hello", "--provider", "local", "--model", "no-such-model"]
    done = run_process(args, tmp_path, CHATCLI_LANG="pt_BR")
    assert done.returncode != 0
    assert "modelo local desconhecido 'no-such-model'" in done.stderr
    assert "o caminho de um arquivo .gguf ou defina providers.local.model_path" in done.stderr
    english = run_process(args, tmp_path)
    assert "unknown local model 'no-such-model'" in english.stderr
    assert "a path to a .gguf file, or set providers.local.model_path" in english.stderr


def test_a_bad_option_names_its_fix_in_portuguese(tmp_path):
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text("[providers.local]\nthreads = 0\n")
    done = run_process([CHATCLI, "-p", "hello", "--provider", "local"], tmp_path,
                       CHATCLI_LANG="pt_BR")
    assert "providers.local.threads deve ser um número inteiro de 1 a" in done.stderr
    assert "corrija com `chatcli config set providers.local.threads 1`" in done.stderr


def test_the_description_and_options_are_translated(chatcli_language):
    chatcli_language("pt_BR")
    host = PluginHost()
    host.register(local_plugin, "local")
    spec = host.providers()["local"]
    assert spec.description.startswith("Um modelo pequeno que roda no próprio processo")
    assert spec.options["context_size"].description == "janela de contexto em tokens"
