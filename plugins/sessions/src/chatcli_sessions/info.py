"""What lists and searches of the session store return (:class:`SessionInfo`,
:class:`SearchHit`): the records of :mod:`chatcli_sessions_api.records`, shared by every store,
re-exported here for older imports."""

from __future__ import annotations

from chatcli_sessions_api.records import SearchHit, SessionInfo

__all__ = ["SearchHit", "SessionInfo"]
