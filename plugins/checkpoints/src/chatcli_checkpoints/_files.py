"""Recorded states of a workspace that is not a git repository.

Two kinds of record, both made of *entries* (a path relative to the workspace → what was there):

* **pre-images** of the files a write tool is about to touch (only those paths are known);
* a **manifest** of the whole workspace before a command runs (``exec``, ``test``): every file
  with its size, time and mode, and its content while it is under the size caps — so the files a
  command created (not in the manifest), changed or deleted can be found and put back. What
  ``.gitignore`` ignores (and :data:`._ignore.ALWAYS_SKIPPED`) is not recorded; the manifest
  remembers which folders it left out, and those are never touched.

An entry is ``{"t": "-"}`` (no file there), ``{"t": "l", "to": TARGET}`` (a symbolic link),
``{"t": "o"}`` (something else: a folder, a socket) or ``{"t": "f", "size", "mtime", "mode",
"sha"}`` — a file whose content is the blob ``sha`` (sha256) of the conversation's store, or
``"sha": null`` and ``"why"`` when it was over a cap.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import translation

from chatcli_checkpoints._changes import Change, error_text, prune_empty_folders
from chatcli_checkpoints._ignore import ALWAYS_SKIPPED, IgnoreRules
from chatcli_checkpoints._limits import Limits
from chatcli_checkpoints._store import ConversationStore

__all__ = ["ABSENT", "Limits", "Target", "apply", "compare", "manifest", "preimages", "resolve",
           "scan", "size_text"]

_, ngettext = translation(__name__)

ABSENT: dict[str, Any] = {"t": "-"}
#: A file whose time is this close to when it was recorded may have changed within the same
#: clock tick without its size changing: its content is compared, not its time.
_RACY_NS = 2_000_000_000


def size_text(n: int) -> str:
    if n >= 2**20:
        return f"{n / 2**20:g} MB"
    if n >= 2**10:
        return f"{n / 2**10:g} KB"
    return ngettext("{count} byte", "{count} bytes", n).format(count=n)


@dataclass
class _Budget:
    left: int


def _hash_file(path: Path) -> tuple[str, bytes]:
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), data


def _entry(path: Path, store: ConversationStore, limits: Limits, budget: _Budget,
           cache: dict[str, tuple[int, int, int, str]] | None = None, key: str = "",
           st: os.stat_result | None = None) -> dict[str, Any]:
    """What is at ``path`` now, its content stored (within the caps)."""
    try:
        st = st or os.lstat(path)
    except FileNotFoundError:
        return dict(ABSENT)
    except OSError:
        return {"t": "o"}
    if stat.S_ISLNK(st.st_mode):
        try:
            return {"t": "l", "to": os.readlink(path)}
        except OSError:
            return {"t": "o"}
    if not stat.S_ISREG(st.st_mode):
        return {"t": "o"}
    entry: dict[str, Any] = {"t": "f", "size": st.st_size, "mtime": st.st_mtime_ns,
                             "mode": stat.S_IMODE(st.st_mode), "sha": None}
    if st.st_size > limits.max_file_bytes:
        entry["why"] = _("over the {size} size cap").format(
            size=size_text(limits.max_file_bytes))
        return entry
    now = time.time_ns()
    known = cache.get(key) if cache is not None else None
    if (known is not None and known[:3] == (st.st_size, st.st_mtime_ns, st.st_ino)
            and store.has_blob(known[3])):
        entry["sha"] = known[3]
        return entry
    if st.st_size > budget.left:
        entry["why"] = _("over the snapshot's size cap")
        return entry
    try:
        sha, data = _hash_file(path)
    except OSError as err:
        entry["why"] = _("unreadable: {reason}").format(reason=error_text(err))
        return entry
    if store.put_blob(sha, data):
        budget.left -= len(data)
    entry["sha"] = sha
    if cache is not None and st.st_mtime_ns < now - _RACY_NS:
        cache[key] = (st.st_size, st.st_mtime_ns, st.st_ino, sha)
    return entry


def preimages(root: Path, paths: list[str], store: ConversationStore, limits: Limits
              ) -> dict[str, Any]:
    """The record data for the files ``paths`` (relative to ``root``) as they are now."""
    budget = _Budget(limits.max_snapshot_bytes)
    entries = {rel: _entry(root / rel, store, limits, budget) for rel in paths}
    return {"entries": entries, "complete": False, "ignored": [], "at": time.time_ns()}


def scan(root: Path, limits: Limits, skip: tuple[Path, ...] = ()
         ) -> tuple[dict[str, os.stat_result], list[str], bool]:
    """Every file and link under ``root`` that is not ignored: (stats by path, the ignored
    paths left out — folders end in ``/`` —, whether the ``max_files`` cap cut the walk)."""
    rules = IgnoreRules(root)
    found: dict[str, os.stat_result] = {}
    ignored: list[str] = []
    skipped = {os.path.realpath(p) for p in skip}
    stack = [""]
    while stack:
        folder = stack.pop()
        rules.enter(folder)
        try:
            with os.scandir(root / folder if folder else root) as entries:
                items = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for item in items:
            rel = f"{folder}/{item.name}" if folder else item.name
            try:
                is_dir = item.is_dir(follow_symlinks=False)
                st = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if (item.name in ALWAYS_SKIPPED or rules.ignored(rel, True)
                        or os.path.realpath(item.path) in skipped):
                    ignored.append(rel + "/")
                else:
                    stack.append(rel)
                continue
            if rules.ignored(rel, False):
                ignored.append(rel)
                continue
            if len(found) >= limits.max_files:
                return found, ignored, True
            found[rel] = st
    return found, ignored, False


def manifest(root: Path, store: ConversationStore, limits: Limits,
             cache: dict[str, tuple[int, int, int, str]], skip: tuple[Path, ...] = ()
             ) -> dict[str, Any]:
    """The record data for the whole workspace as it is now."""
    budget = _Budget(limits.max_snapshot_bytes)
    stats, ignored, truncated = scan(root, limits, skip)
    entries = {rel: _entry(root / rel, store, limits, budget, cache, rel, st)
               for rel, st in stats.items()}
    return {"entries": entries, "complete": not truncated, "ignored": ignored,
            "at": time.time_ns()}


# ---------------------------------------------------------------------- resolving and comparing


def _under(path: str, ignored: list[str]) -> bool:
    for item in ignored:
        if item.endswith("/"):
            if path.startswith(item):
                return True
        elif path == item:
            return True
    return False


@dataclass
class Target:
    """The state records show for a checkpoint: per path, the entry and when it was recorded;
    ``complete`` when a manifest knows every path it did not leave out (``ignored``)."""

    entries: dict[str, tuple[dict[str, Any], int]]
    complete: bool
    ignored: list[str]

    def knows(self, path: str) -> bool:
        return path in self.entries or (self.complete and not _under(path, self.ignored))

    def entry(self, path: str) -> tuple[dict[str, Any], int]:
        return self.entries.get(path, (ABSENT, 0))


def resolve(datas: list[dict[str, Any]]) -> Target:
    """The earliest recorded entry of each path across ``datas`` (oldest first)."""
    target = Target({}, False, [])
    for data in datas:
        at = int(data.get("at", 0))
        for path, entry in data.get("entries", {}).items():
            if path in target.entries or (target.complete and not _under(path, target.ignored)):
                continue
            target.entries[path] = (entry, at)
        if data.get("complete") and not target.complete:
            target.complete = True
            target.ignored = list(data.get("ignored", []))
    return target


def compare(path: Path, entry: dict[str, Any], at: int) -> str:
    """``same``, ``differs`` or ``blocked`` (something that is not a file is in the way)."""
    kind = entry.get("t")
    try:
        st: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError:
        return "blocked"
    if kind == "-":
        if st is None:
            return "same"
        return "differs" if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode) else "blocked"
    if st is None:
        return "differs"
    if kind == "l":
        if not stat.S_ISLNK(st.st_mode):
            return "differs" if stat.S_ISREG(st.st_mode) else "blocked"
        try:
            return "same" if os.readlink(path) == entry.get("to") else "differs"
        except OSError:
            return "blocked"
    if kind != "f":
        return "same"  # not a file then: nothing to put back
    if stat.S_ISLNK(st.st_mode):
        return "differs"
    if not stat.S_ISREG(st.st_mode):
        return "blocked"
    if st.st_size != entry.get("size") or stat.S_IMODE(st.st_mode) != entry.get("mode"):
        return "differs"
    if st.st_mtime_ns == entry.get("mtime") and entry["mtime"] < at - _RACY_NS:
        return "same"
    sha = entry.get("sha")
    if sha is None:
        return "same" if st.st_mtime_ns == entry.get("mtime") else "differs"
    try:
        return "same" if _hash_file(path)[0] == sha else "differs"
    except OSError:
        return "blocked"


def changes(root: Path, target: Target, limits: Limits, skip: tuple[Path, ...] = ()
            ) -> list[Change]:
    """What putting ``target`` back would change under ``root``."""
    candidates = set(target.entries)
    if target.complete:
        now, _, _ = scan(root, limits, skip)
        candidates |= {p for p in now if not _under(p, target.ignored)}
    found: list[Change] = []
    for rel in sorted(candidates):
        if not target.knows(rel):
            continue
        entry, at = target.entry(rel)
        verdict = compare(root / rel, entry, at)
        if verdict == "same":
            continue
        exists = os.path.lexists(root / rel)
        if verdict == "blocked":
            found.append(Change(rel, rel, "kept", _("something else is in its place")))
        elif entry.get("t") == "-":
            found.append(Change(rel, rel, "created"))
        elif entry.get("t") == "f" and entry.get("sha") is None:
            why = entry["why"] if "why" in entry else _("not recorded")
            found.append(Change(rel, rel, "kept", why))
        elif entry.get("t") in ("f", "l"):
            found.append(Change(rel, rel, "changed" if exists else "deleted"))
    return found


# ---------------------------------------------------------------------- writing


def _write(path: Path, entry: dict[str, Any], store: ConversationStore) -> None:
    kind = entry["t"]
    if kind == "-":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "l":
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(entry["to"], path)
        return
    data = store.read_blob(entry["sha"])
    temp = path.with_name(f".{path.name}.chatcli-restore.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temp, entry.get("mode", 0o644))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def apply(root: Path, work: list[tuple[Change, dict[str, Any]]], store: ConversationStore
          ) -> tuple[list[Change], list[tuple[Change, str]]]:
    """Write each change's entry under ``root``; (done, failed)."""
    done: list[Change] = []
    failed: list[tuple[Change, str]] = []
    for change, entry in sorted(work, key=lambda w: w[1].get("t") != "-"):  # removals first
        path = root / change.path
        try:
            _write(path, entry, store)
        except OSError as err:
            failed.append((change, error_text(err)))
            continue
        if entry.get("t") == "-":
            prune_empty_folders(path.parent, root)
        done.append(change)
    order = {c.path: n for n, (c, _) in enumerate(work)}
    done.sort(key=lambda c: order[c.path])
    return done, failed
