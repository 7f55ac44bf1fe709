"""What one model call carries: the request, the stream events, and the tools the model may call.

Plain dataclasses (made by :func:`chatcli_records_lite.dataclass`: no code compiled for their
``__repr__``/``__eq__``/``__hash__`` at import): a :class:`ChatRequest` is built before every
model call and ``before_request`` implementations may change it in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

from chatcli_records_lite import NamedTuple, dataclass

from chatcli._specs import Decision, Risk, StopReason

if TYPE_CHECKING:
    import threading
    from pathlib import Path

    from pydantic import BaseModel

    from chatcli._config import Settings
    from chatcli._conversation import Conversation
    from chatcli._engine import Engine
    from chatcli._types import Message, ToolCallPart, Usage

__all__ = ["TOOL_NAME_PATTERN", "Approval", "ChatRequest", "FailedAttempt", "FileAccess",
           "PromptSection", "StopEvent", "StreamEvent", "TextDelta", "Tool", "ToolCallEvent",
           "ToolContext", "ToolSpec", "UsageEvent", "Verdict"]

#: What providers accept as a tool name (OpenAI's and Anthropic's rule).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class PromptSection:
    """One contribution to the system prompt.

    Stable sections come first and may be cached by providers that support prompt caching;
    volatile sections (``stable=False``: the date, retrieved memory) come after them so they never
    break the cached prefix. Within each group, sections are ordered by ``order`` then ``name``.

    A model that does not use tools (a very small one, see ``Capabilities.uses_tools`` and the
    ``[providers.NAME] tools`` setting) gets a *lean* request: no tools, and only the kernel's
    own sections and those marked ``essential`` — what the user chose to be there (a persona,
    a file they attached, a pinned skill), not catalogs of what tools could fetch. A section
    with ``needs_tools`` (the instructions of an agent run) makes the request a full one again:
    the user asked for tools by starting it.
    """

    name: str
    text: str
    stable: bool = True
    order: int = 100
    #: kept in lean requests (a model without tools); others are left out of them
    essential: bool = False
    #: the section only makes sense with tools offered (an agent run): present, it makes the
    #: request offer tools even to a model that does not use them by default
    needs_tools: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """What the model sees of a tool: name, description, JSON schema of its arguments, risk.

    ``subject`` names the argument that permission rules match (the ``path`` of a file tool,
    the ``command`` of a shell tool): ``read(./secrets/**)``, ``exec(npm test:*)``.
    ``confined`` says the tool runs what it runs inside a sandbox that enforces
    :class:`Confinement` (hidden paths absent, the workspace read-only unless granted, its own
    process table), so a policy may leave to the sandbox what it would otherwise have to ask.
    """

    name: str
    description: str
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}})
    risk: Risk = Risk.READ
    subject: str | None = None
    confined: bool = False


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
    #: how long the provider should keep the cached prefix (one of its
    #: ``Capabilities.cache_ttls``; None: its default); providers without a choice ignore it
    cache_ttl: str | None = None
    #: True: the volatile sections go after the history, in the newest message (an agent run
    #: sets it, so each step reads the previous one from the cache); providers may ignore it
    volatile_last: bool = False
    #: what the call is for, for observers (``after_response``'s ``purpose``; providers ignore
    #: it): "chat" for a turn (``before_request`` may say "agent"), a plugin's side call its own
    purpose: str = "chat"

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
class FailedAttempt:
    """A provider that was tried for a model call and did not answer it, as a provider that
    delegates (a fallback chain, a provider pool) reports it.

    ``provider``/``model`` name the entry; ``error`` is the failure's one line (secrets
    redacted); ``kind`` is the error's class name (``RateLimitError``), or ``"skipped"`` for an
    entry passed over without a request (cooling down after earlier failures, unhealthy).
    """

    provider: str
    model: str
    error: str
    kind: str


@dataclass(frozen=True, slots=True)
class StopEvent:
    """The last event of a response: why it stopped and which model answered.

    A provider that hands the call to another one (a fallback chain or pool) sets ``provider``
    to the provider that answered (``openai``; None: the provider itself answered) and lists in
    ``failed`` the entries tried or skipped before it. The engine records them on the answer
    (:attr:`chatcli.Message.provider`, :attr:`chatcli.Message.via`) and the turn
    (:attr:`chatcli.TurnFinished.answered_by`, :attr:`chatcli.TurnFinished.failed`).
    """

    reason: StopReason = StopReason.END_TURN
    model: str | None = None
    type: str = "stop"
    provider: str | None = None
    failed: tuple[FailedAttempt, ...] = ()


#: What :meth:`Provider.stream` yields.
StreamEvent = TextDelta | ToolCallEvent | UsageEvent | StopEvent


# ------------------------------------------------------------------------------ Tools


def ignore_output(_line: str) -> None:
    """Where a tool's live output goes when nobody shows it."""


@dataclass(frozen=True)
class Confinement:
    """What a tool call that runs may reach, as the permission policy granted it.

    A tool that confines what it runs (the coder's sandbox) honours it; a tool that reads files
    itself (search, glob) skips :attr:`hidden`. Without a policy plugin a call that runs gets
    the defaults: it may write the workspace, not chatcli's or git's control files, and nothing
    is hidden.

    :param writable: whether the call may write inside the workspace (a command run read-only
        otherwise: the sandbox mounts the workspace read-only).
    :param protected_writable: whether it may also write the protected control files
        (``.chatcli/**``, ``.git/**``, ``.gitattributes``…), which stay read-only otherwise.
    :param hidden: absolute paths, or absolute glob patterns (``*``, ``**``), the call must not
        see at all (the targets of deny rules): the sandbox puts an empty file or folder over
        them, the search tools skip them.
    """

    writable: bool = True
    protected_writable: bool = False
    hidden: tuple[str, ...] = ()


class Verdict(NamedTuple):
    """An ``authorize_tool_call`` answer with its reason.

    ``reason`` is shown to the person when the decision is ``ASK`` and sent to the model when it
    is ``DENY``. ``rule`` is the permission rule an "always" answer would save
    (``exec(npm test:*)``), shown in the question so the person knows what they allow.
    ``confinement`` is what the call may reach when it runs (after a yes, for ``ASK``); None
    gives :class:`Confinement`'s defaults. ``preview`` is what the tool's ``preview`` said the
    call would change (set by the engine before it asks). ``by``: who decided, for records —
    ``rule`` (a refusal's in ``rule``), ``mode``, ``unattended``, ``hook``, ``managed``, ``policy``.
    """

    decision: Decision
    reason: str = ""
    rule: str | None = None
    confinement: Confinement | None = None
    preview: str | None = None
    by: str | None = None


class Approval(NamedTuple):
    """A person's answer to "may this tool call run?".

    ``scope`` is how long a yes holds: ``once``, ``session`` or ``always`` (a policy plugin
    remembers it, through ``tool_call_decided``); ``reason`` goes to the model with a no.
    """

    allow: bool
    scope: str = "once"
    reason: str = ""


class FileAccess(Protocol):
    """Where the file tools read and write text: the disk by default; a front end that holds
    the user's unsaved buffers (an editor, through ACP) passes its own to the session, so the
    model reads and edits what the user sees. Both raise :class:`OSError` when they cannot
    (:class:`FileNotFoundError` for no such file) and :class:`UnicodeDecodeError` for text
    that is not UTF-8."""

    def read_text(self, path: Path) -> str:
        """The whole text of ``path`` (UTF-8, line endings as they are)."""
        ...

    def write_text(self, path: Path, text: str) -> None:
        """Replace (or create) ``path`` with ``text``."""
        ...


class DiskFiles:
    """The disk as :class:`FileAccess`: atomic writes; an existing file keeps its permissions,
    a new one gets the umask's."""

    def read_text(self, path: Path) -> str:
        """The file's bytes decoded (no newline translation)."""
        return path.read_bytes().decode("utf-8")

    def write_text(self, path: Path, text: str) -> None:
        """Written beside ``path``, then renamed over it."""
        import os

        from chatcli._paths import atomic_write

        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        atomic_write(path, text, mode)


#: The default :attr:`ToolContext.files`.
DISK_FILES = DiskFiles()


@dataclass
class ToolContext:
    """What a running tool knows and may use.

    :param workspace: the root it must stay inside (resolved).
    :param settings: the turn's settings (a plugin's own table: ``settings.plugin_table``).
    :param interactive: whether a person is there to be asked.
    :param conversation: the conversation the call belongs to (read it; never change it).
    :param cancel: set when the user stops the turn (Ctrl+C in the chat): a long-running tool
        polls :attr:`cancelled` and stops, killing what it started.
    :param output: shows a line of live output to the user while the tool runs (a shell
        command's output); it does not reach the model.
    :param max_output: how many characters the result may have: the per-result limit, lowered
        when the turn's budget runs short. Longer results are cut by the engine (head and
        tail kept), so a tool that can say more useful things in less should fit it.
    :param confinement: what this call may reach (set by the engine from the policy's
        :class:`Verdict` once the call is authorized).
    :param engine: the :class:`~chatcli.Engine` running the call (a tool that hands work to a
        child run branches it: :meth:`~chatcli.Engine.branch`).
    :param files: where file tools read and write text (:class:`FileAccess`; the disk unless
        the front end passed its own to the session).
    :param call: the model's call being run (its id ties what the tool does to the call that
        hooks such as ``tool_call_decided`` saw, in the model's order); None outside a turn.
    """

    workspace: Path
    settings: Settings
    interactive: bool = False
    conversation: Conversation | None = None
    cancel: threading.Event | None = None
    output: Callable[[str], None] = ignore_output
    max_output: int = 60_000
    confinement: Confinement = field(default_factory=Confinement)
    engine: Engine | None = None
    files: FileAccess = DISK_FILES
    call: ToolCallPart | None = None

    @property
    def cancelled(self) -> bool:
        """Whether the user stopped the turn."""
        return self.cancel is not None and self.cancel.is_set()


_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass
class Tool:
    """A tool a plugin registers.

    The arguments are described either by ``args_model``, a pydantic model whose JSON schema is
    what the model sees and which validates the call, or by ``parameters``, a raw JSON schema
    passed through as it is (an MCP server's tool), in which case ``run`` receives the arguments
    dict. ``run(arguments, context)`` returns the text sent back to the model; raising produces an
    error result and never ends the conversation. ``name`` must match ``^[a-zA-Z0-9_-]{1,64}$``.
    ``subject`` names the argument permission rules match, ``confined`` whether it runs
    commands inside a sandbox that enforces :class:`Confinement` (see :class:`ToolSpec`).
    ``preview(arguments, context)``, when given, says what the call would change (a unified
    diff) for the question asked before it runs; raising means the call would fail, and it is
    then refused with that error instead of asked. ``concurrent`` calls run side by side with
    the step's other concurrent calls (default: read-only tools do; a delegation to a child run
    that authorizes its own calls may too).
    """

    name: str
    description: str
    run: Callable[[Any, ToolContext], str]
    args_model: type[BaseModel] | None = None
    parameters: dict[str, Any] | None = None
    risk: Risk = Risk.READ
    subject: str | None = None
    confined: bool = False
    preview: Callable[[Any, ToolContext], str | None] | None = None
    concurrent: bool | None = None

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
            self._spec = ToolSpec(self.name, self.description, schema, self.risk, self.subject,
                                  self.confined)
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
