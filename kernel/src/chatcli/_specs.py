"""What plugins register and what flows between the engine and a provider: plain dataclasses.

These types describe features (a provider, a tool, a slash command, a skill folder, a prompt
section) and one model call (:class:`ChatRequest`, the stream events). They import neither
pydantic nor anything heavy, so registering a provider or listing them (``chatcli models``) stays
cheap. The conversation's messages, which are stored and validated, live in :mod:`chatcli._types`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pydantic import BaseModel

    from chatcli._config import Settings
    from chatcli._types import Message, ToolCallPart, Usage

__all__ = [
    "TOOL_NAME_PATTERN",
    "Capabilities",
    "ChatRequest",
    "Decision",
    "PromptSection",
    "Provider",
    "ProviderConfig",
    "ProviderOption",
    "ProviderSpec",
    "Risk",
    "SkillSource",
    "SlashCommand",
    "StopEvent",
    "StopReason",
    "StreamEvent",
    "TextDelta",
    "Tool",
    "ToolCallEvent",
    "ToolContext",
    "ToolSpec",
    "UsageEvent",
]

#: What providers accept as a tool name (OpenAI's and Anthropic's rule).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Risk(StrEnum):
    """What a tool can do, which decides whether it needs the user's say-so."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    NETWORK = "network"


class Decision(StrEnum):
    """An answer of the ``authorize_tool_call`` hook."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


class StopReason(StrEnum):
    """Why the model stopped producing output."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    TURN_LIMIT = "turn_limit"


# --------------------------------------------------------------------------------------------
# The prompt and one model call
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptSection:
    """One contribution to the system prompt.

    Stable sections come first and may be cached by providers that support prompt caching;
    volatile sections (``stable=False``: the date, retrieved memory) come after them so they never
    break the cached prefix. Within each group, sections are ordered by ``order`` then ``name``.
    """

    name: str
    text: str
    stable: bool = True
    order: int = 100


@dataclass(frozen=True)
class ToolSpec:
    """What the model sees of a tool: name, description, JSON schema of its arguments, risk."""

    name: str
    description: str
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}})
    risk: Risk = Risk.READ


@dataclass
class ChatRequest:
    """Everything a provider needs for one model call.

    ``before_request`` implementations may change it in place before it is sent.
    """

    model: str
    system: list[PromptSection] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int | None = None
    temperature: float | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def ordered_system(self) -> list[PromptSection]:
        """System sections in prompt order: stable ones first, then volatile ones."""
        return sorted(self.system, key=lambda s: (not s.stable, s.order, s.name))

    def system_text(self) -> str:
        """The whole system prompt as one string (for providers without section support)."""
        return "\n\n".join(s.text for s in self.ordered_system() if s.text)


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text, in arrival order."""

    text: str
    type: str = "text"


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """A complete tool call (providers assemble streamed argument fragments before yielding)."""

    call: ToolCallPart
    type: str = "tool_call"


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Token usage reported by the provider (may arrive more than once; later values win)."""

    usage: Usage
    type: str = "usage"


@dataclass(frozen=True, slots=True)
class StopEvent:
    """The last event of a response: why it stopped and which model answered."""

    reason: StopReason = StopReason.END_TURN
    model: str | None = None
    type: str = "stop"


#: What :meth:`Provider.stream` yields.
StreamEvent = TextDelta | ToolCallEvent | UsageEvent | StopEvent


# --------------------------------------------------------------------------------------------
# Providers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Capabilities:
    """What a provider supports."""

    streaming: bool = True
    native_tools: bool = True
    prompt_caching: bool = False
    vision: bool = False


@dataclass(frozen=True)
class ProviderOption:
    """A provider-specific setting accepted in its ``[providers.NAME]`` table.

    ``type`` is what the value must be (``str``, ``int``, ``float``, ``bool``, ``list`` or
    ``dict``, or a tuple of them); ``items`` is the type of a list's items or a dict's values.
    The kernel checks the table against these before the provider is built, so a wrong value is
    a configuration error naming the file, the key and the expected type.
    """

    type: type | tuple[type, ...]
    description: str = ""
    items: type | tuple[type, ...] | None = None


@dataclass(repr=False)
class ProviderConfig:
    """What the kernel hands to a provider factory: resolved key, URL, model and limits.

    ``options`` holds the provider-specific keys of ``[providers.NAME]``, already checked against
    :attr:`ProviderSpec.options`. ``repr()`` never shows the key.
    """

    name: str
    model: str
    api_key: str | None = None
    base_url: str | None = None
    timeout: float = 120.0
    max_retries: int = 3
    options: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"ProviderConfig(name={self.name!r}, model={self.model!r}, "
                f"base_url={self.base_url!r})")

    __str__ = __repr__


