"""The typed data model every part of chatcli speaks.

Messages are made of parts (text, tool calls, tool results, image references); providers receive a
:class:`ChatRequest` and yield :data:`StreamEvent` objects; plugins describe providers with a
:class:`ProviderSpec` and tools with a :class:`Tool`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Capabilities",
    "ChatRequest",
    "Decision",
    "ImagePart",
    "Message",
    "Part",
    "PromptSection",
    "Provider",
    "ProviderConfig",
    "ProviderSpec",
    "Risk",
    "Role",
    "SkillSource",
    "SlashCommand",
    "StopEvent",
    "StopReason",
    "StreamEvent",
    "TextDelta",
    "TextPart",
    "Tool",
    "ToolCallEvent",
    "ToolCallPart",
    "ToolContext",
    "ToolResultPart",
    "ToolSpec",
    "Usage",
    "UsageEvent",
    "new_id",
]


def new_id(prefix: str = "") -> str:
    """Return a short random identifier, optionally prefixed (``call_…``, ``msg_…``)."""
    return prefix + uuid.uuid4().hex[:16]


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------


class Role(StrEnum):
    """Who wrote a message. Tool results travel in ``tool`` messages."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class TextPart(BaseModel):
    """Plain text (markdown) written by the user or the model."""

    type: Literal["text"] = "text"
    text: str


class ToolCallPart(BaseModel):
    """The model asks to run a tool.

    ``arguments`` is the parsed JSON object; ``raw_arguments`` keeps the text the model sent when it
    was not valid JSON, so the engine can tell the model what was wrong instead of guessing.
    """

    type: Literal["tool_call"] = "tool_call"
    id: str = Field(default_factory=lambda: new_id("call_"))
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None


class ToolResultPart(BaseModel):
    """The outcome of one tool call, sent back to the model."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    content: str
    is_error: bool = False


class ImagePart(BaseModel):
    """A reference to an image (a local path or a URL); providers with vision load it."""

    type: Literal["image"] = "image"
    source: str
    media_type: str | None = None


Part = Annotated[TextPart | ToolCallPart | ToolResultPart | ImagePart, Field(discriminator="type")]


class Usage(BaseModel):
    """Token counts of one response (or a sum of several: ``a + b``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens (cache reads and writes are part of the input)."""
        return self.input_tokens + self.output_tokens


class StopReason(StrEnum):
    """Why the model stopped producing output."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    TURN_LIMIT = "turn_limit"


class Message(BaseModel):
    """One entry of the conversation: a role and its parts.

    ``parent_id`` links the message to the one before it, so the log is a tree: rewinding moves the
    conversation's head, and a new message after a rewind starts a branch.
    ``interrupted`` marks an assistant answer cut short (Ctrl+C, a dropped stream); what arrived is
    kept. ``model``/``provider``/``usage`` are filled for assistant messages.
    """

    id: str = Field(default_factory=lambda: new_id("msg_"))
    parent_id: str | None = None
    role: Role
    parts: list[Part] = Field(default_factory=list)
    created_at: float = Field(default_factory=time.time)
    interrupted: bool = False
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None

    @classmethod
    def user(cls, text: str, *images: str) -> Message:
        """A user message with ``text`` and optional image references."""
        parts: list[Any] = [TextPart(text=text)]
        parts.extend(ImagePart(source=src) for src in images)
        return cls(role=Role.USER, parts=parts)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: list[ToolCallPart] | None = None) -> Message:
        """An assistant message with ``text`` and optional tool calls."""
        parts: list[Any] = [TextPart(text=text)] if text else []
        parts.extend(tool_calls or [])
        return cls(role=Role.ASSISTANT, parts=parts)

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The tool-call parts, in order."""
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def tool_results(self) -> list[ToolResultPart]:
        """The tool-result parts, in order."""
        return [p for p in self.parts if isinstance(p, ToolResultPart)]


# --------------------------------------------------------------------------------------------
# Stream events: what a provider yields while the answer arrives
# --------------------------------------------------------------------------------------------


class TextDelta(BaseModel):
    """A piece of answer text, in arrival order."""

    type: Literal["text"] = "text"
    text: str


class ToolCallEvent(BaseModel):
    """A complete tool call (providers assemble streamed argument fragments before yielding)."""

    type: Literal["tool_call"] = "tool_call"
    call: ToolCallPart


class UsageEvent(BaseModel):
    """Token usage reported by the provider (may arrive more than once; later values win)."""

    type: Literal["usage"] = "usage"
    usage: Usage


class StopEvent(BaseModel):
    """The last event of a response: why it stopped and which model answered."""

    type: Literal["stop"] = "stop"
    reason: StopReason = StopReason.END_TURN
    model: str | None = None


StreamEvent = Annotated[
    TextDelta | ToolCallEvent | UsageEvent | StopEvent, Field(discriminator="type")
]


# --------------------------------------------------------------------------------------------
# Requests
# --------------------------------------------------------------------------------------------


class PromptSection(BaseModel):
    """One contribution to the system prompt.

    Stable sections come first and may be cached by providers that support prompt caching;
    volatile sections (the date, retrieved memory) come after them so they never break the cached
    prefix. Within each group, sections are ordered by ``order`` then ``name``.
    """

    name: str
    text: str
    stable: bool = True
    order: int = 100


class Risk(StrEnum):
    """What a tool can do, which decides whether it needs the user's say-so."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    NETWORK = "network"


