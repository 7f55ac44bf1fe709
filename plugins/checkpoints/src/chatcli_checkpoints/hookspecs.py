"""The hook chatcli-checkpoints offers other plugins (declared through ``add_hookspecs``): the
diff of what changed in the workspace since a recorded state. ``chatcli -p`` (chatcli-print)
calls it for the diff stat of a run without importing this plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli import Conversation


@hookspec(firstresult=True)
def workspace_diff(conversation: Conversation, since: str) -> str | None:
    """What changed in the workspace's files since a state recorded for ``conversation``, as
    a unified diff. First result wins.

    Called by ``/diff`` and by ``chatcli -p`` when its run ends (for the diff stat on stderr
    and ``--json``'s ``files_changed``), on the thread running them.

    :param since: ``first`` (the conversation's first recorded state: what it changed),
        ``last`` (the state before its latest file-changing step) or a checkpoint id (the
        state at that checkpoint: what changed after it).
    :return: the diff ("" when nothing differs), or None when nothing was recorded since.
    """
