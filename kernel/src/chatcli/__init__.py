"""chatcli: a terminal AI assistant built as a plugin-first microkernel.

The public API is re-exported here and imported lazily, so ``import chatcli`` (and
``chatcli --version``) stays cheap: each name loads its module on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # plugin contract
    "hookimpl": "chatcli.plugins",
    "hookspec": "chatcli.hookspecs",
    "PluginHost": "chatcli.plugins",
    # data model
    "Capabilities": "chatcli.types",
    "ChatRequest": "chatcli.types",
    "Decision": "chatcli.types",
    "ImagePart": "chatcli.types",
    "Message": "chatcli.types",
    "PromptSection": "chatcli.types",
    "Provider": "chatcli.types",
    "ProviderConfig": "chatcli.types",
    "ProviderSpec": "chatcli.types",
    "Risk": "chatcli.types",
    "Role": "chatcli.types",
    "SkillSource": "chatcli.types",
    "SlashCommand": "chatcli.types",
    "StopEvent": "chatcli.types",
    "StopReason": "chatcli.types",
    "StreamEvent": "chatcli.types",
    "TextDelta": "chatcli.types",
    "TextPart": "chatcli.types",
    "Tool": "chatcli.types",
    "ToolCallEvent": "chatcli.types",
    "ToolCallPart": "chatcli.types",
    "ToolContext": "chatcli.types",
    "ToolResultPart": "chatcli.types",
    "ToolSpec": "chatcli.types",
    "Usage": "chatcli.types",
    "UsageEvent": "chatcli.types",
    # conversation and engine
    "Checkpoint": "chatcli.conversation",
    "Conversation": "chatcli.conversation",
    "Engine": "chatcli.engine",
    "Settings": "chatcli.config",
    "load_settings": "chatcli.config",
    # errors
    "ChatcliError": "chatcli.errors",
    "ConfigError": "chatcli.errors",
    "ProviderError": "chatcli.errors",
    "AuthError": "chatcli.errors",
    "RateLimitError": "chatcli.errors",
    "ServerError": "chatcli.errors",
    "ProviderTimeoutError": "chatcli.errors",
    "NetworkError": "chatcli.errors",
    "StreamCutError": "chatcli.errors",
    "ContextTooLongError": "chatcli.errors",
    "ModelNotFoundError": "chatcli.errors",
    "BadRequestError": "chatcli.errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chatcli' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from chatcli.config import Settings, load_settings
    from chatcli.conversation import Checkpoint, Conversation
    from chatcli.engine import Engine
    from chatcli.errors import (
        AuthError,
        BadRequestError,
        ChatcliError,
        ConfigError,
        ContextTooLongError,
        ModelNotFoundError,
        NetworkError,
        ProviderError,
        ProviderTimeoutError,
        RateLimitError,
        ServerError,
        StreamCutError,
    )
    from chatcli.hookspecs import hookspec
    from chatcli.plugins import PluginHost, hookimpl
    from chatcli.types import (
        Capabilities,
        ChatRequest,
        Decision,
        ImagePart,
        Message,
        PromptSection,
        Provider,
        ProviderConfig,
        ProviderSpec,
        Risk,
        Role,
        SkillSource,
        SlashCommand,
        StopEvent,
        StopReason,
        StreamEvent,
        TextDelta,
        TextPart,
        Tool,
        ToolCallEvent,
        ToolCallPart,
        ToolContext,
        ToolResultPart,
        ToolSpec,
        Usage,
        UsageEvent,
    )
