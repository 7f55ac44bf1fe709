"""What an MCP tool call brings back, as the text a chatcli tool result carries; and tool names.

A chatcli tool result is text (``ToolResultPart.content``), so: text blocks stay text;
structured content is added as JSON when no text block already says the same; an image or audio
block is saved under chatcli's cache folder and named with its type and size (the model cannot
see it, the person can open it); a resource link or an embedded resource is named, with its
text when it has some. ``is_error`` results raise :class:`ToolFailed`, whose one-line message
the engine sends as an error result.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

__all__ = ["ToolFailed", "one_line", "render_result", "tool_name"]

_INVALID = re.compile(r"[^A-Za-z0-9_-]")
_LINE_BREAKS = {"\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
               "image/webp": ".webp", "audio/wav": ".wav", "audio/mpeg": ".mp3",
               "audio/ogg": ".ogg"}


class ToolFailed(Exception):
    """An MCP tool answered with an error, or could not be called; the message is one line
    (the engine sends the first line only)."""


def one_line(text: str, limit: int = 4_000) -> str:
    """``text`` on one line: line breaks shown as ``⏎``, cut to ``limit`` characters."""
    flat = " ⏎ ".join(line.rstrip() for line in text.strip().splitlines())
    for char, escape in _LINE_BREAKS.items():
        flat = flat.replace(char, escape)
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def tool_name(server: str, tool: str) -> str:
    """The chatcli name of ``tool`` of ``server``: ``mcp__server__tool``, with characters
    providers refuse replaced by ``_`` and cut to 64 with a short hash when too long."""
    name = f"mcp__{server}__{_INVALID.sub('_', tool)}"
    if len(name) <= 64:
        return name
    digest = hashlib.sha1(tool.encode()).hexdigest()[:6]
    return name[:57] + "_" + digest


def _save(data: str, media_type: str, folder: Path) -> tuple[Path | None, int]:
    try:
        raw = base64.b64decode(data, validate=False)
    except (ValueError, TypeError):
        return None, len(data)
    name = hashlib.sha256(raw).hexdigest()[:16] + _EXTENSIONS.get(media_type, ".bin")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists():
            path.write_bytes(raw)
        return path, len(raw)
    except OSError:
        return None, len(raw)


def _size(count: int) -> str:
    return f"{count / 1024:.1f} KB" if count >= 1024 else f"{count} bytes"


def _block(block: Any, media: Path) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        said: str = block.text
        return said
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", None) or "application/octet-stream"
        path, size = _save(getattr(block, "data", "") or "", mime, media)
        where = f" saved as {path}" if path is not None else ""
        return (f"[{kind} {mime}, {_size(size)}{where} — chatcli sends tool results as text, so "
                f"the {kind} itself is not shown to the model]")
    if kind == "resource_link":
        parts = [str(block.uri)]
        for label in ("name", "mime_type", "description"):
            value = getattr(block, label, None)
            if value:
                parts.append(f"{label.replace('_', ' ')}: {value}")
        return "[resource link: " + "; ".join(parts) + "]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        uri = getattr(resource, "uri", "")
        if text is not None:
            return f'<resource uri="{uri}">\n{text}\n</resource>'
        blob = getattr(resource, "blob", "") or ""
        mime = getattr(resource, "mime_type", None) or "application/octet-stream"
        path, size = _save(blob, mime, media)
        where = f", saved as {path}" if path is not None else ""
        return f"[resource {uri}: {mime}, {_size(size)}{where}]"
    dumped = block.model_dump(mode="json") if hasattr(block, "model_dump") else str(block)
    return json.dumps(dumped, ensure_ascii=False)[:2_000]


def _same_json(texts: list[str], structured: Any) -> bool:
    """Whether a text block already says what the structured content says (servers often send
    both; a bare value is wrapped as ``{"result": value}``)."""
    wanted = [structured]
    if isinstance(structured, dict) and list(structured) == ["result"]:
        wanted.append(structured["result"])
    for text in texts:
        try:
            if json.loads(text) in wanted:
                return True
        except ValueError:
            if any(isinstance(w, str) and w == text for w in wanted):
                return True
    return False


def render_result(result: Any, media: Path) -> str:
    """The text of a ``CallToolResult``; raises :class:`ToolFailed` when ``is_error``."""
    blocks = list(getattr(result, "content", None) or [])
    pieces = [_block(block, media) for block in blocks]
    texts = [b.text for b in blocks if getattr(b, "type", "") == "text"]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not _same_json(texts, structured):
        shown = json.dumps(structured, ensure_ascii=False, indent=1)
        pieces.append(shown if not pieces else f"structured content:\n{shown}")
    text = "\n\n".join(p for p in pieces if p.strip())
    if getattr(result, "is_error", False):
        raise ToolFailed(one_line(text) if text.strip() else "the server reported an error "
                         "and said nothing more")
    return text if text.strip() else "(the tool returned nothing)"
