"""Git worktrees for workers that write in isolation (``isolation = "worktree"``).

A worker gets its own worktree and branch (:func:`create`), made from the main workspace's
``HEAD`` under chatcli's data folder (``<data>/worktrees/<project hash>/<worker>-<random>``), never
inside the repository. When it ends, :func:`finish` commits what it changed on its branch (a
fixed identity, ``chatcli <chatcli@localhost>``), says what changed against the base and
removes the worktree's folder; the branch stays for the parent (or the user) to
:func:`merge` — a ``--no-ff`` merge into the main workspace's current branch that is checked
first and never half done: on a conflict nothing is touched and the conflicting files are named,
both sides kept — or to :func:`discard`. A worktree whose chatcli process died (a crash, a kill)
is found by the marker beside it (the owner's pid and start time) and removed by
:func:`clean_stale` at the next start, its uncommitted work committed on its branch first.

Every git command goes through :func:`chatcli_workspace.safe_git`: nothing in the repository's
config (hooks, fsmonitor, filters, merge drivers…) can run a program.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from chatcli import translation
from chatcli_workspace import safe_git, safe_git_env

__all__ = ["MergeResult", "Worktree", "WorktreeError", "WorktreeResult", "clean_stale",
           "create", "discard", "finish", "merge", "worktrees_folder"]

_, ngettext = translation(__name__)

#: Who commits a worker's changes (never the user: the worker did them).
IDENTITY = ("chatcli", "chatcli@localhost")
#: Branches of workers: ``chatcli/<worker>-<random>``.
BRANCH_PREFIX = "chatcli/"
_GIT_TIMEOUT = 120.0


class WorktreeError(RuntimeError):
    """A worktree that cannot be made, finished, merged or removed (one line, with what to
    do)."""


@dataclass(frozen=True)
class Worktree:
    """A worker's worktree.

    :param path: the worker's workspace: the folder of the worktree that is the main
        workspace's (its top, unless chatcli runs in a sub-folder of the repository).
    :param branch: its branch, ``chatcli/<worker>-<random>``.
    :param base: the commit it started from (the main workspace's ``HEAD`` then).
    :param root: the worktree's top folder.
    :param repository: the main workspace's repository top.
    """

    path: Path
    branch: str
    base: str
    root: Path
    repository: Path


@dataclass(frozen=True)
class WorktreeResult:
    """What a worker changed, committed on its branch (``empty``: nothing; the branch is then
    deleted, there is nothing to merge)."""

    branch: str
    diffstat: str
    files: list[str]
    empty: bool
    base: str = ""
    #: the worker's commit on the branch ("" when empty)
    commit: str = ""


@dataclass(frozen=True)
class MergeResult:
    """How a merge went: ``line`` says it in one line. ``conflicts``: the files both sides
    changed in ways that do not merge (nothing was merged, the main tree is as it was);
    ``blocked``: files with uncommitted changes in the main workspace that the branch also
    changes (refused before trying)."""

    merged: bool
    conflicts: list[str]
    line: str
    blocked: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ git


_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _repo_lock(top: Path) -> threading.Lock:
    """One git change at a time per repository in this process (workers end side by side)."""
    with _locks_guard:
        return _locks.setdefault(str(top), threading.Lock())


def _fixed_identity() -> dict[str, str]:
    name, email = IDENTITY
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email}


def _git(args: list[str], cwd: Path, env: dict[str, str], *, check: bool = True
         ) -> subprocess.CompletedProcess[bytes]:
    done = safe_git(args, cwd, git_env=env, timeout=_GIT_TIMEOUT)
    if check and done.returncode != 0:
        raise WorktreeError(  # (the delegate tool's error: the model reads it)
            f"git {' '.join(args[:2])} failed in {cwd}: "
            f"{_first(done.stderr)}")  # untranslated: model-facing
    return done


def _first(data: bytes) -> str:
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    useful = [line for line in lines if line and not line.startswith("hint:")]
    return useful[0] if useful else "no message"


def _text(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", "replace").strip()


def _names(data: bytes) -> list[str]:
    return [n.decode("utf-8", "surrogateescape") for n in data.split(b"\0") if n]


def _top(workspace: Path) -> tuple[Path, dict[str, str]]:
    """The repository top of ``workspace`` and the git environment for it; a clear error when it
    is no repository or has no commit."""
    folder = Path(os.path.realpath(workspace))
    if not folder.is_dir():
        raise WorktreeError(f"{workspace} is not a folder")  # untranslated: model-facing
    env = safe_git_env(folder)
    done = _git(["rev-parse", "--show-toplevel"], folder, env, check=False)
    if done.returncode != 0 or not _text(done):
        raise WorktreeError(f"{folder} is not in a git repository: a worker can only get its "
                            "own worktree in one (git init, and commit "
                            "once)")  # untranslated: model-facing
    top = Path(os.path.realpath(_text(done)))
    if top != folder:
        env = safe_git_env(top)
    return top, env


def _head(top: Path, env: dict[str, str]) -> str:
    done = _git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], top, env, check=False)
    if done.returncode != 0:
        raise WorktreeError(f"the repository {top} has no commit yet: commit once before a "
                            "worker runs in its own worktree")  # untranslated: model-facing
    return _text(done)


def _branch_exists(top: Path, env: dict[str, str], branch: str) -> bool:
    done = _git(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], top, env, check=False)
    return done.returncode == 0


def _registered(top: Path, env: dict[str, str]) -> dict[str, str | None]:
    """The repository's worktrees: real path -> branch (None: detached or bare)."""
    done = _git(["worktree", "list", "--porcelain", "-z"], top, env)
    found: dict[str, str | None] = {}
    current: str | None = None
    for item in _names(done.stdout):
        if item.startswith("worktree "):
            current = os.path.realpath(item[len("worktree "):])
            found[current] = None
        elif item.startswith("branch ") and current is not None:
            found[current] = item[len("branch "):].removeprefix("refs/heads/")
    return found


def _remove_worktree(top: Path, env: dict[str, str], folder: Path) -> None:
    """The worktree at ``folder`` gone: git's record and the folder."""
    if os.path.realpath(folder) in _registered(top, env):
        _git(["worktree", "remove", "--force", "--force", str(folder)], top, env, check=False)
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    _git(["worktree", "prune"], top, env, check=False)


# ------------------------------------------------------------------------------ where, who


def worktrees_folder(top: Path) -> Path:
    """Where the worktrees of the repository at ``top`` live: under chatcli's data folder, one
    folder per repository (a hash of its path)."""
    from chatcli import data_dir

    digest = hashlib.sha256(os.fsencode(os.path.realpath(top))).hexdigest()[:16]
    return data_dir() / "worktrees" / digest


def _start_time(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot), to tell it from a later process
    given the same pid; None where /proc does not say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19].decode() if len(fields) > 19 else None


