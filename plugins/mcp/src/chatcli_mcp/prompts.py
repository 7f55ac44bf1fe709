"""MCP prompts as slash commands (``/mcp__server__prompt args``) and resources attached to a
message (``@server:uri``).

The chat lists its commands once, at start-up, and a server may take seconds to start (or never
answer): the commands come from the servers that are up within ``[mcp] prompt_wait`` seconds,
and for the others from what they offered last time (a catalog in chatcli's cache folder,
written whenever a server lists its prompts).
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_mcp.results import ToolFailed, one_line, tool_name

if TYPE_CHECKING:
    from chatcli import Message, SlashCommand

    from chatcli_mcp.connection import Connection
    from chatcli_mcp.manager import Manager

__all__ = ["attach_resources", "prompt_commands", "remember", "resource_references"]

_, ngettext = translation(__name__)

#: ``@server:uri`` in a message (the server must be a configured one).
_REFERENCE = re.compile(r"(?<!\S)@([A-Za-z0-9_-]+):(\S+)")
_TRAILING = ",.;!?)]}'\""
#: The longest resource text attached to a message.
MAX_RESOURCE_CHARS = 200_000


def _catalog_path() -> Path:
    from chatcli import cache_dir

    return cache_dir() / "mcp" / "prompts.json"


def _read_catalog() -> dict[str, Any]:
    try:
        data = json.loads(_catalog_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _prompt_entry(prompt: Any) -> dict[str, Any]:
    arguments = [{"name": a.name, "required": bool(getattr(a, "required", False)),
                  "description": getattr(a, "description", None) or ""}
                 for a in (getattr(prompt, "arguments", None) or [])]
    return {"name": prompt.name, "description": getattr(prompt, "description", None) or "",
            "arguments": arguments}


def remember(connection: Connection) -> None:
    """Keep the prompts ``connection`` offers for the next start-up's commands."""
    key = f"{connection.name} {connection.config.where}"
    entries = [_prompt_entry(p) for p in connection.listing.prompts]
    catalog = _read_catalog()
    if catalog.get(key) == entries:
        return
    catalog[key] = entries
    with contextlib.suppress(OSError):
        from chatcli import atomic_write

        path = _catalog_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(catalog, ensure_ascii=False, indent=1))


def _usage(entry: dict[str, Any]) -> str:
    words = []
    for argument in entry["arguments"]:
        words.append(f"{argument['name']}=…" if argument["required"] else
                     f"[{argument['name']}=…]")
    return " ".join(words)


def parse_arguments(text: str, entry: dict[str, Any]) -> dict[str, str]:
    """``key=value`` words (quotes work); a prompt with one argument takes the whole text;
    other plain words fill the arguments in order. Raises ValueError naming what is missing."""
    names = [a["name"] for a in entry["arguments"]]
    values: dict[str, str] = {}
    text = text.strip()
    if len(names) == 1 and text and not text.startswith(f"{names[0]}="):
        values[names[0]] = text
    elif text:
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        positional = []
        for word in words:
            key, sep, value = word.partition("=")
            if sep and key in names:
                values[key] = value
            else:
                positional.append(word)
        free = [n for n in names if n not in values]
        for name, value in zip(free, positional, strict=False):
            values[name] = value
        if len(positional) > len(free):
            extra = " ".join(positional[len(free):])
            raise ValueError(_("too many words: {extra!r}").format(extra=extra))
    missing = [a["name"] for a in entry["arguments"] if a["required"] and a["name"] not in values]
    if missing:
        raise ValueError(_("missing {names}").format(names=", ".join(missing)))
    return values


def _prompt_text(result: Any) -> str:
    """The prompt's messages as one text (roles named when it has more than one)."""
    messages = list(getattr(result, "messages", None) or [])
    pieces = []
    for message in messages:
        content = message.content
        blocks = content if isinstance(content, list) else [content]
        text = "\n".join(_content_text(b) for b in blocks)
        pieces.append((str(message.role), text))
    if len({role for role, _ in pieces}) <= 1:
        return "\n\n".join(text for _, text in pieces)
    return "\n\n".join(f"[{role}]\n{text}" for role, text in pieces)


def _content_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        said: str = block.text
        return said
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        return text if text is not None else f"[resource {resource.uri}]"
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    return f"[{kind or 'content'} not shown]"


