"""Claude Code's agent files as chatcli reads them: tool names and model aliases.

Claude Code's subagents (``.claude/agents/*.md``) name their tools as Claude Code does
(``tools: Read, Grep, Glob, Bash`` — a comma-separated string or a YAML list; absent: every
tool) and their model as an alias (``sonnet``, ``opus``, ``haiku``, ``inherit``) or a model id.
:func:`parse_tools` turns such a list into chatcli's tool names, with what it had to leave out;
it never raises. Nothing heavy is imported here: the persona tool limit uses the table on every
model call.
"""

from __future__ import annotations

from typing import Any

from chatcli import translation

__all__ = ["CLAUDE_TOOL_NAMES", "MODEL_ALIASES", "UNAVAILABLE", "ToolList", "parse_tools",
           "split_entries", "tool_name"]

_, ngettext = translation(__name__)

#: Claude Code's tool names (lower-cased) as chatcli's tools are called (chatcli-coder's
#: ``read``, ``write``, ``edit``, ``multiedit``, ``search``, ``glob``, ``tree``, ``exec``;
#: chatcli-subagents' ``delegate``). Names already spelled as chatcli's are not listed.
CLAUDE_TOOL_NAMES = {
    "bash": "exec",
    "grep": "search",
    "ls": "tree",
    "notebookedit": "edit",
    "notebookread": "read",
    "task": "delegate",
    "agent": "delegate",
}

#: Claude Code's tools chatcli has no counterpart for: left out of a type's tool list, and said
#: so in its ``source`` line.
UNAVAILABLE = frozenset({
    "webfetch", "websearch", "todowrite", "todoread", "bashoutput", "killshell", "killbash",
    "exitplanmode", "slashcommand", "skill", "listmcpresourcestool", "readmcpresourcetool",
})

#: Claude Code's model aliases: the tier, not a model id (``inherit``: the caller's model).
MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "inherit"})

#: Longest tool list read (entries after it are ignored): a sane file lists a dozen.
MAX_ENTRIES = 200


def tool_name(entry: str) -> str:
    """A tool list's entry as chatcli names the tool: ``Bash(git add:*)`` → ``exec``,
    ``Read`` → ``read``; another name is kept as written (a plugin's or an MCP server's tool)."""
    name = entry.split("(", 1)[0].strip()
    lowered = name.lower()
    if lowered in CLAUDE_TOOL_NAMES:
        return CLAUDE_TOOL_NAMES[lowered]
    if lowered in _CHATCLI_SPELLED:
        return lowered
    return name


#: Claude Code's names that are chatcli's own lower-cased (``Read`` is ``read``).
_CHATCLI_SPELLED = frozenset({"read", "write", "edit", "multiedit", "glob"})


def split_entries(text: str) -> list[str]:
    """``"Read, Bash(git diff:*, git log:*), Grep"`` → its entries: commas inside brackets do
    not split (a Claude Code permission pattern may hold one), a line break always does (an
    unclosed bracket ends with its line); blanks around entries go."""
    entries: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char == "\n" or (char == "," and depth == 0):
            entries.append(text[start:index])
            start, depth = index + 1, 0
    entries.append(text[start:])
    return [entry.strip() for entry in entries if entry.strip()]


class ToolList:
    """A parsed tool list: ``tools`` (chatcli's names, in order, each once; None: no list, so
    every tool), ``ignored`` (Claude Code tools chatcli lacks), ``patterns`` (entries whose
    permission pattern is not enforced: the whole tool is allowed)."""

    __slots__ = ("ignored", "patterns", "tools")

    def __init__(self, tools: tuple[str, ...] | None, ignored: tuple[str, ...] = (),
                 patterns: tuple[str, ...] = ()) -> None:
        self.tools = tools
        self.ignored = ignored
        self.patterns = patterns

    def note(self) -> str:
        """What was left out or widened, for a type's source line ('' when nothing was)."""
        parts = []
        if self.ignored:
            parts.append(_("tools chatcli lacks, ignored: {tools}").format(
                tools=", ".join(self.ignored)))
        if self.patterns:
            parts.append(_("patterns not enforced (the whole tool): {patterns}").format(
                patterns=", ".join(self.patterns)))
        return "; ".join(parts)


def parse_tools(value: Any) -> ToolList:
    """A frontmatter ``tools`` value (a comma-separated string, a YAML list, None) as chatcli's
    tool names. Never raises: anything else is read as its text."""
    if value is None:
        return ToolList(None)
    if isinstance(value, str):
        entries = split_entries(value)
    elif isinstance(value, list | tuple | set | frozenset):
        entries = []
        for item in value:
            if item is None or isinstance(item, dict | list | tuple):
                continue
            entries.extend(split_entries(str(item)))
    elif isinstance(value, dict):
        entries = [str(key).strip() for key in value if str(key).strip()]
    else:
        entries = split_entries(str(value))
    tools: list[str] = []
    ignored: list[str] = []
    patterns: list[str] = []
    for entry in entries[:MAX_ENTRIES]:
        name = tool_name(entry)
        if not name:
            continue
        if name.lower() in UNAVAILABLE:
            if entry not in ignored:
                ignored.append(entry)
            continue
        if "(" in entry and entry not in patterns:
            patterns.append(entry)
        if name not in tools:
            tools.append(name)
    return ToolList(tuple(tools), tuple(ignored), tuple(patterns))
