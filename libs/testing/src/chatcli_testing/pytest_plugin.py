"""The pytest plugin (entry point ``pytest11: chatcli``): server fixtures and ``chatcli_home``.

Loaded by every pytest run in an environment where chatcli-testing is installed (a test
dependency, never chatcli itself), so it imports only the standard library and pytest at
start-up; the servers load when a fixture is first used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from chatcli_testing.anthropic_wire import AnthropicServer
    from chatcli_testing.ollama_wire import OllamaServer
    from chatcli_testing.openai_wire import OpenAIServer

__all__ = [
    "anthropic_server",
    "chatcli_home",
    "isolate_environment",
    "ollama_server",
    "openai_server",
]

#: Variables that would let the user's real environment leak into a test.
LEAKY_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_HOST",
    "GITHUB_TOKEN",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
    "OPENAI_API_VERSION",
)


def isolate_environment(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    """Point chatcli's config, data and cache dirs at ``home``/config, /data and /cache (made
    here), clear provider keys, base URLs and CHATCLI_*, and speak English (``CHATCLI_LANG=en``:
    a test of another language sets it); returns ``home``."""
    for name in list(os.environ):
        if (name in LEAKY_VARIABLES or name.startswith("CHATCLI_")
                or name.endswith("_API_KEY")):
            monkeypatch.delenv(name, raising=False)
    config, data, cache = home / "config", home / "data", home / "cache"
    for folder in (config, data, cache):
        folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("CHATCLI_CACHE_DIR", str(cache))
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(config))
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(data))
    monkeypatch.setenv("CHATCLI_LANG", "en")
    return home


@pytest.fixture
def chatcli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary chatcli home: ``CHATCLI_CONFIG_DIR`` = ``<home>/config``, ``CHATCLI_DATA_DIR``
    = ``<home>/data``, ``CHATCLI_CACHE_DIR`` = ``<home>/cache`` (all three made); provider keys,
    base URLs and other ``CHATCLI_*`` variables are cleared."""
    return isolate_environment(monkeypatch, tmp_path / "chatcli-home")


@pytest.fixture
def chatcli_language(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """``chatcli_language("pt_BR")``: chatcli speaks that language from then on in the test
    (``CHATCLI_LANG`` set, catalogs read again). Text made when a module was imported (click's
    help, constants) keeps the language it was made in: run the command line in a subprocess
    with ``CHATCLI_LANG`` to see those."""
    from chatcli import forget_language

    def use(code: str) -> None:
        monkeypatch.setenv("CHATCLI_LANG", code)
        forget_language()

    yield use
    monkeypatch.setenv("CHATCLI_LANG", "en")
    forget_language()


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started :class:`chatcli_testing.OpenAIServer` (``url`` ends in ``/v1``)."""
    from chatcli_testing.openai_wire import OpenAIServer

    with OpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A started :class:`chatcli_testing.AnthropicServer`."""
    from chatcli_testing.anthropic_wire import AnthropicServer

    with AnthropicServer() as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    """A started :class:`chatcli_testing.OllamaServer`."""
    from chatcli_testing.ollama_wire import OllamaServer

    with OllamaServer() as server:
        yield server
