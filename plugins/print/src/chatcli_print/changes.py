"""What a ``chatcli -p`` run changed in the workspace's files: a ``+N −M`` stat on stderr, and
``files_changed`` in ``--json``. The diff comes from the ``workspace_diff`` hook (declared and
answered by chatcli-checkpoints, which records the files before each edit or command); without
that plugin a run reports no changes. Imported only by a run that made a checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli import Conversation

__all__ = ["files_changed", "stat_text"]


def files_changed(ask: Callable[..., str | None], conversation: Conversation, since: str
                  ) -> list[dict[str, Any]]:
    """``[{"path", "added", "removed"}]`` for each file changed since the checkpoint ``since``
    (``ask``: the ``workspace_diff`` hook); empty when none was, or the diff cannot be made."""
    try:
        diff = ask(conversation=conversation, since=since)
    except Exception:  # a broken store must not turn a good answer into a failure
        return []
    if not diff:
        return []
    from chatcli_render.diff import stats

    return [{"path": s.path, "added": s.added, "removed": s.removed} for s in stats(diff)]


def stat_text(files: list[dict[str, Any]]) -> list[str]:
    """The stat lines shown on stderr: ``calc.py | +4 −1`` per file, then the total."""
    from chatcli_render.diff import FileStat, stat_lines

    return stat_lines([FileStat(f["path"], f["added"], f["removed"]) for f in files])