def _alive(pid: int, started: str | None) -> bool:
    """Whether the process that wrote a marker still runs (not a zombie, not a later process
    with its pid)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: it exists
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
        if state in (b"Z", b"X"):
            return False
    except (OSError, IndexError):
        return True
    return started is None or _start_time(pid) in (None, started)


def _marker(folder: Path) -> Path:
    return folder.with_name(folder.name + ".json")


def _write_marker(folder: Path, branch: str, base: str, top: Path) -> None:
    pid = os.getpid()
    data = {"pid": pid, "started": _start_time(pid), "branch": branch, "base": base,
            "repository": str(top), "path": str(folder), "created": time.time()}
    from chatcli import atomic_write

    atomic_write(_marker(folder), json.dumps(data))


def _read_marker(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# ------------------------------------------------------------------------------ create


def create(workspace: Path, worker_id: str) -> Worktree:
    """A new worktree and branch for worker ``worker_id``, from the ``HEAD`` of the repository
    ``workspace`` is in (its uncommitted changes are not in it). Raises :class:`WorktreeError`
    when ``workspace`` is in no git repository or it has no commit."""
    top, env = _top(workspace)
    base = _head(top, env)
    safe_id = re.sub(r"[^A-Za-z0-9._-]+", "-", worker_id).strip(".-")[:40] or "worker"
    place = worktrees_folder(top)
    place.mkdir(parents=True, exist_ok=True)
    with _repo_lock(top):
        for _attempt in range(5):
            name = f"{safe_id}-{secrets.token_hex(3)}"
            folder = place / name
            branch = BRANCH_PREFIX + name
            if not folder.exists() and not _branch_exists(top, env, branch):
                break
        else:  # pragma: no cover - 16M names each time
            raise WorktreeError(
                f"no free worktree name for {worker_id} in {place}")  # untranslated: model
        _write_marker(folder, branch, base, top)  # first: a crash from here on is cleaned
        done = _git(["worktree", "add", "-q", "-b", branch, str(folder), base], top, env,
                    check=False)
        if done.returncode != 0:
            _remove_worktree(top, env, folder)
            _marker(folder).unlink(missing_ok=True)
            if _branch_exists(top, env, branch):
                _git(["branch", "-D", branch], top, env, check=False)
            raise WorktreeError(f"could not make a worktree for {worker_id}: "
                                f"{_first(done.stderr)}")  # untranslated: model-facing
    inside = Path(os.path.realpath(workspace)).relative_to(top)
    return Worktree(path=folder / inside, branch=branch, base=base, root=folder, repository=top)


# ------------------------------------------------------------------------------ finish


def _commit_all(root: Path, message: str) -> bool:
    """Stage and commit everything changed in the worktree at ``root`` (the fixed identity);
    whether there was anything."""
    env = safe_git_env(root, _fixed_identity())
    _git(["add", "-A", "--", "."], root, env)
    if _git(["diff", "--cached", "--quiet"], root, env, check=False).returncode == 0:
        return False
    name, email = IDENTITY
    _git(["-c", f"user.name={name}", "-c", f"user.email={email}", "-c", "commit.gpgSign=false",
          "commit", "-q", "--no-verify", "-m", message], root, env)
    return True


def _changes(top: Path, env: dict[str, str], base: str, tip: str) -> tuple[str, list[str]]:
    """(``git diff --stat`` of base..tip, the files it changes)."""
    stat = _text(_git(["diff", "--stat", "--stat-width=100", base, tip], top, env))
    files = _names(_git(["diff", "--name-only", "-z", base, tip], top, env).stdout)
    return stat, files


def finish(wt: Worktree, message: str | None = None) -> WorktreeResult:
    """Commit what the worker changed on its branch, say what changed against the base, and
    remove the worktree's folder. The branch is kept for :func:`merge` or :func:`discard`
    (unless nothing changed: then it is deleted too and the result is ``empty``)."""
    top = wt.repository
    env = safe_git_env(top)
    with _repo_lock(top):
        if wt.root.is_dir():
            name = wt.branch.removeprefix(BRANCH_PREFIX)
            _commit_all(wt.root, message or f"chatcli worker {name}")
        tip = _text(_git(["rev-parse", "--verify", "-q", f"refs/heads/{wt.branch}"], top, env,
                         check=False))
        if not tip:
            raise WorktreeError(f"the branch {wt.branch} is gone: the worker's work is lost "
                                "(was it deleted by hand?)")  # untranslated: model-facing
        diffstat, files = _changes(top, env, wt.base, tip)
        _remove_worktree(top, env, wt.root)
        _marker(wt.root).unlink(missing_ok=True)
        if not files:
            _git(["branch", "-D", wt.branch], top, env, check=False)
            return WorktreeResult(wt.branch, "", [], True, wt.base, "")
    return WorktreeResult(wt.branch, diffstat, files, False, wt.base, tip)


# ------------------------------------------------------------------------------ merge


def _dirty(top: Path, env: dict[str, str]) -> set[str]:
    """The files of the main workspace with uncommitted changes (untracked ones too)."""
    out = _git(["status", "--porcelain=v1", "-z", "--untracked-files=all"], top, env).stdout
    found: set[str] = set()
    items = out.split(b"\0")
    index = 0
    while index < len(items):
        item = items[index]
        index += 1
        if len(item) < 4:
            continue
        found.add(item[3:].decode("utf-8", "surrogateescape"))
        if item[:1] in (b"R", b"C"):  # the name it came from follows
            if index < len(items) and items[index]:
                found.add(items[index].decode("utf-8", "surrogateescape"))
            index += 1
    return found


def _in_progress(top: Path, env: dict[str, str]) -> str | None:
    """What the main workspace is in the middle of (a merge, a rebase…), or None."""
    for ref, what in (("MERGE_HEAD", "a merge"), ("CHERRY_PICK_HEAD", "a cherry-pick"),
                      ("REVERT_HEAD", "a revert")):
        if _git(["rev-parse", "-q", "--verify", ref], top, env, check=False).returncode == 0:
            return what
    for name in ("rebase-merge", "rebase-apply"):
        path = _text(_git(["rev-parse", "--git-path", name], top, env))
        if path and (top / path).exists():
            return "a rebase"
    return None


def _merge_identity(top: Path, env: dict[str, str]) -> list[str]:
    """``-c`` options for the merge commit: the user's identity when git knows one, else
    chatcli's."""
    if _git(["var", "GIT_COMMITTER_IDENT"], top, env, check=False).returncode == 0:
        return []
    name, email = IDENTITY
    return ["-c", f"user.name={name}", "-c", f"user.email={email}"]


