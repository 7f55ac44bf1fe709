"""Snapshots of a git working tree, made with plumbing in an object store of chatcli's own.

A snapshot is the workspace's part of the working tree — tracked files and untracked ones git
does not ignore, so a file a shell command created is in it — written as a commit in a git
directory under chatcli's data dir (``<data dir>/checkpoints/git/<key of the top level>``, the
*store*), which only a ref of the store (``refs/chatcli/checkpoints/<conversation>/<record>``)
points to. Git runs with ``GIT_DIR`` = the store and ``GIT_WORK_TREE`` = the repository's top
level, so the repository's own config, hooks and ``info/attributes`` are never read; the store's
``objects/info/alternates`` names the repository's object folder (objects already there are not
copied), its ``info/exclude`` is a copy of the repository's, and every command goes through
:func:`chatcli_workspace.safe_git_env` (the user's global config may still name programs:
they are turned off too). The repository is found and its ``HEAD`` resolved by reading files,
without running git in it.

A snapshot is built in an index file of chatcli's own (``GIT_INDEX_FILE``, seeded from the
repository's ``HEAD``, kept between snapshots so unchanged files are not hashed again):
``read-tree -m HEAD``, ``add -A``, ``write-tree``, ``commit-tree``, ``update-ref``. The user's
index, stash, ``HEAD``, branches and working tree are never touched while one is taken. A
restore writes the working tree only: removed files are unlinked, the others written by
``checkout-index`` from a second private index.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from chatcli_checkpoints._changes import Change, error_text, prune_empty_folders

__all__ = ["GitError", "GitRepo", "find_repo", "store_dir"]

_IDENTITY = {
    "GIT_AUTHOR_NAME": "chatcli", "GIT_AUTHOR_EMAIL": "chatcli@localhost",
    "GIT_COMMITTER_NAME": "chatcli", "GIT_COMMITTER_EMAIL": "chatcli@localhost",
}
_GITLINK = "160000"
#: How long the environment of a store is reused at most. It lists the config of the store and
#: the user's global and system config (the repository cannot write them); each operation (a
#: snapshot, a restore point, a restore, an undo) starts with :meth:`GitRepo.fresh` anyway, so
#: a command that ran in between cannot slip a driver past the listing.
_ENV_SECONDS = 30.0
_ENVIRONMENTS: dict[str, tuple[float, dict[str, str]]] = {}
_OBJECT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


class GitError(RuntimeError):
    """A git command failed (its first line of stderr)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None


def _git_dir(folder: Path) -> Path | None:
    """The git directory of a working tree's top level ``folder`` (``.git`` itself, or where a
    ``.git`` file points), or None when ``folder`` holds none."""
    dot = folder / ".git"
    if dot.is_dir():
        return dot if (dot / "HEAD").is_file() else None
    text = _read(dot) if dot.is_file() else None
    if not text or not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:"):].strip())
    target = target if target.is_absolute() else folder / target
    return target if (target / "HEAD").is_file() else None


def _common_dir(git_dir: Path) -> Path:
    text = _read(git_dir / "commondir")
    if not text or not text.strip():
        return git_dir
    target = Path(text.strip())
    return target if target.is_absolute() else (git_dir / target)


def find_repo(workspace: Path) -> GitRepo | None:
    """The repository whose working tree holds ``workspace``, or None (no git, not a repo).

    Found by looking for ``.git`` from ``workspace`` up (no git command runs in it)."""
    if shutil.which("git") is None:
        return None
    start = Path(os.path.realpath(workspace))
    for folder in (start, *start.parents):
        if _git_dir(folder) is not None:
            scope = start.relative_to(folder).as_posix()
            return GitRepo(toplevel=str(folder), scope="" if scope == "." else scope + "/")
    return None


def resolve_head(toplevel: str) -> str | None:
    """The commit the repository's ``HEAD`` names (loose or packed ref, one level of symbolic
    ref), read from its files; None when it has none or it cannot be read that way."""
    git_dir = _git_dir(Path(toplevel))
    if git_dir is None:
        return None
    common = _common_dir(git_dir)
    head = (_read(git_dir / "HEAD") or "").strip()
    for _ in range(5):
        if _OBJECT_ID.match(head):
            return head
        if not head.startswith("ref:"):
            return None
        name = head[4:].strip()
        if ".." in name.split("/") or not name.startswith("refs/"):
            return None
        loose = _read(git_dir / name) or _read(common / name)
        if loose is not None:
            head = loose.strip()
            continue
        for line in (_read(common / "packed-refs") or "").splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1] == name and _OBJECT_ID.match(parts[0]):
                return parts[0]
        return None
    return None


