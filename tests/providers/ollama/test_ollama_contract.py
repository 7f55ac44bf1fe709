"""The Ollama provider passes chatcli's provider conformance kit."""

from __future__ import annotations

from typing import Any

from chatcli import ProviderConfig
from chatcli_testing import ProviderContract


class TestOllamaContract(ProviderContract):
    server_fixture = "ollama_server"
    model = "llama-test"
    api_key = None  # a local, keyless service
    reports_cache_read_tokens = False  # /api/chat reports no cache tokens
    reports_cache_write_tokens = False
    wire_has_tool_call_ids = False  # the provider makes the ids
    malformed_tool_arguments_arrive_as_text = True  # as Ollama does when its parser fails

    def make_provider(self, server: Any, *, timeout: float = 30.0) -> Any:
        from chatcli_provider_ollama.provider import OllamaProvider

        return OllamaProvider(ProviderConfig(name="ollama", model=self.model,
                                             base_url=server.url, timeout=timeout))
