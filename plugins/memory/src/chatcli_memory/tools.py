"""What the model may call: ``memory_search`` (read), ``memory_save`` (write: asked like any
write), and the ``memory`` kind of ``context_pull`` (served by chatcli-context)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from chatcli_memory_api import MemoryKind, Provenance
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from chatcli import Tool
    from chatcli_plugin_records import PullKind

    from chatcli_memory.runtime import Runtime

__all__ = ["make_tools", "pull_kind", "search_text"]


class SearchArgs(BaseModel):
    """Search long-term memory."""

    query: str = Field(description="words to look for (any order)")
    limit: int = Field(8, ge=1, le=30, description="most items to return")


class SaveArgs(BaseModel):
    """Save one durable fact to long-term memory."""

    text: str = Field(description="the fact, one self-contained sentence; never a secret")
    subject: str = Field("", description="what it is about, 1-4 words (a newer fact on the "
                                         "same subject replaces the older one)")
    scope: str = Field("project", description="'project' (this project only) or 'global'")


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
        lines.append(f"- [{item.id}] ({kind}, confidence {item.confidence:.2f}) {item.text}")
    return "\n".join(lines)


def make_tools(runtime: Callable[[], Runtime]) -> list[Tool]:
    """The two memory tools, working on ``runtime()``."""
    from chatcli import Risk, Tool

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
        Tool("memory_search", "Search long-term memory (facts, preferences, projects, notes "
                              "from earlier conversations) by words.", run_search,
             args_model=SearchArgs, risk=Risk.READ),
        Tool("memory_save", "Save a durable fact (a tool, convention, decision or the "
                            "user's preference) to long-term memory for later "
                            "conversations.", run_save, args_model=SaveArgs, risk=Risk.WRITE),
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
