"""The ``context_pull`` tool: read back what the curated prompt left out.

It is a read-only tool (risk ``read``): it runs nothing, writes nothing and reaches nothing
outside the process. Its kinds are every :class:`chatcli.PullKind` registered through
``register_pull_kinds`` (this plugin's ``contexts``, ``context``, ``history``, ``bootstrap``,
and those of other plugins). Arguments are read tolerantly (:mod:`chatcli_context.pull_args`).
A user turn may make at most :data:`MAX_PULLS` pulls; the next one is refused with a message
telling the model to answer with what it has. A pull that fails (unknown kind, unknown name)
does not count.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, Tool

from chatcli_context.pull_args import resolve_kind

if TYPE_CHECKING:
    from chatcli import Conversation, ToolContext, ToolSpec
    from chatcli_plugin_records import PullKind

    from chatcli_context.pull_model import PullArgs

__all__ = ["MAX_PULLS", "PULLS", "PULL_SCHEMA", "TOOL_NAME", "PullCounter", "PullError",
           "PullTool", "make_tool", "page"]

TOOL_NAME = "context_pull"
MAX_PULLS = 3


class PullError(Exception):
    """A pull that cannot be answered; the message tells the model what to do instead."""


#: The JSON schema of :class:`chatcli_context.pull_model.PullArgs` (without its title, as the
#: kernel gives it): what the model sees, without building the pydantic model in a run that
#: pulls nothing. A test keeps it equal to the model's own.
PULL_SCHEMA: dict[str, Any] = {
    "additionalProperties": True,
    "description": "The arguments of ``context_pull``; any other key is kept (and read by the "
                   "kind).",
    "properties": {
        "kind": {"description": "what to read back: one of the kinds listed in the tool's "
                                "description", "type": "string"},
        "name": {"description": "which one (a context's name, a bootstrap file's, a "
                                "skill's \u2026)", "type": "string"},
        "id": {"description": "a compaction's id (kind history)", "type": "string"},
        "file": {"description": "one file of a context (kind context)", "type": "string"},
        "offset": {"description": "where the next page starts, as the previous result says",
                   "type": "integer"}},
    "type": "object"}


class PullTool(Tool):
    """``context_pull``: its arguments are validated by
    :class:`chatcli_context.pull_model.PullArgs` (imported then); the model sees
    :data:`PULL_SCHEMA`. (Not a dataclass of its own: making one costs about a millisecond in
    every run.)"""

    def spec(self) -> ToolSpec:
        """The tool as the model sees it (made once)."""
        made: ToolSpec | None = self.__dict__.get("_pull_spec")
        if made is None:
            from chatcli import ToolSpec

            schema = json.loads(json.dumps(PULL_SCHEMA))  # its own copy
            made = ToolSpec(self.name, self.description, schema, self.risk, self.subject,
                            self.confined)
            self.__dict__["_pull_spec"] = made
        return made

    def parse_arguments(self, arguments: dict[str, Any]) -> Any:
        """A validated :class:`PullArgs` (raises ``pydantic.ValidationError``)."""
        from chatcli_context.pull_model import PullArgs

        return PullArgs.model_validate(arguments)


#: The pulls of a conversation's turn, in its stash: (the turn's user message id, pulls made).
PULLS: StashKey[tuple[str | None, int]] = StashKey()


class PullCounter:
    """How many pulls each conversation's current user turn made (a retry starts again)."""

    def __init__(self, limit: int = MAX_PULLS) -> None:
        self.limit = limit
        self._lock = threading.Lock()

    @staticmethod
    def _turn(conversation: Conversation) -> str | None:
        from chatcli import Role

        message = conversation.last(Role.USER)
        return message.id if message is not None else None

    def reserve(self, conversation: Conversation | None) -> bool:
        """Count one more pull for the conversation's turn; False when it already made
        :attr:`limit` (outside a conversation nothing is counted)."""
        if conversation is None:
            return True
        turn = self._turn(conversation)
        with self._lock:
            key, count = conversation.stash.get(PULLS, (None, 0))
            if key != turn:
                count = 0
            if count >= self.limit:
                return False
            conversation.stash[PULLS] = (turn, count + 1)
            return True

    def release(self, conversation: Conversation | None) -> None:
        """Give back a pull that failed."""
        if conversation is None:
            return
        with self._lock:
            key, count = conversation.stash.get(PULLS, (None, 0))
            if count:
                conversation.stash[PULLS] = (key, count - 1)

    def reset(self, conversation: Conversation) -> None:
        """The turn is answered again (``/retry``): its pulls start over."""
        with self._lock:
            if PULLS in conversation.stash:
                del conversation.stash[PULLS]