def merge(workspace: Path, branch: str) -> MergeResult:
    """Merge a worker's ``branch`` into the current branch of the main workspace (``git merge
    --no-ff``). Checked first, without touching anything: a conflict leaves the main tree as it
    was and names the files (both the branch and the main line are kept: no edit lost);
    uncommitted changes in the main workspace to files the branch changes refuse the merge,
    naming them. Merged, the branch is deleted."""
    top, env = _top(workspace)
    with _repo_lock(top):
        if not _branch_exists(top, env, branch):
            return MergeResult(False, [], _("no branch {branch} to merge (already merged or "
                                            "discarded?)").format(branch=branch))
        busy = _in_progress(top, env)
        if busy is not None:
            # i18n: {operation} is git's word: merge, rebase, cherry-pick, revert, bisect
            return MergeResult(False, [], _("not merged: the workspace is in the middle of "
                                            "{operation}; finish or abort it first, then merge "
                                            "{branch}").format(operation=busy, branch=branch))
        current = _text(_git(["symbolic-ref", "--short", "-q", "HEAD"], top, env,
                             check=False)) or "HEAD (detached)"
        if _git(["merge-base", "--is-ancestor", f"refs/heads/{branch}", "HEAD"], top, env,
                check=False).returncode == 0:
            _git(["branch", "-D", branch], top, env, check=False)
            return MergeResult(True, [], _("{branch} was already merged into {current}").format(
                branch=branch, current=current))
        base = _text(_git(["merge-base", "HEAD", f"refs/heads/{branch}"], top, env))
        changed = set(_names(_git(["diff", "--name-only", "-z", base, f"refs/heads/{branch}"],
                                  top, env).stdout))
        blocked = sorted(changed & _dirty(top, env))
        if blocked:
            return MergeResult(False, [], _(
                "not merged: the workspace has uncommitted changes to {files}, which {branch} "
                "also changes; commit or stash them, then merge").format(
                    files=_list(blocked), branch=branch), blocked)
        status, conflicts, error = _trial_merge(top, env, branch)
        if status == "conflicts":
            return MergeResult(False, conflicts, _conflict_line(branch, current, conflicts))
        if status == "error":  # e.g. a merge program named by the repository, not run
            both = sorted(changed & set(_names(_git(
                ["diff", "--name-only", "-z", base, "HEAD"], top, env).stdout)))
            line = (_("not merged: git could not merge {branch} into {current} here "
                      "({error}); both changed {files}; nothing was changed: merge it by hand "
                      "(git merge {branch}) or discard it") if both else
                    _("not merged: git could not merge {branch} into {current} here "
                      "({error}); nothing was changed: merge it by hand (git merge {branch}) or "
                      "discard it"))
            return MergeResult(False, both, line.format(branch=branch, current=current,
                                                        error=error, files=_list(both)))
        before = _text(_git(["rev-parse", "HEAD"], top, env))
        done = _git([*_merge_identity(top, env), "-c", "commit.gpgSign=false", "merge",
                     "--no-ff", "--no-edit", "--no-verify", "-m",
                     f"Merge chatcli worker branch {branch}", f"refs/heads/{branch}"],
                    top, env, check=False)
        if done.returncode != 0:
            conflicts = []
            if _git(["rev-parse", "-q", "--verify", "MERGE_HEAD"], top, env,
                    check=False).returncode == 0:  # this merge started: undo it all
                conflicts = _names(_git(["diff", "--name-only", "-z", "--diff-filter=U"], top,
                                        env).stdout)
                _git(["merge", "--abort"], top, env, check=False)
            if conflicts:
                return MergeResult(False, conflicts,
                                   _conflict_line(branch, current, conflicts))
            return MergeResult(False, [], _("not merged: git merge failed: {error} ({output})")
                               .format(error=_first(done.stderr), output=_first(done.stdout)))
        stat = _text(_git(["diff", "--shortstat", before, "HEAD"], top, env))
        _git(["branch", "-d", branch], top, env, check=False)
    return MergeResult(True, [], _("merged {branch} into {current}: {stat}").format(
        branch=branch, current=current, stat=stat or _("no change")))


