"""The hooks chatcli-sessions offers other plugins (declared through ``add_hookspecs``): what
``/rewind`` can restore besides the conversation. A plugin tracking the workspace's files
(chatcli-checkpoints) implements them without importing this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookspec

# at run time: the host checks an implementation's result against the annotation
from chatcli_plugin_records import RestorePoint

if TYPE_CHECKING:
    from chatcli import Checkpoint, Conversation


@hookspec(firstresult=True)
def workspace_restore_point(
    conversation: Conversation, checkpoint: Checkpoint
) -> RestorePoint | None:
    """The workspace's files as they were at ``checkpoint``, to offer with a rewind. First result
    wins.

    Called by ``/rewind`` once the person chose a checkpoint, on the thread running the
    command.

    :param conversation: the conversation being rewound.
    :param checkpoint: the checkpoint chosen.
    :return: a :class:`chatcli_plugin_records.RestorePoint` (what would change, and how to
        put it back), or None when no plugin tracks the workspace or nothing changed since the
        checkpoint.
    """


@hookspec(firstresult=True)
def workspace_undo(conversation: Conversation) -> str | None:
    """Undo the last workspace restore of ``conversation``. First result wins.

    Called by ``/rewind undo``, after the conversation's own undo.

    :return: one line saying what was put back, or None when there is nothing to undo.
    """
