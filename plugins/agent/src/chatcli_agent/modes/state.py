"""Where a mode's run in progress is kept: in the stash of the conversation it works on.

Apart from ``run`` so that the entry module's hooks find the run without importing the run's
logic (which loads when a mode first runs), and ``run`` sets it without importing the entry
module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli_agent.modes.run import Run

__all__ = ["RUN"]

#: The run in progress on a conversation (``/agent TASK``, ``/coder TASK``), while it lasts.
RUN: StashKey[Run] = StashKey()