def page(text: str, offset: int, limit: int, next_call: Callable[[int], str]) -> str:
    """``text`` from ``offset``, at most ``limit`` characters, ending with the call that reads
    the next page when there is more."""
    if offset and offset >= len(text):
        raise PullError(  # (context_pull's answers are the model's: English)
            f"offset {offset:,} is past the end (it has {len(text):,} characters); "  # untranslated
            "call without offset to start at the beginning")
    chunk = text[offset:offset + limit]
    end = offset + len(chunk)
    if end < len(text):
        chunk += (f"\n\n[characters {offset:,}–{end:,} of {len(text):,}; the next page: "
                  f"{next_call(end)}]")
    return chunk


def describe(kinds: Mapping[str, PullKind]) -> str:
    """The tool's description: what it is for, its kinds and their arguments, the limit."""
    lines = [
        "Read back material chatcli left out of the prompt to keep it small. Wherever the "
        "prompt leaves something out it names the exact call to make, such as "
        'context_pull {"kind":"context","name":"docs"}; make it when the task needs that '
        f"material. At most {MAX_PULLS} calls per turn; after that, answer with what you have. "
        "Kinds:",
    ]
    for name in sorted(kinds):
        kind = kinds[name]
        arguments = f" Arguments: {kind.arguments}." if kind.arguments else ""
        lines.append(f"- {name}: {kind.description.rstrip('.')}.{arguments}")
    return "\n".join(lines)


def _listing(kinds: Mapping[str, PullKind]) -> str:
    return ", ".join(f"{n} ({kinds[n].arguments})" if kinds[n].arguments else n
                     for n in sorted(kinds))


def run_pull(args: PullArgs, context: ToolContext, kinds: Mapping[str, PullKind],
             counter: PullCounter) -> str:
    """Answer one ``context_pull`` call."""
    raw = args.model_dump(exclude_none=True)
    kind, arguments = resolve_kind(raw, list(kinds))
    if kind is None:
        asked = raw.get("kind")
        what = f"unknown kind {asked!r}" if asked else "no kind given"
        raise PullError(f"{what}; the kinds are: {_listing(kinds)}. Example: "  # untranslated
                        'context_pull {"kind":"contexts"}')
    if not counter.reserve(context.conversation):
        raise PullError(
            f"this turn already made {counter.limit} pulls, the most one turn may "  # untranslated
            "make: answer now with what you have, and say what you could not read")
    try:
        return kinds[kind].fetch(arguments, context)
    except PullError:
        counter.release(context.conversation)
        raise
    except Exception as err:  # another plugin's fetch: its first line, as the model's cue
        counter.release(context.conversation)
        first = (str(err).splitlines() or [type(err).__name__])[0]
        raise PullError(f"{kind}: {first}") from err


def make_tool(kinds: Mapping[str, PullKind], counter: PullCounter) -> Tool:
    """The ``context_pull`` tool for ``kinds``."""
    from chatcli import Risk

    frozen = dict(kinds)

    def run(args: PullArgs, context: ToolContext) -> str:
        return run_pull(args, context, frozen, counter)

    return PullTool(name=TOOL_NAME, description=describe(frozen), run=run, risk=Risk.READ)