def store_dir(toplevel: str) -> Path:
    """The git directory chatcli keeps the snapshots of the repository at ``toplevel`` in."""
    from chatcli import data_dir

    key = hashlib.sha256(toplevel.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return data_dir() / "checkpoints" / "git" / key


#: The store's config: no reflog, files the owner's only (objects 0400, the rest 0600/0700).
_STORE_CONFIG = (b"[core]\n\trepositoryformatversion = 0\n\tlogallrefupdates = false\n"
                 b"\tsharedrepository = 0600\n")
_STORE_CONFIG_SHA256 = (b"[core]\n\trepositoryformatversion = 1\n\tlogallrefupdates = false\n"
                        b"\tsharedrepository = 0600\n[extensions]\n\tobjectformat = sha256\n")


def _write_if_changed(path: Path, data: bytes) -> None:
    from chatcli_checkpoints._store import write_private

    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_private(path, data)


@dataclass(frozen=True)
class GitRepo:
    """A repository's top level and the workspace's folder inside it (``""`` or ``sub/``)."""

    toplevel: str
    scope: str = ""

    # ------------------------------------------------------------------ the store

    @property
    def store(self) -> Path:
        return store_dir(self.toplevel)

    def _ensure_store(self) -> Path:
        """Create the store (no ``git init``: no template, no hook), point its alternates at the
        repository's objects and copy its ``info/exclude``."""
        from chatcli_checkpoints._store import make_private_dir

        store = self.store
        if not (store / "HEAD").is_file():
            make_private_dir(store.parent)
            make_private_dir(store)
            for sub in ("objects", "objects/info", "objects/pack", "refs", "refs/heads", "info"):
                make_private_dir(store / sub)
            head = resolve_head(self.toplevel) or ""
            _write_if_changed(store / "config",
                              _STORE_CONFIG_SHA256 if len(head) == 64 else _STORE_CONFIG)
            _write_if_changed(store / "HEAD", b"ref: refs/heads/chatcli-none\n")
        git_dir = _git_dir(Path(self.toplevel))
        if git_dir is not None:
            common = _common_dir(git_dir)
            objects = common / "objects"
            if objects.is_dir():
                _write_if_changed(store / "objects/info/alternates",
                                  os.fsencode(os.path.realpath(objects)) + b"\n")
            exclude = common / "info" / "exclude"
            with contextlib.suppress(OSError):
                _write_if_changed(store / "info/exclude", exclude.read_bytes())
        return store

    def fresh(self) -> GitRepo:
        """Forget the listed config: the next command lists it again (call it before each
        operation). Returns the repository."""
        _ENVIRONMENTS.pop(self.toplevel, None)
        return self

    def environment(self, index: Path) -> dict[str, str]:
        """The environment of git commands on this repository with ``index`` (the config is
        listed once per operation — see :meth:`fresh` — a snapshot is several commands)."""
        from chatcli_workspace import safe_git_env

        now = time.monotonic()
        cached = _ENVIRONMENTS.get(self.toplevel)
        if cached is None or now - cached[0] >= _ENV_SECONDS:
            store = self._ensure_store()
            cached = (now, safe_git_env(store, {**_IDENTITY, "GIT_DIR": str(store),
                                                "GIT_WORK_TREE": self.toplevel}, timeout=60))
            if len(_ENVIRONMENTS) > 64:
                _ENVIRONMENTS.clear()
            _ENVIRONMENTS[self.toplevel] = cached
        return {**cached[1], "GIT_INDEX_FILE": str(index)}

    # ------------------------------------------------------------------ running git

    def git(self, *args: str, index: Path, data: bytes | None = None,
            check: bool = True) -> bytes:
        from chatcli_workspace import GitMissing, safe_git

        try:
            proc = safe_git(list(args), self.toplevel, git_env=self.environment(index),
                            input=data, timeout=600)
        except (GitMissing, OSError, subprocess.SubprocessError) as err:
            raise GitError(f"git {args[0]}: {err}") from None  # untranslated: git's words
        with contextlib.suppress(OSError):  # git writes the index with the umask's mode
            os.chmod(index, 0o600)
        if check and proc.returncode != 0:
            first = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[0]
            raise GitError(f"git {args[0]}: {first}")  # untranslated: git's own message
        return proc.stdout

    @property
    def pathspec(self) -> str:
        return f":(literal){self.scope}" if self.scope else "."

    def shown(self, path: str) -> str:
        """``path`` (from the top level) as the workspace sees it."""
        return path[len(self.scope):] if self.scope and path.startswith(self.scope) else path

    # ------------------------------------------------------------------ snapshots

    def _seed(self, index: Path) -> None:
        head = resolve_head(self.toplevel)
        if head is None:
            self.git("read-tree", "--empty", index=index)
            return
        if index.exists():
            try:  # back to HEAD's entries, keeping the stat data of files that match
                self.git("read-tree", "-m", head, index=index)
                return
            except GitError:
                with contextlib.suppress(OSError):
                    index.unlink()
        try:
            self.git("read-tree", head, index=index)
        except GitError:  # HEAD's objects out of reach (another object format…)
            self.git("read-tree", "--empty", index=index)

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
        # --missing-ok: the blobs were just added, or come from HEAD (in the repository: a
        # lookup through the alternates for each of them would cost more than the rest)
        return self.git("write-tree", "--missing-ok", index=index).decode().strip()

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
