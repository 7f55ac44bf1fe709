"""chatcli: a terminal AI assistant built as a plugin-first microkernel.

This module is chatcli's public API: the names in ``__all__``. Every other module of the
``chatcli`` package is private (its name starts with ``_``) and may change without notice.
Names are imported lazily, so ``import chatcli`` (and ``chatcli --version``) stays cheap: each
name loads its module on first use.
"""

from __future__ import annotations

__version__ = "2.0.0"

#: The public names, by the private module that defines each (``chatcli.<module>``).
_BY_MODULE: dict[str, str] = {
    "_app": "ChatApp",
    "_calls": (
        "Approval ChatRequest Confinement FailedAttempt FileAccess PromptSection StopEvent "
        "StreamEvent TextDelta Tool ToolCallEvent ToolContext ToolSpec UsageEvent Verdict"
    ),
    "_compaction": "Compaction CompactionOutcome TokenCounter apply_compactions",
    "_config": (
        "ModelSettings ProviderSettings Settings load_settings unknown_setting validate_setting"
    ),
    "_conversation": "Checkpoint Conversation",
    "_engine": (
        "Compacted Engine EngineEvent ToolFinished ToolStarted TurnFinished Use attach_hooks"
    ),
    "_errors": (
        "AuthError BadRequestError ChatcliError ConfigError ContextTooLongError "
        "ModelNotFoundError NetworkError ProviderError ProviderTimeoutError RateLimitError "
        "ServerError StreamCutError UsageError redact register_secret"
    ),
    "_i18n": "Translation answer_instruction forget_language language translation",
    "_keys": "stored_keys",
    "_layers": "parse_bool project_config_path raw_settings",
    "_managed": "check_managed managed_error managed_list managed_policy",
    "_paths": "atomic_write cache_dir config_dir data_dir",
    "_plugins": "HookCalls PluginFailure PluginHost hookimpl",
    "_providers": "build_provider choose_provider find_provider provider_key",
    "_safetext": "safe_json safe_message safe_text",
    "_session": "Session SessionOptions",
    "_specs": (
        "Author Capabilities Decision Provider ProviderConfig ProviderOption "
        "ProviderSpec Risk SlashCommand StopReason"
    ),
    "_stash": "Stash StashKey",
    "_streaming": "Retrying read_answer",
    "_tomlfile": "read_toml user_config_path",
    "_trust": (
        "ControlFile ProjectTrust SettingRule filter_project_layer project_root project_trust "
        "setting_rules trusted_projects"
    ),
    "_types": "ImagePart Message Part Role TextPart ToolCallPart ToolResultPart Usage new_id",
    "hookspecs": "hookspec",
    "_cli.common": "clean_text cli_host error_line require_utf8",
}
_EXPORTS: dict[str, str] = {
    name: f"chatcli.{module}" for module, names in _BY_MODULE.items() for name in names.split()
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
    from chatcli._calls import FileAccess as FileAccess
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
    from chatcli._cli.common import clean_text as clean_text
    from chatcli._cli.common import cli_host as cli_host
    from chatcli._cli.common import error_line as error_line
    from chatcli._cli.common import require_utf8 as require_utf8
    from chatcli._compaction import Compaction as Compaction
    from chatcli._compaction import CompactionOutcome as CompactionOutcome
    from chatcli._compaction import TokenCounter as TokenCounter
    from chatcli._compaction import apply_compactions as apply_compactions
    from chatcli._config import ModelSettings as ModelSettings
    from chatcli._config import ProviderSettings as ProviderSettings
    from chatcli._config import Settings as Settings
    from chatcli._config import load_settings as load_settings
    from chatcli._config import unknown_setting as unknown_setting
    from chatcli._config import validate_setting as validate_setting
    from chatcli._conversation import Checkpoint as Checkpoint
    from chatcli._conversation import Conversation as Conversation
    from chatcli._engine import Compacted as Compacted
    from chatcli._engine import Engine as Engine
    from chatcli._engine import EngineEvent as EngineEvent
    from chatcli._engine import ToolFinished as ToolFinished
    from chatcli._engine import ToolStarted as ToolStarted
    from chatcli._engine import TurnFinished as TurnFinished
    from chatcli._engine import Use as Use
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
    from chatcli._i18n import Translation as Translation
    from chatcli._i18n import answer_instruction as answer_instruction
    from chatcli._i18n import forget_language as forget_language
    from chatcli._i18n import language as language
    from chatcli._i18n import translation as translation
    from chatcli._keys import stored_keys as stored_keys
    from chatcli._layers import parse_bool as parse_bool
    from chatcli._layers import project_config_path as project_config_path
    from chatcli._layers import raw_settings as raw_settings
    from chatcli._managed import check_managed as check_managed
    from chatcli._managed import managed_error as managed_error
    from chatcli._managed import managed_list as managed_list
    from chatcli._managed import managed_policy as managed_policy
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
    from chatcli._safetext import safe_json as safe_json
    from chatcli._safetext import safe_message as safe_message
    from chatcli._safetext import safe_text as safe_text
    from chatcli._session import Session as Session
    from chatcli._session import SessionOptions as SessionOptions
    from chatcli._specs import Author as Author
    from chatcli._specs import Capabilities as Capabilities
    from chatcli._specs import Decision as Decision
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
    from chatcli._streaming import read_answer as read_answer
    from chatcli._tomlfile import read_toml as read_toml
    from chatcli._tomlfile import user_config_path as user_config_path
    from chatcli._trust import ControlFile as ControlFile
    from chatcli._trust import ProjectTrust as ProjectTrust
    from chatcli._trust import SettingRule as SettingRule
    from chatcli._trust import filter_project_layer as filter_project_layer
    from chatcli._trust import project_root as project_root
    from chatcli._trust import project_trust as project_trust
    from chatcli._trust import setting_rules as setting_rules
    from chatcli._trust import trusted_projects as trusted_projects
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