def _trial_merge(top: Path, env: dict[str, str], branch: str
                 ) -> tuple[str, list[str], str]:
    """A merge of ``branch`` into HEAD tried without touching the tree or the refs (``git
    merge-tree --write-tree``, git 2.38+): ("clean" | "conflicts" | "error" | "unknown", the
    files left in conflict, git's error). "unknown": this git cannot try (the merge itself then
    finds conflicts, and is aborted)."""
    done = _git(["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", "HEAD",
                 f"refs/heads/{branch}"], top, env, check=False)
    if done.returncode == 0:
        return "clean", [], ""
    if done.returncode == 1:
        return "conflicts", sorted(set(_names(done.stdout)[1:])), ""
    if done.returncode == 129 or b"usage: git merge-tree" in done.stderr:
        return "unknown", [], ""
    return "error", [], _first(done.stderr)


def _list(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    if len(names) <= limit:
        return shown
    return _("{names} and {count} more").format(names=shown, count=len(names) - limit)


def _conflict_line(branch: str, current: str, conflicts: list[str]) -> str:
    return _("not merged: {branch} conflicts with {current} in {files}; nothing was changed "
             "(both kept): merge it by hand (git merge {branch}) or discard it").format(
                 branch=branch, current=current, files=_list(conflicts))


# ------------------------------------------------------------------------------ discard, clean


def discard(workspace: Path, branch: str) -> str:
    """Drop a worker's work: its worktree (if still there), its branch and its marker; what was
    removed, in one line."""
    top, env = _top(workspace)
    removed: list[str] = []
    with _repo_lock(top):
        for where, on in _registered(top, env).items():
            if on == branch:
                _remove_worktree(top, env, Path(where))
                removed.append(_("worktree {path}").format(path=where))
        place = worktrees_folder(top)
        for marker in place.glob("*.json") if place.is_dir() else ():
            data = _read_marker(marker)
            if data is not None and data.get("branch") == branch:
                folder = Path(str(data.get("path") or marker.with_suffix("")))
                if folder.exists():
                    _remove_worktree(top, env, folder)
                    removed.append(_("worktree {path}").format(path=folder))
                marker.unlink(missing_ok=True)
        if _branch_exists(top, env, branch):
            _git(["branch", "-D", branch], top, env)
            removed.append(_("branch {branch}").format(branch=branch))
    if removed:
        return _("discarded {what}").format(what=", ".join(removed))
    return _("nothing left of {branch}").format(branch=branch)


def _stale_markers(workspace: Path) -> list[tuple[Path, dict[str, object]]]:
    """The markers of worktrees whose process is gone, of repositories holding ``workspace``
    (read without running git: a start with nothing to clean costs a folder listing)."""
    from chatcli import data_dir

    root = data_dir() / "worktrees"
    if not root.is_dir():
        return []
    here = Path(os.path.realpath(workspace))
    found = []
    for marker in sorted(root.glob("*/*.json")):
        data = _read_marker(marker)
        repository = data.get("repository") if data is not None else None
        if data is None or not isinstance(repository, str) or not here.is_relative_to(
                repository):
            continue
        pid, started = data.get("pid"), data.get("started")
        if isinstance(pid, int) and _alive(pid, started if isinstance(started, str) else None):
            continue
        found.append((marker, data))
    return found


def clean_stale(workspace: Path) -> list[str]:
    """Remove the worktrees of this repository whose chatcli process is gone (a crash, a kill),
    and let git forget worktrees whose folder is gone (``git worktree prune``). A stale
    worktree's uncommitted work is committed on its branch first, and a branch holding work is
    kept (say so); one without any is deleted. What was done, a line each. Meant for every
    start: with nothing stale it runs no git, it only lists chatcli's worktree markers."""
    stale = _stale_markers(workspace)
    if not stale:
        return []
    try:
        top, env = _top(workspace)
    except WorktreeError:
        return []
    done: list[str] = []
    with _repo_lock(top):
        for marker, data in stale:
            if data.get("repository") == str(top) and marker.exists():
                done.append(_clean_one(top, env, marker, data, data.get("pid")))
        _git(["worktree", "prune"], top, env, check=False)
    return done


def _clean_one(top: Path, env: dict[str, str], marker: Path, data: dict[str, object],
               pid: object) -> str:
    folder = Path(str(data.get("path") or marker.with_suffix("")))
    branch = str(data.get("branch") or "")
    base = str(data.get("base") or "")
    saved = False
    if folder.is_dir() and os.path.realpath(folder) in _registered(top, env):
        with contextlib.suppress(WorktreeError, subprocess.TimeoutExpired):
            saved = _commit_all(folder, f"chatcli worker {folder.name} (saved after its "
                                        f"process {pid} ended)")
    _remove_worktree(top, env, folder)
    marker.unlink(missing_ok=True)
    # (a line on stderr as the chat starts: the user's)
    if branch and _branch_exists(top, env, branch):
        ahead = _text(_git(["rev-list", "--count", f"{base}..refs/heads/{branch}"], top, env,
                           check=False)) if base else "1"
        if ahead not in ("", "0"):
            files = len(_changes(top, env, base, f"refs/heads/{branch}")[1]) if base else 0
            kept = (ngettext("removed the worktree {name} of ended process {pid}; its work "
                             "({count} changed file, saved now) is kept on branch {branch}: "
                             "merge or delete it",
                             "removed the worktree {name} of ended process {pid}; its work "
                             "({count} changed files, saved now) is kept on branch {branch}: "
                             "merge or delete it", files) if saved else
                    ngettext("removed the worktree {name} of ended process {pid}; its work "
                             "({count} changed file) is kept on branch {branch}: merge or "
                             "delete it",
                             "removed the worktree {name} of ended process {pid}; its work "
                             "({count} changed files) is kept on branch {branch}: merge or "
                             "delete it", files))
            return kept.format(name=folder.name, pid=pid, count=files, branch=branch)
        _git(["branch", "-D", branch], top, env, check=False)
        return _("removed the worktree {name} of ended process {pid} and its branch {branch} "
                 "(no work on it)").format(name=folder.name, pid=pid, branch=branch)
    return _("removed the worktree {name} of ended process {pid}").format(name=folder.name,
                                                                          pid=pid)
