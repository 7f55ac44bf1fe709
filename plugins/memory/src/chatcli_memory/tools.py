"""What the model may call: ``memory_search`` (read), ``memory_save`` (write: asked like any
write), and the ``memory`` kind of ``context_pull`` (served by chatcli-context)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chatcli import Tool
from chatcli_memory_api import MemoryKind, Provenance

if TYPE_CHECKING:
    from chatcli import ToolSpec
    from chatcli_plugin_records import PullKind

    from chatcli_memory.runtime import Runtime
    from chatcli_memory.tool_args import SaveArgs, SearchArgs

__all__ = ["SCHEMAS", "make_tools", "pull_kind", "search_text"]

#: The JSON schema of each argument model of :mod:`chatcli_memory.tool_args` (without its
#: title, as the kernel gives it): what the model sees, without building the pydantic models
#: in a run that calls no memory tool. A test keeps them equal to the models' own.
SCHEMAS: dict[str, dict[str, Any]] = {
    "SearchArgs": {
        "description": "Search long-term memory.",
        "properties": {
            "query": {"description": "words to look for (any order)", "title": "Query",
                      "type": "string"},
            "limit": {"default": 8, "description": "most items to return", "maximum": 30,
                      "minimum": 1, "title": "Limit", "type": "integer"}},
        "required": ["query"], "type": "object"},
    "SaveArgs": {
        "description": "Save one durable fact to long-term memory.",
        "properties": {
            "text": {"description": "the fact, one self-contained sentence; never a secret",
                     "title": "Text", "type": "string"},
            "subject": {"default": "", "description": "what it is about, 1-4 words (a newer "
                        "fact on the same subject replaces the older one)", "title": "Subject",
                        "type": "string"},
            "scope": {"default": "project", "description": "'project' (this project only) or "
                      "'global'", "title": "Scope", "type": "string"}},
        "required": ["text"], "type": "object"},
}


class MemoryTool(Tool):
    """A memory tool: ``args`` names its argument model in :mod:`chatcli_memory.tool_args`,
    imported when a call is validated; the model sees :data:`SCHEMAS`. (Not a dataclass of its
    own: making one costs about a millisecond in every run.)"""

    def __init__(self, *, args: str, **fields: Any) -> None:
        super().__init__(**fields)
        self.args = args

    def spec(self) -> ToolSpec:
        """The tool as the model sees it (made once)."""
        made: ToolSpec | None = self.__dict__.get("_memory_spec")
        if made is None:
            from chatcli import ToolSpec

            schema = json.loads(json.dumps(SCHEMAS[self.args]))  # its own copy
            made = ToolSpec(self.name, self.description, schema, self.risk, self.subject,
                            self.confined)
            self.__dict__["_memory_spec"] = made
        return made

    def parse_arguments(self, arguments: dict[str, Any]) -> Any:
        """A validated instance of the argument model (raises ``pydantic.ValidationError``)."""
        from chatcli_memory import tool_args

        return getattr(tool_args, self.args).model_validate(arguments)


def search_text(runtime: Runtime, query: str, limit: int = 8) -> str:
    """The items matching ``query``, one per line with its id (touched: they were used)."""
    memory = runtime.open()
    if memory is None:
        raise RuntimeError(f"memory is unavailable: {runtime.failure or 'it is off'}")
    if not query.strip():
        raise ValueError("give a query: the words to look for")
    hits = memory.backend.search(query, scopes=memory.scopes, limit=limit)
    if not hits:
        return f"Nothing in memory matches {query!r}."
    memory.backend.touch([h.item.id for h in hits])
    lines = [f"Memory matching {query!r}, best first:"]
    for hit in hits:
        item = hit.item
        kind = item.kind.value + (f" {item.key}" if item.key else "")
        lines.append(f"- [{item.id}] ({kind}, "
                     f"confidence {item.confidence:.2f}) {item.text}")  # untranslated: model's
    return "\n".join(lines)


def make_tools(runtime: Callable[[], Runtime]) -> list[Tool]:
    """The two memory tools, working on ``runtime()``."""
    from chatcli import Risk

    def run_search(args: SearchArgs, _context: Any) -> str:
        return search_text(runtime(), args.query, args.limit)

    def run_save(args: SaveArgs, _context: Any) -> str:
        from chatcli_memory.model import SecretRefused

        current = runtime()
        memory = current.open()
        if memory is None:
            raise RuntimeError(f"memory is unavailable: {current.failure or 'it is off'}")
        try:
            outcome = memory.remember(args.text, kind=MemoryKind.FACT, subject=args.subject,
                                      scope="global" if args.scope == "global" else "project",
                                      provenance=Provenance.STATED,
                                      metadata={"source": "memory_save"})
        except SecretRefused as err:
            raise ValueError(str(err)) from None
        if outcome.item is None:
            return f"Nothing saved ({outcome.note})."
        current.added.append(outcome.item)
        if outcome.action == "merged":
            return f"Already remembered as {outcome.item.id}; reinforced."
        if outcome.replaced is not None:
            return f"Saved as {outcome.item.id}, replacing {outcome.replaced.id}."
        return f"Saved as {outcome.item.id}."

    return [
        MemoryTool(name="memory_search", description="Search long-term memory (facts, "
                   "preferences, projects, notes from earlier conversations) "
                   "by words.",  # untranslated: the tool's description, for the model
                   run=run_search, args="SearchArgs", risk=Risk.READ),
        MemoryTool(name="memory_save", description="Save a durable fact (a tool, convention, "
                   "decision or the user's preference) to long-term memory for later "
                   "conversations.",  # untranslated: the tool's description, for the model
                   run=run_save, args="SaveArgs", risk=Risk.WRITE),
    ]


def pull_kind(runtime: Callable[[], Runtime | None]) -> PullKind:
    """``context_pull {"kind": "memory", "query": "…"}``."""
    from chatcli_plugin_records import PullKind

    def fetch(arguments: Mapping[str, Any], _context: Any) -> str:
        current = runtime()
        if current is None:
            raise RuntimeError("memory is not set up in this run")
        query = arguments.get("query") or arguments.get("name") or arguments.get("q") or ""
        if not isinstance(query, str) or not query.strip():
            index = current.index(current.conversation.id if current.conversation else "")[0]
            return (index or "Memory holds nothing yet.") + \
                '\n\nSearch it with {"kind": "memory", "query": "words"}.'
        limit = arguments.get("limit")
        return search_text(current, query, limit if isinstance(limit, int) and
                           0 < limit <= 30 else 8)

    return PullKind("memory", "long-term memory: facts, preferences, projects and notes from "
                              "earlier conversations, searched by words", fetch,
                    "query: the words to look for; limit (optional)")
