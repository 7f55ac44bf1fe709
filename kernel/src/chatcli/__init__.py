"""chatcli: a terminal AI assistant built as a plugin-first microkernel.

This module is chatcli's public API: the names in ``__all__``. Every other module of the
``chatcli`` package is private (its name starts with ``_``) and may change without notice.
Names are imported lazily, so ``import chatcli`` (and ``chatcli --version``) stays cheap: each
name loads its module on first use.
"""

from __future__ import annotations

__version__ = "1.0.0"

_EXPORTS: dict[str, str] = {
    # the plugin contract
    "hookimpl": "chatcli._plugins",
    "hookspec": "chatcli.hookspecs",
    "PluginHost": "chatcli._plugins",
    "PluginFailure": "chatcli._plugins",
    "HookCalls": "chatcli._plugins",
    # the data model
    "Author": "chatcli._specs",
    "Capabilities": "chatcli._specs",
    "ChatRequest": "chatcli._calls",
    "FailedAttempt": "chatcli._calls",
    "Decision": "chatcli._specs",
    "ImagePart": "chatcli._types",
    "Message": "chatcli._types",
    "Part": "chatcli._types",
    "PromptSection": "chatcli._calls",
    "ModelLister": "chatcli._specs",
    "Provider": "chatcli._specs",
    "ProviderConfig": "chatcli._specs",
    "ProviderSpec": "chatcli._specs",
    "RestorePoint": "chatcli._specs",
    "Risk": "chatcli._specs",
    "Role": "chatcli._types",
    "SkillSource": "chatcli._specs",
    "SlashCommand": "chatcli._specs",
    "StopEvent": "chatcli._calls",
    "StopReason": "chatcli._specs",
    "StreamEvent": "chatcli._calls",
    "TextDelta": "chatcli._calls",
    "TextPart": "chatcli._types",
    "Tool": "chatcli._calls",
    "ToolCallEvent": "chatcli._calls",
    "ToolCallPart": "chatcli._types",
    "ToolContext": "chatcli._calls",
    "ToolResultPart": "chatcli._types",
    "ToolSpec": "chatcli._calls",
    "Usage": "chatcli._types",
    "Verdict": "chatcli._calls",
    "Confinement": "chatcli._calls",
    "Approval": "chatcli._calls",
    "UsageEvent": "chatcli._calls",
    "ProviderOption": "chatcli._specs",
    "PullKind": "chatcli._specs",
    "PersonaSource": "chatcli._specs",
    "new_id": "chatcli._types",
    "safe_json": "chatcli._safetext",
    "safe_message": "chatcli._safetext",
    "safe_text": "chatcli._safetext",
    # long-term memory
    "MemoryBackend": "chatcli._memory",
    "MemoryBackendSpec": "chatcli._memory",
    "MemoryHit": "chatcli._memory",
    "MemoryItem": "chatcli._memory",
    "MemoryKind": "chatcli._memory",
    "Provenance": "chatcli._memory",
    # compaction
    "Compaction": "chatcli._compaction",
    "CompactionJob": "chatcli._compaction",
    "CompactionReport": "chatcli._compaction",
    "CompactionStrategy": "chatcli._compaction",
    "TokenCounter": "chatcli._compaction",
    "apply_compactions": "chatcli._compaction",
    "check_compaction": "chatcli._compaction",
    "describe_messages": "chatcli._compaction",
    "Compacted": "chatcli._engine",
    # conversation, engine, session
    "Checkpoint": "chatcli._conversation",
    "Conversation": "chatcli._conversation",
    "ConversationObserver": "chatcli._conversation",
    "Engine": "chatcli._engine",
    "EngineEvent": "chatcli._engine",
    "Retrying": "chatcli._streaming",
    "CancellableStream": "chatcli._streaming",
    "ToolFinished": "chatcli._engine",
    "ToolStarted": "chatcli._engine",
    "TurnFinished": "chatcli._engine",
    "attach_hooks": "chatcli._engine",
    "Session": "chatcli._session",
    "SessionOptions": "chatcli._session",
    "build_provider": "chatcli._providers",
    "choose_provider": "chatcli._providers",
    "find_provider": "chatcli._providers",
    "remote_models": "chatcli._providers",
    "ChatApp": "chatcli._app",
    # settings and files
    "ModelSettings": "chatcli._config",
    "ProviderSettings": "chatcli._config",
    "Settings": "chatcli._config",
    "load_settings": "chatcli._config",
    "raw_settings": "chatcli._layers",
    "parse_bool": "chatcli._layers",
    "get_value": "chatcli._config",
    "mask_secrets": "chatcli._cli.config",
    "set_value": "chatcli._config",
    "user_config_path": "chatcli._config",
    # workspace trust
    "ProjectTrust": "chatcli._trust",
    "SettingRule": "chatcli._trust",
    "project_trust": "chatcli._trust",
    "trust_project": "chatcli._trust",
    "untrust_project": "chatcli._trust",
    "trust_notice": "chatcli._trust",
    "trust_summary": "chatcli._trust",
    "control_file_programs": "chatcli._trust_programs",
    "trust_waiting": "chatcli._trust",
    "atomic_write": "chatcli._paths",
    "cache_dir": "chatcli._paths",
    "config_dir": "chatcli._paths",
    "data_dir": "chatcli._paths",
    # front-end helpers
    "LazyGroup": "chatcli._cli.common",
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


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chatcli' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
