"""``--since`` and ``--until``: an ISO 8601 time or a relative one (``2h``, ``90m``, ``1d12h``,
``3 days ago``, ``now``), the words in English or Brazilian Portuguese whatever the language
(``3 dias atrás``, ``há 2 horas``, ``1sem``, ``agora``).

Times without an offset are UTC, as the log's are. Anything else is a
:class:`chatcli.UsageError` naming the text and the forms accepted.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from chatcli import UsageError, translation

__all__ = ["UNITS", "parse_when"]

_, ngettext = translation(__name__)

#: Seconds per unit, by every spelling accepted.
UNITS: dict[str, int] = {}
for _names, _seconds in ((("s", "sec", "secs", "second", "seconds",
                           "seg", "segs", "segundo", "segundos"), 1),
                         (("m", "min", "mins", "minute", "minutes", "minuto", "minutos"), 60),
                         (("h", "hr", "hrs", "hour", "hours", "hora", "horas"), 3600),
                         (("d", "day", "days", "dia", "dias"), 86400),
                         (("w", "wk", "wks", "week", "weeks", "sem", "semana", "semanas"),
                          604800)):
    for _name in _names:
        UNITS[_name] = _seconds

_PIECE = re.compile(r"\s*(\d{1,9}(?:\.\d{1,6})?)\s*([a-z]+)", re.ASCII)
_HINT = _("give an ISO time (2026-12-07T10:00, 2026-12-07T10:00:00+01:00, 2026-12-07) or a "
          "time ago: 30s, 15m, 2h, 1d12h, 1w, '3 days ago', now")


def parse_when(text: str, now: datetime | None = None) -> datetime:
    """The time ``text`` names, timezone-aware (UTC for a relative time and for an ISO time
    without an offset).

    :param now: the time a relative one counts back from (default: now).
    :raises UsageError: ``text`` is neither form.
    """
    now = now if now is not None else datetime.now(UTC)
    raw = text
    text = text.strip().lower()
    if not text:
        raise UsageError(_("an empty time"), _HINT)
    if text in ("now", "agora"):
        return now
    ago = text.removesuffix("ago").removesuffix("atrás").removesuffix("atras").strip()
    relative = _relative(ago.removeprefix("há ").removeprefix("ha ").strip())
    if relative is not None:
        try:
            return now - relative
        except OverflowError:
            raise UsageError(_("the time {text} is too far back").format(text=_shown(raw)),
                             _HINT) from None
    try:
        when = datetime.fromisoformat(text.upper() if "t" in text or "z" in text else text)
    except ValueError:
        raise UsageError(_("not a time: {text}").format(text=_shown(raw)), _HINT) from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _relative(text: str) -> timedelta | None:
    """``2h``, ``1d 12h``, ``90 minutes``: the length, or None when ``text`` is not one."""
    position, seconds = 0, 0.0
    while position < len(text):
        match = _PIECE.match(text, position)
        if match is None or match.group(2) not in UNITS:
            return None
        seconds += float(match.group(1)) * UNITS[match.group(2)]
        position = match.end()
        while position < len(text) and text[position] in " ,":
            position += 1
    if position == 0:
        return None
    try:
        return timedelta(seconds=seconds)
    except OverflowError:
        return timedelta.max


def _shown(text: str) -> str:
    shown = "".join(ch if ch.isprintable() else "?" for ch in text)
    return repr(shown if len(shown) <= 40 else shown[:39] + "…")