def _run_prompt(owner: Manager, server: str, entry: dict[str, Any]) -> Any:
    def run(app: Any, text: str) -> None:
        from chatcli import UsageError

        command = tool_name(server, entry["name"])
        try:
            arguments = parse_arguments(text, entry)
        except ValueError as err:
            raise UsageError(f"/{command}: {err}",
                             _("use /{command} {usage}").format(
                                 command=command, usage=_usage(entry)).rstrip()) from None
        connection = owner.connection(server)
        if connection is None:
            raise UsageError(_("/{command}: the MCP server '{server}' is not configured").format(
                                 command=command, server=server),
                             _("`chatcli mcp list` shows the servers"))
        try:
            result = connection.request("get_prompt", entry["name"], arguments)
        except ToolFailed as err:
            raise UsageError(f"/{command}: {err}", _("/mcp shows the server's state")) from None
        prompt = _prompt_text(result).strip()
        if not prompt:
            raise UsageError(_("/{command}: the prompt is empty").format(command=command),
                             _("check the server"))
        app.ask(prompt)

    return run


def prompt_commands(owner: Manager, patient: bool = False) -> list[SlashCommand]:
    """A slash command per prompt of every server (running, or as last seen).

    The chat waits at most ``prompt_wait`` seconds for the servers; ``patient`` (a one-shot
    ``chatcli -p "/…"``, where nothing else waits) waits for a server whose prompts are not in
    the catalog yet as long as its start may take."""
    from chatcli import SlashCommand

    if not owner.ensure_configured():
        return []
    owner.load()
    if not owner.connections:
        return []
    catalog = _read_catalog()
    known = all(f"{n} {c.config.where}" in catalog for n, c in owner.connections.items())
    owner.start(wait=None if patient and not known else owner.options.prompt_wait)
    commands = []
    for name, connection in owner.connections.items():
        if connection.state == "ready":
            entries = [_prompt_entry(p) for p in connection.listing.prompts]
        else:
            entries = catalog.get(f"{name} {connection.config.where}") or []
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            usage = _usage(entry)
            description = one_line(entry.get("description") or "", 120)
            commands.append(SlashCommand(
                name=tool_name(name, entry["name"]), run=_run_prompt(owner, name, entry),
                help=_prompt_help(name, description, usage)))
    return commands


# ------------------------------------------------------------------------------ resources


def _prompt_help(server: str, description: str, usage: str) -> str:
    """``/help``'s line of a server's prompt (its description is the server's, as it is)."""
    text = (_("MCP prompt of {server}: {description}").format(server=server,
                                                              description=description)
            if description else _("MCP prompt of {server}").format(server=server))
    return text + (f" — {usage}" if usage else "")


def resource_references(text: str, servers: set[str]) -> list[tuple[str, str]]:
    """The ``@server:uri`` words of ``text`` naming a configured server, once each."""
    found: list[tuple[str, str]] = []
    for match in _REFERENCE.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        if server in servers and uri and (server, uri) not in found:
            found.append((server, uri))
    return found


def _resource_text(result: Any, uri: str, server: str) -> str:
    pieces = []
    for content in getattr(result, "contents", None) or []:
        text = getattr(content, "text", None)
        shown_uri = getattr(content, "uri", uri)
        if text is not None:
            if len(text) > MAX_RESOURCE_CHARS:
                text = (text[:MAX_RESOURCE_CHARS] + f"\n[… cut: the resource has {len(text):,} "
                        "characters]")
            pieces.append(f'<resource server="{server}" uri="{shown_uri}">\n{text.rstrip()}\n'
                          "</resource>")
        else:
            mime = getattr(content, "mime_type", None) or "binary"
            size = len(getattr(content, "blob", "") or "") * 3 // 4
            pieces.append(f'<resource server="{server}" uri="{shown_uri}">[{mime}, about '
                          f"{size:,} bytes: not text, not attached]</resource>")
    return "\n".join(pieces) or f'<resource server="{server}" uri="{uri}">(empty)</resource>'


def attach_resources(owner: Manager, message: Message) -> None:
    """Append the resources a user message names (``@server:uri``) to it as text parts; one
    that cannot be read becomes a note in the message and a line for the person."""
    from chatcli import Role, TextPart

    if message.role != Role.USER or "@" not in message.text:
        return
    if not owner.ensure_configured():
        return
    servers = set(owner.load().servers)
    references = resource_references(message.text, servers)
    for server, uri in references:
        connection = owner.connection(server)
        try:
            if connection is None:
                raise ToolFailed(_("the MCP server '{server}' is not enabled").format(
                    server=server))
            result = connection.request("read_resource", uri)
            text = _resource_text(result, uri, server)
        except ToolFailed as err:
            owner.say(_("mcp: @{server}:{uri} was not attached: {reason}").format(
                server=server, uri=uri, reason=err))
            owner.flush()
            text = f'<resource server="{server}" uri="{uri}">[not attached: {err}]</resource>'
        message.parts.append(TextPart(text=f"\n\n{text}"))
