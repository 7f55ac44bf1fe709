"""``/diff``: what changed in the workspace since a recorded state, as a unified diff.

In git, the store's snapshot against a tree of the working tree now (``git diff`` run through
``safe_git`` in the store: the repository's config runs nothing); elsewhere, the recorded
pre-images against the files now (``difflib``). ``--git`` is the working tree against the
repository's ``HEAD`` (untracked files that git does not ignore shown as added).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from chatcli import Conversation

    from chatcli_checkpoints._core import Checkpoints, _FilesPlan, _GitPlan

__all__ = ["Since", "diff_since", "git_head_diff", "since_point"]

#: Bytes of a file read for a diff at most (a larger one is named, not shown).
MAX_DIFF_BYTES = 1 << 20


class Since(NamedTuple):
    """A point to diff from, as :meth:`Checkpoints._plans` takes a checkpoint."""

    id: str
    created_at: float


def since_point(owner: Checkpoints, conversation: Conversation, since: str) -> Since | None:
    """``first``: the conversation's first recorded state; ``last``: the state before the
    latest file-changing step; else a checkpoint id (None: nothing recorded since)."""
    store = owner._store(conversation)
    if not store.exists:
        return None
    if since not in ("first", "last"):
        for checkpoint in conversation.checkpoints:
            if checkpoint.id == since:
                return Since(checkpoint.id, checkpoint.created_at)
        return None
    records = store.records()
    if since == "last":
        records = [r for r in records if r.reason == "tool"] or records
    if not records:
        return None
    record = records[0] if since == "first" else records[-1]
    return Since(record.checkpoint, record.checkpoint_at)


def diff_since(owner: Checkpoints, conversation: Conversation, since: str) -> str | None:
    """The unified diff from the recorded state ``since`` names to the workspace now ("" when
    nothing differs; None when nothing was recorded)."""
    from chatcli_checkpoints._core import _FilesPlan, _GitPlan

    point = since_point(owner, conversation, since)
    if point is None:
        return None
    with owner._lock:
        plans = owner._plans(owner._store(conversation), point)  # type: ignore[arg-type]
        return "".join(_git_diff(plan) if isinstance(plan, _GitPlan) else
                       _files_diff(plan) if isinstance(plan, _FilesPlan) else "" for plan in plans)


def _git_diff(plan: _GitPlan) -> str:
    repo = plan.repo
    now = repo.tree(plan.index, plan.owner.limits.max_file_bytes)
    args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames"]
    if repo.scope:
        args.append(f"--relative={repo.scope}")
    out = repo.git(*args, plan.target, now, "--", repo.pathspec, index=plan.index)
    return out.decode("utf-8", "replace")


def _text(data: bytes | None, shown: str) -> str | None:
    if data is None:
        return None
    if b"\0" in data[:8192]:
        return f"[binary file {shown}, {len(data):,} bytes]\n"
    return data.decode("utf-8", "replace")


def _now(path: Path) -> bytes | None:
    try:
        if path.is_symlink():
            return f"-> {path.readlink()}\n".encode()
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_DIFF_BYTES:
            return f"[{path.stat().st_size:,} bytes: too large to show]\n".encode()
        return path.read_bytes()
    except OSError:
        return None


def _then(plan: _FilesPlan, entry: dict[str, Any]) -> bytes | None:
    kind = entry.get("t")
    if kind == "-" or kind is None:
        return None
    if kind == "l":
        return f"-> {entry.get('target', '')}\n".encode()
    sha = entry.get("sha")
    if not sha:
        return f"[not recorded: {entry.get('why') or 'over a cap'}]\n".encode()
    try:
        return plan.store.read_blob(sha)
    except OSError:
        return b"[its recorded content is gone]\n"


def _files_diff(plan: _FilesPlan) -> str:
    from chatcli_render.diff import unified

    parts = []
    for change in plan.changes:
        entry, _at = plan.target.entry(change.path)
        before = _text(_then(plan, entry), change.shown)
        after = _text(_now(plan.root / change.path), change.shown)
        parts.append(unified(before, after, change.shown))
    return "".join(parts)


def git_head_diff(workspace: Path) -> str | None:
    """The working tree against ``HEAD`` in the workspace's repository, untracked files as
    added (None: not in a git repository)."""
    from chatcli_render.diff import unified
    from chatcli_workspace import safe_git

    top = safe_git(["rev-parse", "--show-toplevel"], workspace)
    if top.returncode != 0:
        return None
    head = safe_git(["rev-parse", "--verify", "-q", "HEAD"], workspace)
    base = "HEAD" if head.returncode == 0 else "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    tracked = safe_git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative",
                        base, "--", "."], workspace).stdout.decode("utf-8", "replace")
    others = safe_git(["ls-files", "-z", "--others", "--exclude-standard", "--", "."],
                      workspace).stdout.decode("utf-8", "replace")
    parts = [tracked]
    for name in filter(None, others.split("\0")):
        parts.append(unified(None, _text(_now(workspace / name), name), name))
    return "".join(parts)
