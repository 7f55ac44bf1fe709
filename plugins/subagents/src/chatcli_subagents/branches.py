"""What becomes of a worktree worker's branch: merged into the main workspace or discarded —
by the parent model (the ``worker_branch`` tool, a change asked like any write) or by the user
(``/agents merge ID``, ``/agents discard ID``). A conflict is reported with its files and
changes nothing: both lines of work are kept, never resolved silently."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Conversation, Tool, ToolContext

    from chatcli_subagents._args import BranchArgs

__all__ = ["settle", "worker_branch_tool"]

NAME = "worker_branch"

_, ngettext = translation(__name__)


def settle(conversation: Conversation, workspace: Path, worker_ref: str, action: str) -> str:
    """Merge or discard the branch of worker ``worker_ref``; one line (raises ValueError when
    there is no such worker or it has no branch)."""
    from chatcli_subagents import worktree
    from chatcli_subagents.board import registry

    worker = registry(conversation).find(worker_ref)
    if worker is None or not worker.branch:
        known = [w.id for w in registry(conversation).listed() if w.branch]
        # i18n: {action} is the command's word: merge or discard
        raise ValueError(_("no worker {ref!r} with a branch to {action} (workers with one: "
                           "{known})").format(ref=worker_ref, action=action,
                                              known=", ".join(known) or _("none")))
    if action == "discard":
        line = worktree.discard(workspace, worker.branch)
        worker.branch = None
        return line
    result = worktree.merge(workspace, worker.branch)
    if result.merged:
        worker.branch = None
    elif result.conflicts:
        return _("{line} — conflicting files: {files}; nothing changed, branch {branch} "
                 "kept").format(line=result.line, files=", ".join(result.conflicts),
                                branch=worker.branch)
    return result.line


def worker_branch_tool() -> Tool:
    from chatcli import Risk

    from chatcli_subagents.argstool import ArgsTool

    def run(args: BranchArgs, context: ToolContext) -> str:
        if context.conversation is None:
            raise RuntimeError("worker_branch runs only inside a model turn")
        return settle(context.conversation, context.workspace, args.worker, args.action)

    return ArgsTool(name=NAME, args="BranchArgs", run=run, risk=Risk.WRITE, subject="worker",
                    description="Merge or discard the branch of a worker that ran in its own "
                                "git worktree (isolation=\"worktree\"): its report names the "
                                "branch and the files. A conflict changes nothing and names "
                                "the files.")  # untranslated: model-facing
