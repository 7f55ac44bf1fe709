"""Prompt economy: which MCP tool definitions a model call carries, and what the prompt says.

Every MCP tool is registered with the kernel (so a call to it runs whatever the request
showed), but the request carries:

- **in chat** (``deferred``): no MCP definitions — a stable section lists the tools by server and
  name with a count, and ``context_pull {"kind":"mcp_tools",…}`` returns their descriptions and
  schemas; a tool whose definition was pulled is then sent as a real tool (the model can call it
  natively) for the rest of the conversation;
- **in agent runs** (``/agent``, ``/coder``: the request holds the mode's prompt section): the
  real definitions, unless they would take more than ``max_tool_share`` of the context window
  (4 characters a token), in which case only ``mcp_search`` is sent, which finds tools by name
  or description and loads the ones it returns (they are sent as real tools from the next step);
- ``[mcp] tool_mode = "full"`` always sends every definition; ``"deferred"`` defers in agent
  runs too. Without ``context_pull`` (chatcli-context absent, or pull off) chat uses
  ``mcp_search`` instead.

The text protocol (``tool_calls = "text"``) gets the same choice: the provider describes in its
prompt the tools the request carries once they are cut.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import ChatRequest, PromptSection, Settings

    from chatcli_mcp.manager import Manager, McpTool

__all__ = ["AGENT_SECTIONS", "PULL_KIND", "SEARCH_TOOL", "Economy", "Plan", "tool_chars"]

#: The prompt sections chatcli-agent's modes add while a run lasts (``/agent``, ``/coder``):
#: their presence is how an agent run is told from a chat.
AGENT_SECTIONS = frozenset({"agent-mode", "coder-mode"})
SEARCH_TOOL = "mcp_search"
PULL_KIND = "mcp_tools"
SECTION = "mcp-tools"
#: Characters a token, for the share of the context window the definitions would take.
CHARS_PER_TOKEN = 4
DEFAULT_WINDOW = 128_000


def tool_chars(items: Iterable[McpTool]) -> int:
    """Characters of the definitions as a provider receives them (name, description, schema)."""
    return sum(len(json.dumps({"name": t.name, "description": t.description,
                               "parameters": t.schema}, ensure_ascii=False)) for t in items)


@dataclass
class Plan:
    """What one model call carries of the MCP tools."""

    how: str  # "none", "full", "deferred", "search"
    visible: set[str] = field(default_factory=set)
    search: bool = False
    sections: list[PromptSection] = field(default_factory=list)


class Economy:
    """The choice for each call, and the tools each conversation enabled (pulled or found)."""

    def __init__(self, owner: Manager) -> None:
        self.owner = owner
        self._enabled: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        #: the settings the turn runs with (seen in prompt_sections; before_request has none)
        self.settings: Settings | None = None

    # ------------------------------------------------------------------ enabled tools

    def enabled(self, conversation_id: str | None) -> set[str]:
        with self._lock:
            return set(self._enabled.get(conversation_id or "", set()))

    def enable(self, conversation_id: str | None, names: Iterable[str]) -> list[str]:
        """Send ``names`` as real tools in this conversation from the next call; the new ones."""
        with self._lock:
            have = self._enabled.setdefault(conversation_id or "", set())
            new = [n for n in names if n not in have]
            have.update(new)
        if new:
            self.owner.tools_changed()
        return new

    # ------------------------------------------------------------------ the choice

    def window(self, settings: Settings, provider: str, model: str) -> int:
        """The context window of the model in use (the kernel's precedence)."""
        configured = settings.provider_settings(provider).context_window or settings.context_window
        if configured:
            return configured
        host = self.owner.host
        if host is not None:
            try:
                spec = host.providers().get(provider)
            except Exception:
                spec = None
            if spec is not None:
                return spec.context_window(model) or DEFAULT_WINDOW
        return DEFAULT_WINDOW

    def pull_available(self) -> bool:
        host = self.owner.host
        if host is None:
            return False
        try:
            return "context_pull" in host.tools()
        except Exception:
            return False

    def plan(self, *, agent: bool, settings: Settings, provider: str, model: str,
             conversation_id: str | None, called: Iterable[str] = ()) -> Plan:
        """The plan for one call (deterministic: the same inputs give the same prompt).

        ``called``: the MCP tools the conversation's view already calls — they stay offered
        (after ``chatcli -c`` too, where nothing is remembered of the pulls)."""
        items = self.owner.mcp_tools()
        if not items:
            return Plan("none", sections=self._down_section())
        mode = self.owner.options.tool_mode
        enabled = (self.enabled(conversation_id) | set(called)) & set(items)
        if mode == "full":
            return Plan("full", set(items), sections=self._down_section())
        if agent and mode == "auto":
            budget = self.owner.options.max_tool_share * self.window(settings, provider, model)
            chars = tool_chars(items.values())
            if chars / CHARS_PER_TOKEN <= budget:
                return Plan("full", set(items), sections=self._down_section())
            return Plan("search", enabled, True,
                        [self._search_section(items, chars, budget), *self._down_section()])
        if self.pull_available():
            return Plan("deferred", enabled,
                        sections=[self._list_section(items), *self._down_section()])
        return Plan("search", enabled, True,
                    [self._search_section(items, tool_chars(items.values()), None),
                     *self._down_section()])

    # ------------------------------------------------------------------ sections

    def _by_server(self, items: Mapping[str, McpTool]) -> dict[str, list[McpTool]]:
        servers: dict[str, list[McpTool]] = {}
        for item in items.values():
            servers.setdefault(item.server, []).append(item)
        return servers

    def _list_section(self, items: Mapping[str, McpTool]) -> PromptSection:
        from chatcli import PromptSection

        servers = self._by_server(items)
        lines = [
            f"MCP tools: {len(items)} tool{'s' if len(items) != 1 else ''} from "
            f"{len(servers)} MCP server{'s' if len(servers) != 1 else ''}, listed by name only "
            "to keep this prompt small. Before using one, read its description and arguments "
            'with context_pull {"kind":"mcp_tools","name":"TOOL"} (several: "name":"A,B"; a '
            'whole server: {"kind":"mcp_tools","server":"SERVER"}); then call it by its name.',
        ]
        for server in sorted(servers):
            names = ", ".join(t.name for t in sorted(servers[server], key=lambda t: t.name))
            lines.append(f"- {server} ({len(servers[server])}): {names}")
        return PromptSection(name=SECTION, text="\n".join(lines), order=60)

    def _search_section(self, items: Mapping[str, McpTool], chars: int,
                        budget: float | None) -> PromptSection:
        from chatcli import PromptSection

        servers = self._by_server(items)
        listing = ", ".join(f"{s} ({len(servers[s])})" for s in sorted(servers))
        why = (f" (their definitions, about {chars // CHARS_PER_TOKEN:,} tokens, would take more "
               f"than the {int(budget):,} tokens allowed for them)" if budget is not None else "")
        text = (f"MCP tools: {len(items)} tools from these MCP servers are available but not "
                f"loaded{why}: {listing}. Find the ones the task needs with "
                f'{SEARCH_TOOL} {{"query":"what you need"}}; the tools it returns are loaded '
                "and can be called from your next answer.")
        return PromptSection(name=SECTION, text=text, order=60)

    def _down_section(self) -> list[PromptSection]:
        """A volatile note on servers that are not running (their tools fail until back)."""
        from chatcli import PromptSection

        down = [c.unavailable() for c in self.owner.connections.values()
                if c.state in ("restarting", "failed")]
        if not down:
            return []
        return [PromptSection(name="mcp-status", stable=False, order=160,
                              text="MCP: " + " ".join(down))]

    # ------------------------------------------------------------------ the request

    def apply(self, request: ChatRequest, plan: Plan) -> None:
        """Cut ``request``'s tools to the plan (a provider speaking the text protocol describes
        the ones left in its prompt)."""
        mcp = set(self.owner.mcp_tools())
        if plan.how == "none" and not mcp:
            hidden = {SEARCH_TOOL}
        else:
            hidden = {n for n in mcp if n not in plan.visible}
            if not plan.search:
                hidden.add(SEARCH_TOOL)
        if hidden and request.tools:
            request.tools = [t for t in request.tools if t.name not in hidden]


# ------------------------------------------------------------------------------ finding tools


_WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text.replace("_", " "))]


