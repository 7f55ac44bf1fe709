"""What the services serve: each provider's list_models() through its SDK against the local wire
servers, chatcli_provider_kit.remote_models(), and ``chatcli models --remote [PROVIDER]`` run
for real (one line per failing provider, exit codes 0 / 1 service / 2 set-up)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import chatcli_provider_anthropic.plugin as anthropic_plugin
import chatcli_provider_ollama.plugin as ollama_plugin
import chatcli_provider_openai.plugin as openai_plugin
import pytest
from chatcli import (
    Capabilities,
    ConfigError,
    NetworkError,
    PluginHost,
    ProviderError,
    ProviderSpec,
    Settings,
    UsageError,
    build_provider,
)
from chatcli_provider_kit import ModelLister, remote_models

KEY = "sk-remote-models-0123456789SECRET"


def host() -> PluginHost:
    h = PluginHost(warn=lambda line: None)
    for name, module in (("openai", openai_plugin), ("anthropic", anthropic_plugin),
                         ("ollama", ollama_plugin)):
        h.register(module, name)
    return h


def spec(name: str) -> ProviderSpec:
    return host().providers()[name]


def closed_port_url(suffix: str = "/v1") -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}{suffix}"


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("CHATCLI_") and not k.endswith(("_API_KEY", "_TOKEN"))
             and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")}
    clean.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                 CHATCLI_CACHE_DIR=str(home / "cache"), **env)
    chatcli = Path(sys.executable).parent / "chatcli"
    return subprocess.run([str(chatcli), "models", *args], capture_output=True, text=True,
                          timeout=60, env=clean, cwd=home, stdin=subprocess.DEVNULL)


# ------------------------------------------------------------------ each provider, its SDK


def test_openai_lists_get_v1_models_with_the_bearer_key(openai_server, chatcli_home,
                                                        monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    openai_server.models = ["gpt-5.4-mini", "gpt-4.1", "gpt-5.4-mini"]
    settings = Settings(providers={"openai": {"base_url": openai_server.url}})
    assert remote_models(spec("openai"), settings) == ["gpt-5.4-mini", "gpt-4.1"]
    sent = openai_server.requests[-1]
    assert (sent.method, sent.path) == ("GET", "/v1/models")
    assert sent.headers["authorization"] == f"Bearer {KEY}"


def test_github_models_come_from_its_catalog(openai_server, chatcli_home, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", KEY)
    openai_server.models = ["openai/gpt-4.1", "meta/Llama-4-Scout-17B-16E-Instruct"]
    settings = Settings(providers={"github": {"base_url": openai_server.url}})
    assert remote_models(spec("github"), settings) == openai_server.models
    assert openai_server.requests[-1].path == "/catalog/models"
    assert openai_server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


def test_gemini_ids_lose_their_models_prefix(openai_server, chatcli_home, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    openai_server.models = ["models/gemini-3.5-flash", "models/gemini-2.5-pro"]
    settings = Settings(providers={"gemini": {"base_url": openai_server.url}})
    assert remote_models(spec("gemini"), settings) == ["gemini-3.5-flash", "gemini-2.5-pro"]


def test_anthropic_lists_through_its_sdk(anthropic_server, chatcli_home, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    anthropic_server.models = ["claude-sonnet-5-5", "claude-haiku-4-5"]
    assert remote_models(spec("anthropic"), Settings()) == anthropic_server.models
    sent = anthropic_server.requests[-1]
    assert sent.path.split("?")[0] == "/v1/models"
    assert KEY in (sent.headers.get("x-api-key"), sent.headers.get("authorization", "")[7:])


def test_ollama_lists_its_tags(ollama_server, chatcli_home, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", ollama_server.url)
    ollama_server.models = ["llama3.2:latest", "qwen3:8b"]
    assert remote_models(spec("ollama"), Settings()) == ["llama3.2:latest", "qwen3:8b"]
    assert ollama_server.requests[-1].path == "/api/tags"


def test_every_listing_provider_is_a_model_lister(chatcli_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    for name in ("openai", "anthropic", "ollama"):
        provider, _ = build_provider(spec(name), Settings())
        assert spec(name).capabilities.model_list and isinstance(provider, ModelLister), name
    assert not spec("perplexity").capabilities.model_list
    assert not spec("azure").capabilities.model_list


# ------------------------------------------------------------------ the kernel's errors


def test_unreachable_service_is_a_network_error(chatcli_home, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings = Settings(providers={"openai": {"base_url": closed_port_url()}})
    with pytest.raises(NetworkError) as info:
        remote_models(spec("openai"), settings)
    assert "cannot reach" in str(info.value) and KEY not in str(info.value)


def test_no_key_is_the_config_error(chatcli_home):
    with pytest.raises(ConfigError) as info:
        remote_models(spec("mistral"), Settings())
    assert "MISTRAL_API_KEY" in str(info.value)


def test_a_provider_without_the_capability_says_so(chatcli_home, monkeypatch):
    monkeypatch.setenv("PERPLEXITY_API_KEY", KEY)
    with pytest.raises(UsageError) as info:
        remote_models(spec("perplexity"), Settings())
    assert "does not list" in str(info.value)


class _Broken:
    def stream(self, request):  # pragma: no cover - never called
        yield from ()

    def list_models(self):
        raise RuntimeError("plugin bug\nsecond line")


class _Claims:
    def stream(self, request):  # pragma: no cover - never called
        yield from ()


@pytest.mark.parametrize(("provider", "words"), [(_Broken, "RuntimeError: plugin bug second"),
                                                 (_Claims, "has no list_models()")])
def test_a_misbehaving_plugin_is_one_provider_error(provider, words, chatcli_home):
    fake = ProviderSpec(name="fake", display_name="Fake", factory=lambda c: provider(),
                        default_model="m", requires_key=False,
                        capabilities=Capabilities(model_list=True))
    with pytest.raises(ProviderError) as info:
        remote_models(fake, Settings())
    assert words in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------ chatcli models --remote


def test_remote_provider_prints_one_id_per_line(openai_server, chatcli_home):
    openai_server.models = ["gpt-a", "gpt-b"]
    done = run(chatcli_home, "--remote", "openai", OPENAI_API_KEY=KEY,
               OPENAI_BASE_URL=openai_server.url)
    assert (done.returncode, done.stdout, done.stderr) == (0, "gpt-a\ngpt-b\n", "")


def test_a_provider_name_implies_remote(openai_server, chatcli_home):
    openai_server.models = ["gpt-a"]
    done = run(chatcli_home, "openai", OPENAI_API_KEY=KEY, OPENAI_BASE_URL=openai_server.url)
    assert done.stdout == "gpt-a\n"


def test_remote_asks_every_provider_with_a_key(openai_server, anthropic_server, chatcli_home):
    openai_server.models = ["gpt-a"]
    anthropic_server.models = ["claude-x"]
    done = run(chatcli_home, "--remote", OPENAI_API_KEY=KEY, OPENAI_BASE_URL=openai_server.url,
               ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=anthropic_server.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["anthropic/claude-x", "openai/gpt-a"]
    # Ollama (keyless, not configured) and Perplexity (no list) were not asked
    assert "ollama" not in done.stdout + done.stderr


def test_a_failing_provider_is_one_line_and_the_others_still_list(openai_server, chatcli_home):
    openai_server.models = ["gpt-a"]
    done = run(chatcli_home, "--remote", OPENAI_API_KEY=KEY, OPENAI_BASE_URL=openai_server.url,
               ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=closed_port_url(""))
    assert done.returncode == 1
    assert done.stdout == "openai/gpt-a\n"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: anthropic: cannot reach")
    assert KEY not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "env", "code", "words"), [
    (("--remote", "mistral"), {}, 2, "MISTRAL_API_KEY"),
    (("--remote", "perplexity"), {"PERPLEXITY_API_KEY": KEY}, 2, "does not list"),
    (("--remote", "opneai"), {}, 2, "did you mean 'openai'"),
    (("--remote", "ollama"), {"OLLAMA_HOST": closed_port_url("")}, 1, "Ollama"),
])
def test_remote_errors_are_one_line_with_a_sensible_exit_code(args, env, code, words,
                                                              chatcli_home):
    done = run(chatcli_home, *args, **env)
    assert done.returncode == code, done.stderr
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr


def test_listing_keyless_servers_only_when_configured(ollama_server, chatcli_home):
    ollama_server.models = ["llama3.2:latest"]
    done = run(chatcli_home, "--remote", OLLAMA_HOST=ollama_server.url)
    assert done.stdout == "ollama/llama3.2:latest\n"


def test_models_without_remote_asks_no_service_and_imports_no_sdk(chatcli_home):
    code = ("import sys; from chatcli_cli.root import run; run(['models']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('openai', 'anthropic', 'ollama', 'httpx', 'httpx2')), file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATCLI_")}
    env.update(CHATCLI_CONFIG_DIR=str(chatcli_home / "config"),
               CHATCLI_DATA_DIR=str(chatcli_home / "data"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "[]"
