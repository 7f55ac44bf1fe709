"""Reading a server-sent event stream (the WHATWG rules, as much of them as ``chatcli serve``
uses): ``id:``, ``event:`` and ``data:`` fields, a blank line ending each event, ``:`` lines
(the server's pings) ignored, several ``data:`` lines joined with newlines. The data of every
``chatcli serve`` event is one JSON object."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SseEvent", "decode", "split_lines"]


@dataclass(frozen=True)
class SseEvent:
    """One event of the stream: its id (``""`` when it had none), kind (``event:``; ``message``
    by default) and data (the JSON object; ``{"text": raw}`` when it was not one)."""

    id: str
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def _parse(kind: str, lines: list[str], event_id: str) -> SseEvent:
    raw = "\n".join(lines)
    try:
        data = json.loads(raw, strict=False) if raw else {}  # (control characters: kept)
    except ValueError:
        data = {"text": raw}
    if not isinstance(data, dict):
        data = {"value": data}
    return SseEvent(event_id, kind or "message", data)


def split_lines(chunks: Iterable[str]) -> Iterator[str]:
    """The lines of a stream given in pieces, split only where SSE splits them (CR LF, LF or
    CR): not at the other line breaks Python's ``splitlines`` knows (U+2028, U+0085, form
    feed…), which JSON may hold unescaped."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        start = 0
        while True:
            cut = min((i for i in (buffer.find("\n", start), buffer.find("\r", start))
                       if i >= 0), default=-1)
            if cut < 0 or (buffer[cut] == "\r" and cut == len(buffer) - 1):
                break  # no end yet (a CR last: its LF may come in the next piece)
            yield buffer[start:cut]
            start = cut + (2 if buffer.startswith("\r\n", cut) else 1)
        buffer = buffer[start:]
    if buffer.endswith("\r"):
        buffer = buffer[:-1]
        yield buffer
        buffer = ""
    if buffer:
        yield buffer


def decode(lines: Iterable[str]) -> Iterator[SseEvent]:
    """The events of a stream given as its lines (without their line ends); an event the stream
    ended in the middle of is dropped, as the standard says."""
    kind = ""
    data: list[str] = []
    event_id = ""
    for line in lines:
        if not line:
            if data:
                yield _parse(kind, data, event_id)
            kind, data = "", []
            continue
        if line.startswith(":"):
            continue  # a comment: the server's keep-alive ping
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            kind = value
        elif name == "id" and "\0" not in value:
            event_id = value
        # "retry" and unknown fields: nothing to do for this client
