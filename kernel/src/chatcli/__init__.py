"""chatcli: a terminal AI assistant built as a plugin-first microkernel.

This module is chatcli's public API: the names in ``__all__``. Every other module of the
``chatcli`` package is private (its name starts with ``_``) and may change without notice.
Names are imported lazily, so ``import chatcli`` (and ``chatcli --version``) stays cheap: each
name loads its module on first use.
"""

from __future__ import annotations

__version__ = "2.0.0"

_EXPORTS: dict[str, str] = {
    # the plugin contract
    "hookimpl": "chatcli._plugins",
    "hookspec": "chatcli.hookspecs",
    "PluginHost": "chatcli._plugins",
    "PluginFailure": "chatcli._plugins",
    "HookCalls": "chatcli._plugins",
    "Stash": "chatcli._stash",
    "StashKey": "chatcli._stash",
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
    "Risk": "chatcli._specs",
    "Role": "chatcli._types",
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
    "new_id": "chatcli._types",
    "safe_json": "chatcli._safetext",
    "safe_message": "chatcli._safetext",
    "safe_text": "chatcli._safetext",
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
    "project_config_path": "chatcli._config",
    "unknown_setting": "chatcli._config",
    "provider_key": "chatcli._providers",
    "raw_settings": "chatcli._layers",
    "parse_bool": "chatcli._layers",
    "mask_secrets": "chatcli._secrets",
    "key_file": "chatcli._keys",
    "stored_keys": "chatcli._keys",
    "validate_setting": "chatcli._config",
    "read_toml": "chatcli._tomlfile",
    "user_config_path": "chatcli._config",
    # workspace trust
    "ProjectTrust": "chatcli._trust",
    "SettingRule": "chatcli._trust",
    "ControlFile": "chatcli._trust",
    "project_trust": "chatcli._trust",
    "project_root": "chatcli._trust",
    "trusted_projects": "chatcli._trust",
    "trust_project": "chatcli._trust",
    "untrust_project": "chatcli._trust",
    "trust_notice": "chatcli._trust",
    "trust_summary": "chatcli._trust",
    "trust_waiting": "chatcli._trust",
    "atomic_write": "chatcli._paths",
    "cache_dir": "chatcli._paths",
    "config_dir": "chatcli._paths",
    "data_dir": "chatcli._paths",
    # front-end helpers
    "LazyGroup": "chatcli._cli.common",
    "cli_host": "chatcli._cli.common",
    "clean_text": "chatcli._cli.oneshot",
    "error_line": "chatcli._cli.common",
    "require_utf8": "chatcli._cli.common",
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

# For type checkers only: each public name with its real type (at run time the lazy
# __getattr__ below serves them, so `import chatcli` imports none of these modules).
# tests/packaging/test_typed_api.py keeps this block equal to _EXPORTS.
TYPE_CHECKING = False  # not `from typing import ...`: importing typing costs start-up time
if TYPE_CHECKING:
    from chatcli._app import ChatApp as ChatApp
    from chatcli._calls import Approval as Approval
    from chatcli._calls import ChatRequest as ChatRequest
    from chatcli._calls import Confinement as Confinement
    from chatcli._calls import FailedAttempt as FailedAttempt
    from chatcli._calls import PromptSection as PromptSection
    from chatcli._calls import StopEvent as StopEvent
    from chatcli._calls import StreamEvent as StreamEvent
    from chatcli._calls import TextDelta as TextDelta
    from chatcli._calls import Tool as Tool
    from chatcli._calls import ToolCallEvent as ToolCallEvent
    from chatcli._calls import ToolContext as ToolContext
    from chatcli._calls import ToolSpec as ToolSpec
    from chatcli._calls import UsageEvent as UsageEvent
    from chatcli._calls import Verdict as Verdict
    from chatcli._cli.common import LazyGroup as LazyGroup
    from chatcli._cli.common import cli_host as cli_host
    from chatcli._cli.common import error_line as error_line
    from chatcli._cli.common import require_utf8 as require_utf8
    from chatcli._cli.oneshot import clean_text as clean_text
    from chatcli._compaction import Compaction as Compaction
    from chatcli._compaction import CompactionJob as CompactionJob
    from chatcli._compaction import CompactionReport as CompactionReport
    from chatcli._compaction import CompactionStrategy as CompactionStrategy
    from chatcli._compaction import TokenCounter as TokenCounter
    from chatcli._compaction import apply_compactions as apply_compactions
    from chatcli._compaction import check_compaction as check_compaction
    from chatcli._compaction import describe_messages as describe_messages
    from chatcli._config import ModelSettings as ModelSettings
    from chatcli._config import ProviderSettings as ProviderSettings
    from chatcli._config import Settings as Settings
    from chatcli._config import load_settings as load_settings
    from chatcli._config import project_config_path as project_config_path
    from chatcli._config import unknown_setting as unknown_setting
    from chatcli._config import user_config_path as user_config_path
    from chatcli._config import validate_setting as validate_setting
    from chatcli._conversation import Checkpoint as Checkpoint
    from chatcli._conversation import Conversation as Conversation
    from chatcli._conversation import ConversationObserver as ConversationObserver
    from chatcli._engine import Compacted as Compacted
    from chatcli._engine import Engine as Engine
    from chatcli._engine import EngineEvent as EngineEvent
    from chatcli._engine import ToolFinished as ToolFinished
    from chatcli._engine import ToolStarted as ToolStarted
    from chatcli._engine import TurnFinished as TurnFinished
    from chatcli._engine import attach_hooks as attach_hooks
    from chatcli._errors import AuthError as AuthError
    from chatcli._errors import BadRequestError as BadRequestError
    from chatcli._errors import ChatcliError as ChatcliError
    from chatcli._errors import ConfigError as ConfigError
    from chatcli._errors import ContextTooLongError as ContextTooLongError
    from chatcli._errors import ModelNotFoundError as ModelNotFoundError
    from chatcli._errors import NetworkError as NetworkError
    from chatcli._errors import ProviderError as ProviderError
    from chatcli._errors import ProviderTimeoutError as ProviderTimeoutError
    from chatcli._errors import RateLimitError as RateLimitError
    from chatcli._errors import ServerError as ServerError
    from chatcli._errors import StreamCutError as StreamCutError
    from chatcli._errors import UsageError as UsageError
    from chatcli._errors import redact as redact
    from chatcli._errors import register_secret as register_secret
    from chatcli._keys import key_file as key_file
    from chatcli._keys import stored_keys as stored_keys
    from chatcli._layers import parse_bool as parse_bool
    from chatcli._layers import raw_settings as raw_settings
    from chatcli._paths import atomic_write as atomic_write
    from chatcli._paths import cache_dir as cache_dir
    from chatcli._paths import config_dir as config_dir
    from chatcli._paths import data_dir as data_dir
    from chatcli._plugins import HookCalls as HookCalls
    from chatcli._plugins import PluginFailure as PluginFailure
    from chatcli._plugins import PluginHost as PluginHost
    from chatcli._plugins import hookimpl as hookimpl
    from chatcli._providers import build_provider as build_provider
    from chatcli._providers import choose_provider as choose_provider
    from chatcli._providers import find_provider as find_provider
    from chatcli._providers import provider_key as provider_key
    from chatcli._providers import remote_models as remote_models
    from chatcli._safetext import safe_json as safe_json
    from chatcli._safetext import safe_message as safe_message
    from chatcli._safetext import safe_text as safe_text
    from chatcli._secrets import mask_secrets as mask_secrets
    from chatcli._session import Session as Session
    from chatcli._session import SessionOptions as SessionOptions
    from chatcli._specs import Author as Author
    from chatcli._specs import Capabilities as Capabilities
    from chatcli._specs import Decision as Decision
    from chatcli._specs import ModelLister as ModelLister
    from chatcli._specs import Provider as Provider
    from chatcli._specs import ProviderConfig as ProviderConfig
    from chatcli._specs import ProviderOption as ProviderOption
    from chatcli._specs import ProviderSpec as ProviderSpec
    from chatcli._specs import Risk as Risk
    from chatcli._specs import SlashCommand as SlashCommand
    from chatcli._specs import StopReason as StopReason
    from chatcli._stash import Stash as Stash
    from chatcli._stash import StashKey as StashKey
    from chatcli._streaming import Retrying as Retrying
    from chatcli._tomlfile import read_toml as read_toml
    from chatcli._trust import ControlFile as ControlFile
    from chatcli._trust import ProjectTrust as ProjectTrust
    from chatcli._trust import SettingRule as SettingRule
    from chatcli._trust import project_root as project_root
    from chatcli._trust import project_trust as project_trust
    from chatcli._trust import trust_notice as trust_notice
    from chatcli._trust import trust_project as trust_project
    from chatcli._trust import trust_summary as trust_summary
    from chatcli._trust import trust_waiting as trust_waiting
    from chatcli._trust import trusted_projects as trusted_projects
    from chatcli._trust import untrust_project as untrust_project
    from chatcli._types import ImagePart as ImagePart
    from chatcli._types import Message as Message
    from chatcli._types import Part as Part
    from chatcli._types import Role as Role
    from chatcli._types import TextPart as TextPart
    from chatcli._types import ToolCallPart as ToolCallPart
    from chatcli._types import ToolResultPart as ToolResultPart
    from chatcli._types import Usage as Usage
    from chatcli._types import new_id as new_id
    from chatcli.hookspecs import hookspec as hookspec


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
