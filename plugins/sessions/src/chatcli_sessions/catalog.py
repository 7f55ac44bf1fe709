"""The stored sessions as a :class:`chatcli_plugin_records.SessionCatalog` (the
``session_catalog`` hook): what a server lists, exports and deletes without importing this
plugin. Only the user's own sessions (root sessions): a subagent worker's session is part of the
session that delegated to it, deleted with it and never listed on its own."""

from __future__ import annotations

import builtins
import os
from typing import TYPE_CHECKING

from chatcli import translation
from chatcli_plugin_records import SessionSummary

from chatcli_sessions.stores import get_store

if TYPE_CHECKING:
    from chatcli_sessions_api.records import SessionInfo

__all__ = ["StoreCatalog"]

_, ngettext = translation(__name__)


def _summary(info: SessionInfo) -> SessionSummary:
    return SessionSummary(id=info.id, title=info.name or info.title, project=info.project,
                          updated=info.updated_at, messages=info.messages, model=info.model,
                          provider=info.provider, head=info.head)


class StoreCatalog:
    """The session store of the current data folder (opened again after a ``session_end``
    closed it: each call asks :func:`~chatcli_sessions.stores.get_store`)."""

    def list(self, project: str | None, limit: int = 100) -> builtins.list[SessionSummary]:
        """The root sessions, newest first, at most ``limit``: every project's (``project``
        None) or those whose project is the folder ``project`` or inside it."""
        under = os.path.realpath(project) if project is not None else None
        return [_summary(info) for info in get_store().list(limit=limit, under=under)]

    def _root(self, session_id: str) -> SessionInfo | None:
        info = get_store().info(session_id)
        return info if info is not None and info.parent is None else None

    def info(self, session_id: str) -> SessionSummary | None:
        """One root session (None: no such session, or a worker's)."""
        info = self._root(session_id)
        return _summary(info) if info is not None else None

    def delete(self, session_id: str) -> bool:
        """Delete a root session with its workers' sessions, as ``chatcli sessions delete``
        does; whether there was one."""
        if self._root(session_id) is None:
            return False
        return get_store().delete(session_id)

    def export(self, session_id: str, fmt: str) -> str:
        """The session as ``chatcli sessions export`` writes it: ``"md"`` or ``"json"``
        (raises :class:`chatcli.UsageError` for another format or an unknown session)."""
        from chatcli import UsageError

        from chatcli_sessions.export import render

        if fmt not in ("md", "json"):
            raise UsageError(_("unknown export format {format!r}").format(format=fmt),
                             _("use md or json"))
        info = self._root(session_id)
        if info is None:
            raise UsageError(_("no session {session!r}").format(session=session_id),
                             _("list them: chatcli sessions list"))
        return render(get_store().load(info.id), fmt, info)
