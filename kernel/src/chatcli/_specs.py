"""What plugins register: providers, slash commands, answer authors — light, immutable records.

Registering or listing providers (``chatcli models``) must stay as cheap as ``--help``, so these
are ``NamedTuple`` records (no pydantic, no dataclass machinery). What one model call carries
(requests, stream events, tools) is in :mod:`chatcli._calls`; the stored messages are in
:mod:`chatcli._types`.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from chatcli_records_lite import NamedTuple

if TYPE_CHECKING:
    from chatcli._calls import ChatRequest, StreamEvent

__all__ = ["Author", "Capabilities", "Decision", "Provider", "ProviderConfig", "ProviderOption",
           "ProviderSpec", "Risk", "SlashCommand", "StopReason"]

_NOTHING: Mapping[str, Any] = MappingProxyType({})


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
    REPEATED_CALLS = "repeated_calls"
    #: the provider cut the answer because it was repeating itself (a small model in a loop)
    REPETITION = "repetition"


# ------------------------------------------------------------------------------ Providers


class Capabilities(NamedTuple):
    """What a provider supports."""

    streaming: bool = True
    native_tools: bool = True
    prompt_caching: bool = False
    vision: bool = False
    #: how long a cached prompt prefix may be kept, shortest first (Anthropic: ``("5m", "1h")``);
    #: empty when the provider has no choice
    cache_ttls: tuple[str, ...] = ()
    #: the provider's objects have ``list_models()`` (``chatcli_provider_kit.ModelLister``): the
    #: service says which models it serves (``chatcli models --remote``, ``/switch`` completion)
    model_list: bool = False
    #: whether the model can make use of tools, and of the prompt sections that describe
    #: tool-driven features (skills, memory, MCP…). False for a very small model (the offline
    #: SmolLM2-135M, whose 4,096-token context the tool catalog alone would fill): the engine
    #: then sends it a *lean* request — no tools, no tool catalog, and of the plugins' prompt
    #: sections only those marked :attr:`PromptSection.essential` — unless the user's
    #: ``[providers.NAME] tools = true`` says otherwise or a section asks for tools
    #: (:attr:`PromptSection.needs_tools`: an agent run)
    uses_tools: bool = True


class ProviderOption(NamedTuple):
    """A provider-specific setting accepted in its ``[providers.NAME]`` table.

    ``type`` is what the value must be (``str``, ``int``, ``float``, ``bool``, ``list`` or
    ``dict``, or a tuple of them); ``items`` is the type of a list's items or a dict's values.
    The kernel checks the table against these before the provider is built, so a wrong value is
    a configuration error naming the file, the key and the expected type.
    """

    # (``builtins.type``: inside this class ``type`` names the field)
    type: builtins.type | tuple[builtins.type, ...]
    description: str = ""
    items: builtins.type | tuple[builtins.type, ...] | None = None


class ProviderConfig(NamedTuple):
    """What the kernel hands to a provider factory: resolved key, URL, model and limits
    (an immutable record).

    ``options`` holds the provider-specific keys of ``[providers.NAME]``, already checked against
    :attr:`ProviderSpec.options`. ``native_tools`` False: the model takes no tool definitions
    (``[providers.NAME] tool_calls = "text"``, or ``Capabilities.native_tools`` False under
    ``"auto"``); the provider describes tools in its prompt and parses calls from the answer
    text itself (``chatcli_provider_kit.textcalls``). ``repr()`` never shows the key.
    """

    name: str
    model: str
    api_key: str | None = None
    base_url: str | None = None
    timeout: float = 120.0
    max_retries: int = 3
    options: Mapping[str, Any] = _NOTHING
    native_tools: bool = True

    def __repr__(self) -> str:
        return (f"ProviderConfig(name={self.name!r}, model={self.model!r}, "
                f"base_url={self.base_url!r})")


@runtime_checkable
class Provider(Protocol):
    """A live connection to a model service, made by a :class:`ProviderSpec` factory."""

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield events as they arrive, ending with a :class:`StopEvent`.

        Raises a :class:`chatcli.ProviderError` subclass on failure. Closing the iterator early
        (``.close()``) must release the connection. The engine reads it on a helper thread, so a
        silent provider never blocks Ctrl+C.

        The iterator may also have a ``cancel()`` method: when the user interrupts the answer
        (or the engine gives up on it) while the helper thread is still blocked inside the
        iterator, the engine calls ``cancel()`` from its own thread, at once, so a provider
        waiting on something silent (a subprocess, a socket) can stop it instead of waiting
        for its next event to be closed. It must be safe to call at any moment and more than
        once, and affect only this stream.
        """
        ...


class ProviderSpec(NamedTuple):
    """A provider as a plugin registers it (an immutable record); nothing heavy is imported until
    ``factory`` runs.

    ``env_keys`` are the environment variables that may hold its API key (first found wins);
    ``requires_key`` is False for local services. ``priority`` orders automatic selection when no
    provider is configured: the highest-priority provider with a key is chosen, else the
    highest-priority keyless one with ``auto_select`` (the in-process offline model). Servers that
    may not be running (Ollama, LM Studio) set ``auto_select=False``: used only when named.
    ``options`` declares the provider-specific keys its ``[providers.NAME]`` table accepts.
    ``context_windows`` maps model-name prefixes to the tokens their context holds (the longest
    matching prefix wins; ``""`` is the provider's default).
    """

    name: str
    display_name: str
    factory: Callable[[ProviderConfig], Provider]
    default_model: str
    env_keys: Sequence[str] = ()
    requires_key: bool = True
    base_url: str | None = None
    base_url_env: str | None = None
    models: Sequence[str] = ()
    capabilities: Capabilities = Capabilities()
    priority: int = 50
    auto_select: bool = True
    description: str = ""
    options: Mapping[str, ProviderOption] = _NOTHING
    context_windows: Mapping[str, int] = _NOTHING

    def context_window(self, model: str) -> int | None:
        """The context window of ``model`` from :attr:`context_windows`, or None."""
        prefixes = [prefix for prefix in self.context_windows if model.startswith(prefix)]
        return self.context_windows[max(prefixes, key=len)] if prefixes else None


# ------------------------------------------------------------------------------ Slash commands


class SlashCommand(NamedTuple):
    """An in-chat ``/command``.

    ``run(app, argument_text)`` is called with the running chat (:class:`chatcli.ChatApp`) and
    the text after the command name. ``subcommands`` feed completion; ``complete(app, text)`` may
    return more candidates dynamically. ``mentions(app)`` lists the ``(name, description)``
    pairs a message may start with as ``@name`` to address what the command manages (the
    personas of ``/persona``); the chat completes them after an ``@`` that begins a message.
    """

    name: str
    help: str
    run: Callable[[Any, str], Any]
    subcommands: Sequence[str] = ()
    aliases: Sequence[str] = ()
    complete: Callable[[Any, str], list[str]] | None = None
    mentions: Callable[[Any], Sequence[tuple[str, str]]] | None = None


# ------------------------------------------------------------------------------ Who answers


class Author(NamedTuple):
    """Who writes an answer when a plugin speaks through someone (a persona), as the
    ``answer_author`` hook returns it.

    ``name`` is recorded on the answer (:attr:`chatcli.Message.author`); ``label`` is what the
    front ends show above it (an icon and a display name; ``name`` when empty); ``style`` is a
    rich style for the label (``"bold #FFD700"``), dropped under ``NO_COLOR`` and in plain
    output.
    """

    name: str
    label: str = ""
    style: str = ""

    @property
    def shown(self) -> str:
        """The label, or the name when there is none."""
        return self.label or self.name
