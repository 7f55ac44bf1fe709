"""chatcli_testing: fixtures and fakes for testing chatcli and its plugins.

Local HTTP servers speaking the real wire formats of OpenAI, Anthropic and Ollama (drive the
official SDKs against them), a scripted in-process provider, the ``chatcli_home`` fixture, and
``ProviderContract`` (conformance tests for provider plugins), ``MemoryBackendContract`` (for
memory backends) and ``SessionStoreContract`` (for session stores).
Names are imported lazily, so importing this package imports no SDK and no server code.
See README.md next to this file.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "Reply": "chatcli_testing.script",
    "ToolCall": "chatcli_testing.script",
    "Fault": "chatcli_testing.script",
    "RecordedRequest": "chatcli_testing.server_base",
    "ScriptedServer": "chatcli_testing.server_base",
    "OpenAIServer": "chatcli_testing.openai_wire",
    "AnthropicServer": "chatcli_testing.anthropic_wire",
    "OllamaServer": "chatcli_testing.ollama_wire",
    "ScriptedProvider": "chatcli_testing.scripted",
    "AddTool": "chatcli_testing.scripted",
    "scripted_plugin": "chatcli_testing.scripted",
    "reply_events": "chatcli_testing.scripted",
    "fault_error": "chatcli_testing.scripted",
    "isolate_environment": "chatcli_testing.pytest_plugin",
    "ProviderContract": "chatcli_testing.contract",
    "MemoryBackendContract": "chatcli_testing.memory_contract",
    "SessionStoreContract": "chatcli_testing.sessions_contract",
}

__all__ = [
    "AddTool",
    "AnthropicServer",
    "Fault",
    "MemoryBackendContract",
    "OllamaServer",
    "OpenAIServer",
    "ProviderContract",
    "RecordedRequest",
    "Reply",
    "ScriptedProvider",
    "ScriptedServer",
    "SessionStoreContract",
    "ToolCall",
    "fault_error",
    "isolate_environment",
    "reply_events",
    "scripted_plugin",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chatcli_testing' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from chatcli_testing.anthropic_wire import AnthropicServer
    from chatcli_testing.contract import ProviderContract
    from chatcli_testing.memory_contract import MemoryBackendContract
    from chatcli_testing.ollama_wire import OllamaServer
    from chatcli_testing.openai_wire import OpenAIServer
    from chatcli_testing.pytest_plugin import isolate_environment
    from chatcli_testing.script import Fault, Reply, ToolCall
    from chatcli_testing.scripted import (
        AddTool,
        ScriptedProvider,
        fault_error,
        reply_events,
        scripted_plugin,
    )
    from chatcli_testing.server_base import RecordedRequest, ScriptedServer
    from chatcli_testing.sessions_contract import SessionStoreContract
