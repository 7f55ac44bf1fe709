"""Reading a server-sent event stream (the WHATWG rules, as much of them as ``chatcli serve``
uses): ``id:``, ``event:`` and ``data:`` fields, a blank line ending each event, ``:`` lines
(the server's pings) ignored, several ``data:`` lines joined with newlines. The data of every
``chatcli serve`` event is one JSON object."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SseEvent", "decode"]


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
        data = json.loads(raw) if raw else {}
    except ValueError:
        data = {"text": raw}
    if not isinstance(data, dict):
        data = {"value": data}
    return SseEvent(event_id, kind or "message", data)


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
