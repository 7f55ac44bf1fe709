"""chatcli: a terminal AI assistant built as a plugin-first microkernel.

This module is chatcli's public API: the names in ``__all__``. Every other module of the
``chatcli`` package is private (its name starts with ``_``) and may change without notice.
Names are imported lazily, so ``import chatcli`` (and ``chatcli --version``) stays cheap: each
name loads its module on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "1.0.0"

_EXPORTS: dict[str, str] = {
    # the plugin contract
    "hookimpl": "chatcli._plugins",
    "hookspec": "chatcli.hookspecs",
    "PluginHost": "chatcli._plugins",
    "PluginFailure": "chatcli._plugins",
    # the data model
    "Capabilities": "chatcli._types",
    "ChatRequest": "chatcli._types",
    "Decision": "chatcli._types",
    "ImagePart": "chatcli._types",
    "Message": "chatcli._types",
    "Part": "chatcli._types",
    "PromptSection": "chatcli._types",
    "Provider": "chatcli._types",
    "ProviderConfig": "chatcli._types",
    "ProviderSpec": "chatcli._types",
    "Risk": "chatcli._types",
    "Role": "chatcli._types",
    "SkillSource": "chatcli._types",
    "SlashCommand": "chatcli._types",
    "StopEvent": "chatcli._types",
    "StopReason": "chatcli._types",
    "StreamEvent": "chatcli._types",
    "TextDelta": "chatcli._types",
    "TextPart": "chatcli._types",
    "Tool": "chatcli._types",
    "ToolCallEvent": "chatcli._types",
    "ToolCallPart": "chatcli._types",
    "ToolContext": "chatcli._types",
    "ToolResultPart": "chatcli._types",
    "ToolSpec": "chatcli._types",
    "Usage": "chatcli._types",
    "UsageEvent": "chatcli._types",
    "new_id": "chatcli._types",
    # conversation, engine, session
    "Checkpoint": "chatcli._conversation",
    "Conversation": "chatcli._conversation",
    "ConversationObserver": "chatcli._conversation",
    "Engine": "chatcli._engine",
    "EngineEvent": "chatcli._engine",
    "Retrying": "chatcli._retry",
    "ToolFinished": "chatcli._engine",
    "ToolStarted": "chatcli._engine",
    "TurnFinished": "chatcli._engine",
    "attach_hooks": "chatcli._engine",
    "build_provider": "chatcli._registry",
    "choose_provider": "chatcli._registry",
    "continue_with_session_model": "chatcli._registry",
    "find_provider": "chatcli._registry",
    "ChatApp": "chatcli._app",
    # settings and files
    "ProviderSettings": "chatcli._config",
    "Settings": "chatcli._config",
    "load_settings": "chatcli._config",
    "get_value": "chatcli._config",
    "set_value": "chatcli._config",
    "user_config_path": "chatcli._config",
    "atomic_write": "chatcli._paths",
    "config_dir": "chatcli._paths",
    "data_dir": "chatcli._paths",
    # front-end helpers
    "MarkdownStream": "chatcli._cli.render",
    "render_markdown": "chatcli._cli.render",
    # errors
    "ChatcliError": "chatcli._errors",
    "ConfigError": "chatcli._errors",
    "UsageError": "chatcli._errors",
    "ProviderError": "chatcli._errors",
    "AuthError": "chatcli._errors",
    "RateLimitError": "chatcli._errors",
    "ServerError": "chatcli._errors",
    "ProviderTimeoutError": "chatcli._errors",
    "NetworkError": "chatcli._errors",
    "StreamCutError": "chatcli._errors",
    "ContextTooLongError": "chatcli._errors",
    "ModelNotFoundError": "chatcli._errors",
    "BadRequestError": "chatcli._errors",
    "redact": "chatcli._errors",
    "register_secret": "chatcli._errors",
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
