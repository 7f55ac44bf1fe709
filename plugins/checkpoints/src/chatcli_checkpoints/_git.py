"""Snapshots of a git working tree, made with plumbing and a private index.

A snapshot is the workspace's part of the working tree — tracked files and untracked ones git
does not ignore, so a file a shell command created is in it — written as a commit that only a
private ref (``refs/chatcli/checkpoints/<conversation>/<record>``) points to. It is built in an
index file of chatcli's own (``GIT_INDEX_FILE``, seeded from ``HEAD``, kept between snapshots so
unchanged files are not hashed again): ``read-tree -m HEAD``, ``add -A``, ``write-tree``,
``commit-tree``, ``update-ref``. The user's index, stash, ``HEAD``, branches and working tree are
never touched while one is taken. A restore writes the working tree only: removed files are
unlinked, the others written by ``checkout-index`` from a second private index.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from chatcli_checkpoints._changes import Change, error_text, prune_empty_folders

__all__ = ["GitError", "GitRepo", "find_repo"]

_IDENTITY = {
    "GIT_AUTHOR_NAME": "chatcli", "GIT_AUTHOR_EMAIL": "chatcli@localhost",
    "GIT_COMMITTER_NAME": "chatcli", "GIT_COMMITTER_EMAIL": "chatcli@localhost",
}
_GITLINK = "160000"


class GitError(RuntimeError):
    """A git command failed (its first line of stderr)."""


def _git_env(index: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_INDEX_FILE", "GIT_WORK_TREE")}
    env.update(_IDENTITY, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


def find_repo(workspace: Path) -> GitRepo | None:
    """The repository whose working tree holds ``workspace``, or None (no git, not a repo)."""
    if shutil.which("git") is None:
        return None
    try:
        proc = subprocess.run(
            ["git", "-C", str(workspace), "rev-parse", "--is-inside-work-tree",
             "--show-toplevel", "--show-prefix"],
            capture_output=True, env=_git_env(None), timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) < 2 or lines[0] != "true":
        return None
    prefix = lines[2] if len(lines) > 2 else ""
    return GitRepo(toplevel=lines[1], scope=prefix)


@dataclass(frozen=True)
class GitRepo:
    """A repository's top level and the workspace's folder inside it (``""`` or ``sub/``)."""

    toplevel: str
    scope: str = ""

    # ------------------------------------------------------------------ running git

    def git(self, *args: str, index: Path, data: bytes | None = None,
            check: bool = True) -> bytes:
        proc = subprocess.run(
            ["git", "-C", self.toplevel, *args], input=data, capture_output=True,
            env=_git_env(index), timeout=600,
        )
        with contextlib.suppress(OSError):  # git writes the index with the umask's mode
            os.chmod(index, 0o600)
        if check and proc.returncode != 0:
            first = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[0]
            raise GitError(f"git {args[0]}: {first}")
        return proc.stdout

    @property
    def pathspec(self) -> str:
        return f":(literal){self.scope}" if self.scope else "."

    def shown(self, path: str) -> str:
        """``path`` (from the top level) as the workspace sees it."""
        return path[len(self.scope):] if self.scope and path.startswith(self.scope) else path

    # ------------------------------------------------------------------ snapshots

    def _seed(self, index: Path) -> None:
        has_head = self.git("rev-parse", "--verify", "-q", "HEAD", index=index,
                            check=False).strip()
        if not has_head:
            self.git("read-tree", "--empty", index=index)
            return
        if index.exists():
            try:  # back to HEAD's entries, keeping the stat data of files that match
                self.git("read-tree", "-m", "HEAD", index=index)
                return
            except GitError:
                with contextlib.suppress(OSError):
                    index.unlink()
        self.git("read-tree", "HEAD", index=index)

    def tree(self, index: Path, max_file_bytes: int) -> str:
        """The tree of the working tree now (untracked files over ``max_file_bytes`` left out)."""
        self._seed(index)
        others = self.git("ls-files", "-z", "--others", "--exclude-standard", "--",
                          self.pathspec, index=index)
        specs = [self.pathspec]
        top = Path(self.toplevel)
        for raw in others.split(b"\0"):
            if not raw:
                continue
            name = os.fsdecode(raw)
            try:
                size = os.lstat(top / name).st_size
            except OSError:
                continue
            if size > max_file_bytes:
                specs.append(f":(exclude,literal){name}")
        listing = "\0".join(specs).encode("utf-8", "surrogateescape") + b"\0"
        self.git("add", "-A", "--ignore-errors", "--pathspec-from-file=-",
                 "--pathspec-file-nul", index=index, data=listing, check=False)
        return self.git("write-tree", index=index).decode().strip()

    def commit(self, tree: str, message: str, index: Path) -> str:
        return self.git("commit-tree", "--no-gpg-sign", tree, "-m", message,
                        index=index).decode().strip()

    def set_ref(self, ref: str, commit: str, index: Path) -> None:
        self.git("update-ref", ref, commit, index=index)

    def delete_ref(self, ref: str, index: Path) -> None:
        self.git("update-ref", "-d", ref, index=index, check=False)

    def refs(self, prefix: str, index: Path) -> list[str]:
        out = self.git("for-each-ref", "--format=%(refname)", prefix, index=index, check=False)
        return [line for line in out.decode("utf-8", "replace").splitlines() if line]

    def exists(self, commit: str, index: Path) -> bool:
        out = self.git("cat-file", "-t", commit, index=index, check=False)
        return out.strip() == b"commit"

    # ------------------------------------------------------------------ comparing, restoring

    def changes(self, now: str, target: str, index: Path) -> list[Change]:
        """What writing ``target`` over ``now`` changes in the workspace (gitlinks left out)."""
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", now, target,
                       "--", self.pathspec, index=index)
        fields = out.split(b"\0")
        found: list[Change] = []
        i = 0
        while i + 1 < len(fields):
            meta, raw = fields[i].decode(), fields[i + 1]
            i += 2
            if not meta.startswith(":"):
                continue
            old_mode, new_mode, _, _, status = meta[1:].split(" ")[:5]
            if _GITLINK in (old_mode, new_mode):
                continue
            path = os.fsdecode(raw)
            kind = {"A": "deleted", "D": "created"}.get(status[:1], "changed")
            found.append(Change(path=path, shown=self.shown(path), kind=kind))
        return found

    def apply(self, target: str, changes: list[Change], scratch: Path
              ) -> list[tuple[Change, str]]:
        """Make the files of ``changes`` what they are in ``target``; returns the removals that
        failed (the caller compares the result with ``target`` to find writes that failed)."""
        top = Path(self.toplevel)
        stop = top / self.scope if self.scope else top
        failed: list[tuple[Change, str]] = []
        for change in changes:
            if change.kind != "created":
                continue
            path = top / change.path
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as err:
                failed.append((change, error_text(err)))
                continue
            prune_empty_folders(path.parent, stop)
        writes = [c for c in changes if c.kind in ("changed", "deleted")]
        if writes:
            try:
                self.git("read-tree", target, index=scratch)
                listing = b"\0".join(os.fsencode(c.path) for c in writes) + b"\0"
                self.git("checkout-index", "-f", "-z", "--stdin", index=scratch, data=listing,
                         check=False)
            finally:
                with contextlib.suppress(OSError):
                    scratch.unlink()
        return failed