@runtime_checkable
class Provider(Protocol):
    """A live connection to a model service, made by a :class:`ProviderSpec` factory."""

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield events as they arrive, ending with a :class:`StopEvent`.

        Raises a :class:`chatcli.ProviderError` subclass on failure. Closing the iterator early
        (``.close()``) must release the connection. The engine reads it on a helper thread, so a
        silent provider never blocks Ctrl+C.
        """
        ...


@dataclass
class ProviderSpec:
    """A provider as a plugin registers it; nothing heavy is imported until ``factory`` runs.

    ``env_keys`` are the environment variables that may hold its API key (first found wins);
    ``requires_key`` is False for local services. ``priority`` orders automatic selection when no
    provider is configured: the highest-priority provider with a key is chosen, else the
    highest-priority keyless one with ``auto_select`` (the in-process offline model). Servers that
    may not be running (Ollama, LM Studio) set ``auto_select=False``: used only when named.
    ``options`` declares the provider-specific keys its ``[providers.NAME]`` table accepts.
    """

    name: str
    display_name: str
    factory: Callable[[ProviderConfig], Provider]
    default_model: str
    env_keys: list[str] = field(default_factory=list)
    requires_key: bool = True
    base_url: str | None = None
    base_url_env: str | None = None
    models: list[str] = field(default_factory=list)
    capabilities: Capabilities = field(default_factory=Capabilities)
    priority: int = 50
    auto_select: bool = True
    description: str = ""
    options: Mapping[str, ProviderOption] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------


@dataclass
class ToolContext:
    """What a running tool knows: the workspace root it must stay inside, and the settings."""

    workspace: Path
    settings: Settings
    interactive: bool = False


_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass
class Tool:
    """A tool a plugin registers.

    The arguments are described either by ``args_model``, a pydantic model whose JSON schema is
    what the model sees and which validates the call, or by ``parameters``, a raw JSON schema
    passed through as it is (an MCP server's tool), in which case ``run`` receives the arguments
    dict. ``run(arguments, context)`` returns the text sent back to the model; raising produces an
    error result and never ends the conversation. ``name`` must match ``^[a-zA-Z0-9_-]{1,64}$``.
    """

    name: str
    description: str
    run: Callable[[Any, ToolContext], str]
    args_model: type[BaseModel] | None = None
    parameters: dict[str, Any] | None = None
    risk: Risk = Risk.READ

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME_PATTERN.match(self.name):
            raise ValueError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'")
        if self.args_model is not None and self.parameters is not None:
            raise ValueError(f"tool {self.name!r}: give args_model or parameters, not both")
        if self.parameters is not None and not isinstance(self.parameters, dict):
            raise ValueError(f"tool {self.name!r}: parameters must be a JSON schema object")
        self.risk = Risk(self.risk)
        self._spec: ToolSpec | None = None

    def spec(self) -> ToolSpec:
        """The :class:`ToolSpec` describing this tool to a model (computed once)."""
        if self._spec is None:
            if self.args_model is not None:
                schema = self.args_model.model_json_schema()
                schema.pop("title", None)
            else:
                schema = dict(self.parameters or _EMPTY_OBJECT)
            self._spec = ToolSpec(self.name, self.description, schema, self.risk)
        return self._spec

    def parse_arguments(self, arguments: dict[str, Any]) -> Any:
        """The value ``run`` receives: a validated ``args_model`` instance, or the dict itself.

        Raises ``pydantic.ValidationError`` (args_model) or ``ValueError`` (a raw schema's
        required property is missing) with what is wrong.
        """
        if self.args_model is not None:
            return self.args_model.model_validate(arguments)
        required = (self.parameters or {}).get("required") or []
        missing = [name for name in required if isinstance(name, str) and name not in arguments]
        if missing:
            raise ValueError(f"missing required argument(s): {', '.join(missing)}")
        return arguments


# --------------------------------------------------------------------------------------------
# Skills and slash commands
# --------------------------------------------------------------------------------------------


@dataclass
class SkillSource:
    """A folder of skills (each a sub-folder with a ``SKILL.md``) that a skill pack contributes."""

    name: str
    path: Path

    def __post_init__(self) -> None:
        self.path = Path(self.path)


@dataclass
class SlashCommand:
    """An in-chat ``/command``.

    ``run(app, argument_text)`` is called with the running chat (:class:`chatcli.ChatApp`) and
    the text after the command name. ``subcommands`` feed completion; ``complete(app, text)`` may
    return more candidates dynamically.
    """

    name: str
    help: str
    run: Callable[[Any, str], Any]
    subcommands: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    complete: Callable[[Any, str], list[str]] | None = None
