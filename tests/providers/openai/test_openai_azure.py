"""Azure OpenAI through the SDK's AzureOpenAI client: the deployment path, the api-version query,
the api-key header, where each setting comes from, and the errors of a missing one."""

from __future__ import annotations

import chatcli_provider_openai.plugin as openai_plugin
import pytest
from _openai_testlib import TEST_KEY, ask, run_chatcli
from chatcli import ConfigError, PluginHost, Settings, TextDelta, build_provider
from chatcli_provider_openai.presets import AZURE_API_VERSION
from chatcli_testing import Reply


def azure_spec():
    host = PluginHost()
    host.register(openai_plugin, "openai")
    return host.providers()["azure"]


def answer(provider, **kw) -> str:
    try:
        return "".join(e.text for e in provider.stream(ask(**kw)) if isinstance(e, TextDelta))
    finally:
        provider.close()


@pytest.fixture
def azure_env(chatcli_home, monkeypatch):
    for name in ("AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION", "AZURE_OPENAI_AD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", TEST_KEY)
    return monkeypatch


def test_the_deployment_path_api_version_and_api_key_header(openai_server, azure_env):
    settings = Settings(providers={"azure": {
        "endpoint": openai_server.root_url, "deployment": "prod-gpt",
        "api_version": "2025-04-01-preview"}})
    provider, config = build_provider(azure_spec(), settings)
    openai_server.script(Reply(text="from azure"))
    assert answer(provider, model=config.model, max_tokens=32) == "from azure"
    sent = openai_server.requests[-1]
    assert sent.path == ("/openai/deployments/prod-gpt/chat/completions"
                         "?api-version=2025-04-01-preview")
    assert sent.headers["api-key"] == TEST_KEY
    assert "authorization" not in sent.headers
    assert sent.json["max_completion_tokens"] == 32


def test_endpoint_and_version_from_the_variables_and_the_model_as_deployment(
        openai_server, azure_env):
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", openai_server.root_url + "/")
    azure_env.setenv("OPENAI_API_VERSION", "2024-12-01-preview")
    provider, config = build_provider(azure_spec(), Settings(), model="gpt-4o-deploy")
    openai_server.script(Reply(text="ok"))
    assert answer(provider, model=config.model) == "ok"
    sent = openai_server.requests[-1]
    assert sent.path == ("/openai/deployments/gpt-4o-deploy/chat/completions"
                         "?api-version=2024-12-01-preview")


def test_the_default_api_version(openai_server, azure_env):
    settings = Settings(providers={"azure": {"endpoint": openai_server.root_url}})
    provider, config = build_provider(azure_spec(), settings)
    openai_server.script(Reply(text="ok"))
    answer(provider, model=config.model)
    assert openai_server.requests[-1].path.endswith(f"?api-version={AZURE_API_VERSION}")
    assert f"/deployments/{azure_spec().default_model}/" in openai_server.requests[-1].path


def test_no_endpoint_is_a_config_error_naming_both_places(azure_env):
    with pytest.raises(ConfigError) as info:
        build_provider(azure_spec(), Settings())
    assert "AZURE_OPENAI_ENDPOINT" in str(info.value) and "[providers.azure] endpoint" in str(
        info.value)
    assert info.value.exit_code == 2


def test_no_key_names_the_variable(chatcli_home, monkeypatch):
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as info:
        build_provider(azure_spec(), Settings(providers={"azure": {"endpoint": "https://x.y"}}))
    assert "AZURE_OPENAI_API_KEY" in str(info.value)


def test_a_typo_in_the_azure_table_is_refused(azure_env):
    with pytest.raises(ConfigError) as info:
        build_provider(azure_spec(), Settings(providers={"azure": {"deploymnet": "x"}}))
    assert "deployment" in str(info.value)


def test_chatcli_p_answers_from_an_azure_deployment(openai_server, chatcli_home):
    openai_server.script(Reply(text="Azure says hi"))
    done = run_chatcli(chatcli_home, "-p", "hello", "--provider", "azure", "--raw",
                       AZURE_OPENAI_API_KEY=TEST_KEY,
                       AZURE_OPENAI_ENDPOINT=openai_server.root_url,
                       CHATCLI_PROVIDERS__AZURE__DEPLOYMENT="chat-deploy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Azure says hi"
    assert openai_server.requests[-1].path.startswith("/openai/deployments/chat-deploy/")
    assert TEST_KEY not in done.stdout + done.stderr


def test_chatcli_p_without_an_endpoint_is_one_line_exit_2(chatcli_home):
    done = run_chatcli(chatcli_home, "-p", "hello", "--provider", "azure",
                       AZURE_OPENAI_API_KEY=TEST_KEY)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "AZURE_OPENAI_ENDPOINT" in done.stderr and "Traceback" not in done.stderr
