"""The stored sessions, through the ``session_catalog`` hook chatcli-sessions declares.

The server lists, describes, deletes and exports sessions with these helpers; it never imports
chatcli-sessions. Without it, :func:`catalog` raises a :class:`chatcli.UsageError` saying what to
install.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["EXPORT_FORMATS", "available", "catalog", "delete", "export", "info", "inside",
           "list_sessions", "summary_dict"]

#: What ``export`` writes.
EXPORT_FORMATS = ("md", "json")

_, ngettext = translation(__name__)

_MISSING = (_("stored sessions need chatcli-sessions, which is not installed"),
            _("pip install chatcli-sessions"))


def _catalog_or_none(host: PluginHost) -> Any:
    hook = getattr(host.hook, "session_catalog", None)
    if hook is None:
        return None
    found = hook()
    if isinstance(found, list):  # an implementation without the declaring plugin's spec
        found = next((item for item in found if item is not None), None)
    return found


def available(host: PluginHost) -> bool:
    """Whether a plugin offers the sessions catalog (chatcli-sessions is installed)."""
    try:
        return _catalog_or_none(host) is not None
    except Exception:
        return False


def catalog(host: PluginHost) -> Any:
    """The ``SessionCatalog``; raises UsageError when chatcli-sessions is absent."""
    from chatcli import UsageError

    found = _catalog_or_none(host)
    if found is None:
        raise UsageError(*_MISSING)
    return found


def summary_dict(summary: Any) -> dict[str, object]:
    """A ``SessionSummary`` as JSON-able data (id, title, project, updated, messages, model,
    provider)."""
    return {
        "id": summary.id, "title": summary.title, "project": summary.project,
        "updated": summary.updated, "messages": summary.messages, "model": summary.model,
        "provider": summary.provider,
    }


def inside(project: str | None, root: Path | None) -> bool:
    """Whether a session's project folder is ``root`` or inside it (every session for None)."""
    if root is None:
        return True
    if not project:
        return False
    try:
        return Path(project).resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def list_sessions(host: PluginHost, root: Path | None = None, limit: int = 100
                  ) -> list[dict[str, object]]:
    """The stored sessions whose project is inside ``root`` (all for None), newest first."""
    found = catalog(host).list(str(root) if root is not None else None, limit)
    return [summary_dict(s) for s in found if inside(s.project, root)]


def info(host: PluginHost, session_id: str, root: Path | None = None
         ) -> dict[str, object] | None:
    """One stored session's summary, or None when unknown (or outside ``root``)."""
    summary = catalog(host).info(session_id)
    if summary is None or not inside(summary.project, root):
        return None
    return summary_dict(summary)


def delete(host: PluginHost, session_id: str) -> bool:
    """Delete a stored session; False when there was none."""
    return bool(catalog(host).delete(session_id))


def export(host: PluginHost, session_id: str, fmt: str) -> str:
    """The session as markdown (``md``) or JSON (``json``)."""
    from chatcli import UsageError

    if fmt not in EXPORT_FORMATS:
        raise UsageError(_("unknown export format {format!r}").format(format=fmt),
                         _("use md or json"))
    return str(catalog(host).export(session_id, fmt))