def search(items: Mapping[str, McpTool], query: str, server: str | None = None,
           limit: int = 5) -> list[McpTool]:
    """The tools that best match ``query`` by name and description (name words count more);
    an exact name (short or full) comes first."""
    wanted = _words(query)
    exact = {n.strip() for n in re.split(r"[,\s]+", query) if n.strip()}
    scored = []
    for item in items.values():
        if server and item.server != server:
            continue
        if item.name in exact or item.tool in exact:
            scored.append((1_000.0, item.name, item))
            continue
        name_words = set(_words(item.tool)) | {item.server.lower()}
        text_words = _words(item.description)
        score = 0.0
        for word in wanted:
            if word in name_words:
                score += 3
            elif any(w.startswith(word) or word.startswith(w) for w in name_words if len(w) > 2):
                score += 2
            if word in text_words:
                score += 1
        if score or not wanted:
            scored.append((score, item.name, item))
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    return [item for _score, _name, item in scored[:limit]]


def describe_tools(found: list[McpTool]) -> str:
    """Each tool's name, server, description and JSON schema."""
    blocks = []
    for item in found:
        schema = json.dumps(item.schema, ensure_ascii=False, separators=(",", ":"))
        blocks.append(f"## {item.name}\nMCP server: {item.server} (its tool '{item.tool}')\n"
                      f"{item.description}\nArguments (JSON schema): {schema}")
    return "\n\n".join(blocks)


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [n.strip() for n in re.split(r"[,\s]+", value) if n.strip()]
    if isinstance(value, list | tuple):
        return [str(n).strip() for n in value if str(n).strip()]
    return []


