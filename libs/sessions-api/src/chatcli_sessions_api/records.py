"""What lists and searches of a session store return (:class:`SessionInfo`, :class:`SearchHit`):
the same records from every store; a module of its own so that a run that only writes its
session does not make these dataclasses."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["SearchHit", "SessionInfo"]


@dataclass
class SessionInfo:
    """One session as lists show it."""

    id: str
    name: str | None
    title: str
    created_at: float
    updated_at: float
    provider: str | None
    model: str | None
    head: str | None
    messages: int
    forked_from: str | None = None
    #: the project root the session belongs to (None: written before sessions had projects)
    project: str | None = None
    #: the folder chatcli was started in when the session was created
    cwd: str | None = None
    #: a worker's session: the id of the session that delegated to it (None: a root session)
    parent: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


@dataclass
class SearchHit:
    """A message that matched a search."""

    session_id: str
    session_title: str
    message_id: str
    role: str
    snippet: str
    created_at: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)
