"""Fixtures of the OpenAI provider tests: a provider pointed at the local ``openai_server``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _openai_testlib import TEST_KEY, preset
from chatcli import ProviderConfig


@pytest.fixture
def make_provider(openai_server: Any, chatcli_home: Any) -> Iterator[Callable[..., Any]]:
    """Build an ``OpenAIProvider`` for ``openai_server``; closed after the test."""
    from chatcli_provider_openai.provider import OpenAIProvider

    built: list[OpenAIProvider] = []

    def make(name: str = "openai", *, api_key: str | None = TEST_KEY, timeout: float = 10.0,
             model: str = "gpt-test", **options: Any) -> OpenAIProvider:
        config = ProviderConfig(name=name, model=model, api_key=api_key,
                                base_url=openai_server.url, timeout=timeout, options=options)
        provider = OpenAIProvider(config, preset=preset(name))
        built.append(provider)
        return provider

    yield make
    for provider in built:
        provider.close()