def fetch_kind(economy: Economy, arguments: Mapping[str, Any], context: Any) -> str:
    """``context_pull {"kind":"mcp_tools", "name"?, "server"?, "query"?}``: descriptions and
    schemas; the tools returned are enabled in the conversation."""
    items = economy.owner.mcp_tools()
    if not items:
        raise ValueError("no MCP tools are available (no server is running); /mcp shows why")
    names = _names(arguments.get("name") or arguments.get("names") or arguments.get("tool")
                   or arguments.get("tools"))
    server = arguments.get("server")
    query = arguments.get("query")
    chosen: list[McpTool] = []
    unknown: list[str] = []
    for name in names:
        match = items.get(name) or next(
            (t for t in items.values() if t.tool == name or name == f"{t.server}__{t.tool}"
             or (server and t.server == server and t.tool == name)), None)
        if match is None:
            unknown.append(name)
        elif match not in chosen:
            chosen.append(match)
    if isinstance(server, str) and server and not names:
        if not any(t.server == server for t in items.values()):
            known = ", ".join(sorted({t.server for t in items.values()}))
            raise ValueError(f"no MCP server '{server}'; the servers are: {known}")
        chosen = [t for t in items.values() if t.server == server]
    if isinstance(query, str) and query.strip() and not names:
        chosen = search(items, query, server if isinstance(server, str) else None,
                        economy.owner.options.search_results)
    if unknown and not chosen:
        close = search(items, " ".join(unknown), limit=3)
        hint = f"; close: {', '.join(t.name for t in close)}" if close else ""
        raise ValueError(f"no MCP tool {', '.join(unknown)}{hint}")
    if not chosen:
        servers = economy._by_server(items)
        listing = "\n".join(f"- {s} ({len(v)}): {', '.join(t.name for t in v)}"
                            for s, v in sorted(servers.items()))
        return (f"{len(items)} MCP tools. Ask for one or more by name "
                '({"kind":"mcp_tools","name":"A,B"}) or for a whole server '
                '({"kind":"mcp_tools","server":"S"}):\n' + listing)
    limit = max(2_000, getattr(context, "max_output", 30_000) - 600)
    shown: list[McpTool] = []
    text = ""
    for item in chosen:
        candidate = describe_tools([*shown, item])
        if len(candidate) > limit and shown:
            break
        shown, text = [*shown, item], candidate
    conversation = getattr(context, "conversation", None)
    economy.enable(getattr(conversation, "id", None), [t.name for t in shown])
    rest = chosen[len(shown):]
    tail = ""
    if rest:
        tail = (f"\n\n[{len(rest)} more did not fit: ask for them by name: "
                f"{', '.join(t.name for t in rest)}]")
    if unknown:
        tail += f"\n\n[not found: {', '.join(unknown)}]"
    return (text + tail + "\n\nThese tools can now be called by name (from your next answer "
            "they are also offered as tools).")


def run_search(economy: Economy, arguments: Any, context: Any) -> str:
    """The ``mcp_search`` tool: find tools and load them."""
    items = economy.owner.mcp_tools()
    query = str(arguments.get("query") or "").strip()
    server = arguments.get("server") or None
    limit = arguments.get("limit") or economy.owner.options.search_results
    try:
        limit = max(1, min(20, int(limit)))
    except (TypeError, ValueError):
        limit = economy.owner.options.search_results
    if server is not None and not any(t.server == server for t in items.values()):
        known = ", ".join(sorted({t.server for t in items.values()})) or "none"
        raise ValueError(f"no MCP server '{server}'; the servers are: {known}")
    found = search(items, query, server, limit)
    if not found:
        servers = ", ".join(sorted({t.server for t in items.values()}))
        return (f"no MCP tool matches {query!r}; try other words, or a server: {servers}")
    conversation = getattr(context, "conversation", None)
    economy.enable(getattr(conversation, "id", None), [t.name for t in found])
    return (f"Loaded {len(found)} MCP tool{'s' if len(found) != 1 else ''} (callable from your "
            "next answer):\n\n" + describe_tools(found))


def search_tool(economy: Economy) -> Any:
    """The ``mcp_search`` tool (read-only: it looks through the tool lists)."""
    from chatcli import Risk, Tool

    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string",
                      "description": "words for what the tool should do, or tool names"},
            "server": {"type": "string", "description": "only this MCP server's tools"},
            "limit": {"type": "integer", "description": "how many tools at most (default "
                      f"{economy.owner.options.search_results})"},
        },
        "required": ["query"],
    }
    return Tool(name=SEARCH_TOOL, parameters=schema, risk=Risk.READ,
                description="Find MCP tools by name or description and load them: the tools "
                            "it returns are described here and can be called from your next "
                            "answer.",  # untranslated: the tool's description, for the model
                run=lambda arguments, context: run_search(economy, arguments, context))
