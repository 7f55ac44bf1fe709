"""chatcli-provider-openai in Brazilian Portuguese: its errors with their fixes, its options' and
presets' descriptions; English unchanged."""

from __future__ import annotations

import chatcli_provider_openai.plugin as openai_plugin
import openai
from _openai_testlib import TEST_KEY, run_chatcli
from chatcli import PluginHost
from chatcli_provider_openai.errors import ErrorContext, map_error


def test_a_missing_azure_endpoint_is_told_in_portuguese(chatcli_home):
    args = ("-p", "hello", "--provider", "azure")
    done = run_chatcli(chatcli_home, *args, AZURE_OPENAI_API_KEY=TEST_KEY, CHATCLI_LANG="pt_BR")
    assert done.returncode != 0
    assert "nenhum endpoint do Azure OpenAI está configurado" in done.stderr
    assert "ou exporte AZURE_OPENAI_ENDPOINT" in done.stderr
    english = run_chatcli(chatcli_home, *args, AZURE_OPENAI_API_KEY=TEST_KEY, CHATCLI_LANG="en")
    assert "no Azure OpenAI endpoint is configured" in english.stderr
    assert "or export AZURE_OPENAI_ENDPOINT" in english.stderr


def test_errors_keep_the_service_words_inside_the_translated_sentence(chatcli_language):
    ctx = ErrorContext(name="lmstudio", display_name="LM Studio", base_url="http://h/v1",
                       model="m", timeout=7, env_keys=("A_KEY", "B_KEY"),
                       base_url_env="LMSTUDIO_BASE_URL")
    request = openai.APITimeoutError.__new__(openai.APITimeoutError)
    chatcli_language("pt_BR")
    err = map_error(request, ctx)
    assert err.message == "LM Studio não respondeu em 7s"
    assert err.hint == "tente de novo ou aumente [providers.lmstudio].timeout"
    chatcli_language("en")
    err = map_error(request, ctx)
    assert err.message == "LM Studio did not answer within 7s"


def test_option_and_preset_descriptions_are_translated(chatcli_language):
    chatcli_language("pt_BR")
    host = PluginHost()
    host.register(openai_plugin, "openai")
    groq = host.providers()["groq"]
    assert groq.description == "Inferência rápida de modelos abertos na Groq."
    assert groq.options["headers"].description == "cabeçalhos HTTP extras"
