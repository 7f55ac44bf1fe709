"""The Anthropic provider passes chatcli's provider conformance kit."""

from __future__ import annotations

from typing import Any

from chatcli import ProviderConfig
from chatcli_testing import ProviderContract


class TestAnthropicContract(ProviderContract):
    server_fixture = "anthropic_server"
    model = "claude-test"
    api_key = "sk-ant-test-0123456789abcdef"
    wire_input_excludes_cache = True  # Anthropic counts uncached input apart from cache tokens

    def make_provider(self, server: Any, *, timeout: float = 30.0) -> Any:
        from chatcli_provider_anthropic.provider import AnthropicProvider

        return AnthropicProvider(ProviderConfig(name="anthropic", model=self.model,
                                                api_key=self.api_key, base_url=server.url,
                                                timeout=timeout))
