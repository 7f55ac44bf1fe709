"""The registered specs: every preset resolves its key and URL; the entry module stays light."""

from __future__ import annotations

import os
import subprocess
import sys

import chatcli_provider_openai.plugin as openai_plugin
import pytest
from _openai_testlib import TEST_KEY, ask
from chatcli import (
    ConfigError,
    PluginHost,
    ProviderSpec,
    Settings,
    TextDelta,
    build_provider,
    choose_provider,
    hookimpl,
)
from chatcli_testing import Reply

EXPECTED = {
    # name: (key variable or None, base URL, URL variable, requires key)
    "openai": ("OPENAI_API_KEY", "https://api.openai.com/v1", "OPENAI_BASE_URL", True),
    "xai": ("XAI_API_KEY", "https://api.x.ai/v1", None, True),
    "zai": ("ZAI_API_KEY", "https://api.z.ai/api/paas/v4", None, True),
    "minimax": ("MINIMAX_API_KEY", "https://api.minimax.io/v1", None, True),
    "moonshot": ("MOONSHOT_API_KEY", "https://api.moonshot.ai/v1", None, True),
    "openrouter": ("OPENROUTER_API_KEY", "https://openrouter.ai/api/v1", None, True),
    "deepseek": ("DEEPSEEK_API_KEY", "https://api.deepseek.com/v1", None, True),
    "groq": ("GROQ_API_KEY", "https://api.groq.com/openai/v1", None, True),
    "gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY"),
               "https://generativelanguage.googleapis.com/v1beta/openai", None, True),
    "github": ("GITHUB_TOKEN", "https://models.github.ai/inference", None, True),
    "mistral": ("MISTRAL_API_KEY", "https://api.mistral.ai/v1", None, True),
    "together": ("TOGETHER_API_KEY", "https://api.together.ai/v1", None, True),
    "fireworks": ("FIREWORKS_API_KEY", "https://api.fireworks.ai/inference/v1", None, True),
    "cerebras": ("CEREBRAS_API_KEY", "https://api.cerebras.ai/v1", None, True),
    "perplexity": (("PERPLEXITY_API_KEY", "PPLX_API_KEY"), "https://api.perplexity.ai", None,
                   True),
    "azure": ("AZURE_OPENAI_API_KEY", None, "AZURE_OPENAI_ENDPOINT", True),
    "lmstudio": (None, "http://localhost:1234/v1", "LMSTUDIO_BASE_URL", False),
    "vllm": ("VLLM_API_KEY", "http://localhost:8000/v1", "VLLM_BASE_URL", False),
}


def registered_specs() -> dict[str, ProviderSpec]:
    host = PluginHost()
    host.register(openai_plugin, "openai")
    return host.providers()


@pytest.fixture
def no_provider_env(monkeypatch):
    keys = {k for v in EXPECTED.values() if v[0]
            for k in (v[0] if isinstance(v[0], tuple) else (v[0],))}
    for name in keys | {v[2] for v in EXPECTED.values() if v[2]}:
        monkeypatch.delenv(name, raising=False)


def test_every_preset_is_registered_with_its_data():
    specs = registered_specs()
    assert set(specs) == set(EXPECTED)
    for name, (key, url, url_env, requires_key) in EXPECTED.items():
        spec = specs[name]
        keys = list(key) if isinstance(key, tuple) else [key] if key else []
        assert spec.env_keys == keys, name
        assert spec.base_url == url, name
        assert spec.base_url_env == url_env, name
        assert spec.requires_key is requires_key, name
        assert spec.default_model, name
        assert spec.display_name, name


def test_keyless_presets_never_beat_the_offline_default(chatcli_home, no_provider_env):
    specs = registered_specs()
    assert all(s.priority <= 5 for s in specs.values() if not s.requires_key)

    class Offline:  # stands in for chatcli-provider-local (priority 10, keyless)
        @hookimpl
        def register_providers(self, register):
            register(ProviderSpec(name="local", display_name="Local", factory=lambda c: None,
                                  default_model="smol", requires_key=False, priority=10))

    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(Offline(), "local")
    assert choose_provider(host, Settings()).name == "local"


@pytest.mark.parametrize("name", sorted(n for n, v in EXPECTED.items()
                                        if isinstance(v[0], str) and v[1]))
def test_each_preset_resolves_key_and_url(name, chatcli_home, no_provider_env, monkeypatch):
    key_var, url, _url_env, _requires = EXPECTED[name]
    monkeypatch.setenv(key_var, TEST_KEY)
    host = PluginHost()
    host.register(openai_plugin, "openai")
    settings = Settings()
    if EXPECTED[name][3] and name != "github":  # keyed presets are chosen once their key is set
        assert choose_provider(host, settings).name == name
    provider, config = build_provider(host.providers()[name], settings)
    assert config.api_key == TEST_KEY
    assert config.base_url == url
    assert config.model == host.providers()[name].default_model
    assert str(provider.client.base_url).rstrip("/") == url
    assert all(TEST_KEY not in shown for shown in (repr(config), str(config), f"{config}"))


def test_keyed_preset_without_key_says_which_variable(chatcli_home, no_provider_env):
    host = PluginHost()
    host.register(openai_plugin, "openai")
    with pytest.raises(ConfigError) as info:
        build_provider(host.providers()["xai"], Settings())
    assert "XAI_API_KEY" in str(info.value) and info.value.exit_code == 2


def test_local_url_variables_redirect_keyless_presets(chatcli_home, no_provider_env, monkeypatch):
    monkeypatch.setenv("LMSTUDIO_BASE_URL", "http://10.0.0.5:1234/v1")
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box:8000/v1")
    specs = registered_specs()
    _, lm = build_provider(specs["lmstudio"], Settings())
    _, vl = build_provider(specs["vllm"], Settings())
    assert (lm.base_url, lm.api_key) == ("http://10.0.0.5:1234/v1", None)
    assert (vl.base_url, vl.api_key) == ("http://gpu-box:8000/v1", None)


def test_openai_base_url_redirects_the_openai_provider(
        openai_server, chatcli_home, no_provider_env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    openai_server.script(Reply(text="redirected"))
    specs = registered_specs()
    provider, config = build_provider(specs["openai"], Settings(model="gpt-test"))
    assert config.base_url == openai_server.url
    text = "".join(e.text for e in provider.stream(ask()) if isinstance(e, TextDelta))
    assert text == "redirected"
    assert openai_server.requests[-1].headers["authorization"] == f"Bearer {TEST_KEY}"


def test_config_table_overrides_url_and_model(openai_server, chatcli_home, no_provider_env,
                                              monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", TEST_KEY)
    settings = Settings(providers={"deepseek": {
        "base_url": openai_server.url, "model": "deepseek-test", "max_tokens_param": "max_tokens"}})
    provider, config = build_provider(registered_specs()["deepseek"], settings)
    assert config.model == "deepseek-test"
    list(provider.stream(ask(model=config.model)))
    assert openai_server.requests[-1].json["model"] == "deepseek-test"


def test_entry_module_imports_no_sdk():
    code = (
        "import sys, chatcli_provider_openai.plugin as p\n"
        "from chatcli import PluginHost\n"
        "h = PluginHost(); h.register(p, 'openai'); assert len(h.providers()) == 18\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('openai', 'httpx2', 'httpx', 'anthropic')))\n"
    )
    env = {**os.environ, "CHATCLI_PLUGINS": "none"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.strip() == "[]"
