"""The OpenAI provider passes chatcli's provider conformance kit."""

from __future__ import annotations

from typing import Any

from _openai_testlib import TEST_KEY, preset
from chatcli import ProviderConfig
from chatcli_testing import ProviderContract


class TestOpenAIContract(ProviderContract):
    server_fixture = "openai_server"
    model = "gpt-test"
    api_key = TEST_KEY
    reports_cache_write_tokens = False  # the Chat Completions wire has no cache-write count

    def make_provider(self, server: Any, *, timeout: float = 30.0) -> Any:
        from chatcli_provider_openai.provider import OpenAIProvider

        config = ProviderConfig(name="openai", model=self.model, api_key=self.api_key,
                                base_url=server.url, timeout=timeout)
        return OpenAIProvider(config, preset=preset("openai"))
