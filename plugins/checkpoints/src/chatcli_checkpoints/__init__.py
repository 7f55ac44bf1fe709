"""chatcli-checkpoints: workspace checkpoints, so ``/rewind`` can put files back.

Before each tool call that may change files (risk ``write`` or ``execute``) the workspace's state
is recorded, attached to the conversation's latest checkpoint; ``/rewind`` (chatcli-sessions)
asks for it through the ``workspace_restore_point`` and ``workspace_undo`` hooks. See the
README for what is recorded where.
"""

__all__: list[str] = []
