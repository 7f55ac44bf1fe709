"""The status line under the input line: ``openai/gpt-4o · default mode · ctx 12% · $0.0123``.

The model is the REPL's own; the rest comes from plugins through the ``status_items`` hook this
plugin declares (the permission mode from chatcli-agent, context use from chatcli-context, spend
from its cost plugin). It is worked out on the worker thread when something changed (and once a
second while tool calls run, when the worker thread waits for them) and kept as text: drawing
the screen (ten times a second while an answer streams) calls no hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli_repl.app import ReplApp

__all__ = ["ORDER", "status_line"]

#: The keys shown first, in this order; any other key follows alphabetically.
ORDER = ("mode", "context", "spend")

#: The longest text one item may show.
ITEM_LIMIT = 40


def _clean(text: Any) -> str:
    line = " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())
    return line if len(line) <= ITEM_LIMIT else line[: ITEM_LIMIT - 1] + "…"


def status_line(app: ReplApp) -> str:
    """The status line's text now (model first, then what plugins say)."""
    session = app.session
    parts = [f"{session.provider_name}/{session.model}"]
    remote = getattr(session, "remote_status", None)  # a server's session says its own
    if remote is not None:
        return " · ".join([*parts, *(item for item in map(_clean, remote)
                                     if item and item not in parts)])
    items: dict[str, str] = {}
    try:
        results: list[Any] = list(app.host.hook.status_items(session=session) or [])
    except Exception:  # a display never fails the chat (the host reports plugin faults)
        results = []
    for result in results:
        if not isinstance(result, dict):
            continue
        for key, value in result.items():
            text = _clean(value)
            if text:
                items.setdefault(str(key), text)
    keys = [key for key in ORDER if key in items]
    keys += sorted(key for key in items if key not in ORDER)
    parts += [items[key] for key in keys]
    return " · ".join(parts)