class ToolSpec(BaseModel):
    """What the model sees of a tool: name, description and JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    risk: Risk = Risk.READ


class ChatRequest(BaseModel):
    """Everything a provider needs for one model call."""

    model: str
    system: list[PromptSection] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int | None = None
    temperature: float | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    def ordered_system(self) -> list[PromptSection]:
        """System sections in prompt order: stable ones first, then volatile ones."""
        return sorted(self.system, key=lambda s: (not s.stable, s.order, s.name))

    def system_text(self) -> str:
        """The whole system prompt as one string (for providers without section support)."""
        return "\n\n".join(s.text for s in self.ordered_system() if s.text)


# --------------------------------------------------------------------------------------------
# Providers
# --------------------------------------------------------------------------------------------


class Capabilities(BaseModel):
    """What a provider supports."""

    streaming: bool = True
    native_tools: bool = True
    prompt_caching: bool = False
    vision: bool = False


class ProviderConfig(BaseModel):
    """What the kernel hands to a provider factory: resolved key, URL, model and limits."""

    model_config = ConfigDict(extra="allow")

    name: str
    model: str
    api_key: str | None = None
    base_url: str | None = None
    timeout: float = 120.0
    max_retries: int = 3
    options: dict[str, Any] = Field(default_factory=dict)

    def __repr__(self) -> str:  # never show the key
        return (
            f"ProviderConfig(name={self.name!r}, model={self.model!r}, "
            f"base_url={self.base_url!r})"
        )

    __str__ = __repr__


@runtime_checkable
class Provider(Protocol):
    """A live connection to a model service, made by a :class:`ProviderSpec` factory."""

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield events as they arrive, ending with a :class:`StopEvent`.

        Raises a :class:`chatcli.ProviderError` subclass on failure. Closing the iterator
        early (``.close()``) must release the connection.
        """
        ...


class ProviderSpec(BaseModel):
    """A provider as a plugin registers it; nothing heavy is imported until ``factory`` runs.

    ``env_keys`` are the environment variables that may hold its API key (first found wins);
    ``requires_key`` is False for local services. ``priority`` orders automatic selection when no
    provider is configured: the highest-priority provider with a key is chosen, else the
    highest-priority keyless one with ``auto_select`` (the in-process offline model). Servers that
    may not be running (Ollama, LM Studio) set ``auto_select=False``: used only when named.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    display_name: str
    factory: Callable[[ProviderConfig], Provider]
    default_model: str
    env_keys: list[str] = Field(default_factory=list)
    requires_key: bool = True
    base_url: str | None = None
    base_url_env: str | None = None
    models: list[str] = Field(default_factory=list)
    capabilities: Capabilities = Field(default_factory=Capabilities)
    priority: int = 50
    auto_select: bool = True
    description: str = ""


# --------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------


class ToolContext(BaseModel):
    """What a running tool knows: the workspace root it must stay inside, and the settings."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    workspace: str
    settings: Any = None
    interactive: bool = False


class Tool(BaseModel):
    """A tool a plugin registers.

    ``args_model`` is a pydantic model whose JSON schema is what the model sees; ``run`` receives a
    validated instance and a :class:`ToolContext` and returns the text sent back to the model.
    Raising an exception produces an error result; it never ends the conversation.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    description: str
    args_model: type[BaseModel]
    run: Callable[[Any, ToolContext], str]
    risk: Risk = Risk.READ

    def spec(self) -> ToolSpec:
        """The :class:`ToolSpec` describing this tool to a model."""
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(
            name=self.name, description=self.description, parameters=schema, risk=self.risk
        )


class Decision(StrEnum):
    """An answer of the ``authorize_tool_call`` hook."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"


# --------------------------------------------------------------------------------------------
# Skills and slash commands
# --------------------------------------------------------------------------------------------


class SkillSource(BaseModel):
    """A folder of skills (each a sub-folder with a ``SKILL.md``) that a skill pack contributes."""

    name: str
    path: str


class SlashCommand(BaseModel):
    """An in-chat ``/command``.

    ``run(app, argument_text)`` is called with the REPL application object (see
    :class:`chatcli.ChatApp`) and the text after the command name. ``subcommands`` feed
    completion; ``complete(app, text)`` may return more candidates dynamically.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    help: str
    run: Callable[[Any, str], Any]
    subcommands: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    complete: Callable[[Any, str], list[str]] | None = None
