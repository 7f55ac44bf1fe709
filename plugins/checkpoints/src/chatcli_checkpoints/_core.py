"""The plugin's state and its answers to the hooks.

*When* a state is recorded: before a tool call whose risk is ``write`` or ``execute``, attached
to the conversation's latest checkpoint. The state at a checkpoint is the state before the first
change after it, so a git snapshot (or a manifest) is taken only the first time such a call runs
after each checkpoint; outside git, each write call adds the pre-images of the files it names
that were not recorded yet under that checkpoint.

*Which* state a checkpoint had: the earliest record taken after it — its own, or, when nothing
ran between it and the next one, a later checkpoint's (records of a restore count too: a restore
is a change). No record after it: nothing changed since, so there is nothing to restore.

*Undo*: a restore first records what it replaces (a record with reason ``restore``). The
conversation's undo stack is mirrored (``head_moved``): the head move that follows a restore —
``/rewind`` moves the head even for a code-only rewind — carries the restore's record, and the
``undo`` that pops it tells :meth:`Checkpoints.undo` what to put back.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, translation

from chatcli_checkpoints._layout import records_folder, safe_name

if TYPE_CHECKING:
    from chatcli import Checkpoint, Conversation, Settings, ToolCallPart, ToolSpec
    from chatcli_plugin_records import RestorePoint

    from chatcli_checkpoints._changes import Change
    from chatcli_checkpoints._git import GitRepo
    from chatcli_checkpoints._limits import Limits
    from chatcli_checkpoints._store import ConversationStore, Record

__all__ = ["MARKS", "Checkpoints", "Marks"]

_, ngettext = translation(__name__)

# Every run that opens a session imports this module (a checkpoint is created with the first
# message): the records, the caps and the file walker load when something is recorded, and no
# dataclass is made here (making one costs about a millisecond).


class Marks:
    """What the plugin keeps about one conversation between hooks."""

    def __init__(self) -> None:
        #: the conversation's latest checkpoint
        self.latest: Checkpoint | None = None
        #: the checkpoint whose full snapshot was taken
        self.full: str | None = None
        #: (checkpoint, the paths whose pre-images were taken under it)
        self.recorded: tuple[str, set[str]] = ("", set())
        #: restore records awaiting the head move that follows a restore
        self.pending: list[str] | None = None
        #: the restore records the last undo popped
        self.undone: list[str] | None = None


#: A conversation's :class:`Marks`, in its stash.
MARKS: StashKey[Marks] = StashKey()


def _marks(conversation: Conversation) -> Marks:
    marks = conversation.stash.get(MARKS, None)
    if marks is None:
        marks = conversation.stash[MARKS] = Marks()
    return marks


def _base() -> Path:
    from chatcli import data_dir

    return data_dir() / "checkpoints"


def _ref_prefix(store: ConversationStore) -> str:
    return f"refs/chatcli/checkpoints/{store.folder.name}/"


class Checkpoints:
    """Records workspace states before file-changing tool calls and puts them back."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.workspace: Path | None = None
        self.enabled = True
        self._limits: Limits | None = None  # None: the defaults (made when first needed)
        self._repos: dict[Path, GitRepo | None] = {}  # None: not in a git repository
        self._hashes: dict[str, dict[str, tuple[int, int, int, str]]] = {}

    # ------------------------------------------------------------------ set-up

    @property
    def limits(self) -> Limits:
        """The caps on what is recorded (``[checkpoints]`` settings)."""
        if self._limits is None:
            from chatcli_checkpoints._limits import Limits

            self._limits = Limits()
        return self._limits

    def configure(self, settings: Settings, workspace: Path) -> None:
        with self._lock:
            self.workspace = Path(workspace).resolve()
            table = settings.plugin_table("checkpoints")
            if not table:  # the defaults
                self.enabled, self._limits = True, None
                return
            from chatcli_checkpoints._limits import limits_from

            try:
                self.enabled, self._limits = limits_from(table)
            except Exception:
                self.enabled = False  # reported by the host; record nothing with wrong caps
                raise

    def _workspace(self) -> Path:
        return self.workspace or Path.cwd().resolve()

    def _repo(self, workspace: Path) -> GitRepo | None:
        if workspace not in self._repos:
            from chatcli_checkpoints._git import find_repo

            self._repos[workspace] = find_repo(workspace)
        return self._repos[workspace]

    def _store(self, conversation: Conversation) -> ConversationStore:
        from chatcli_checkpoints._store import ConversationStore

        return ConversationStore(_base(), conversation.id)

    # ------------------------------------------------------------------ recording

    def checkpoint_created(self, conversation: Conversation, checkpoint: Checkpoint) -> None:
        with self._lock:
            marks = _marks(conversation)
            marks.latest, marks.undone = checkpoint, None
            # the conversation may have just let go of a checkpoint (a new one has no records:
            # the store is not even imported)
            if records_folder(_base(), conversation.id).is_dir():
                self._prune(self._store(conversation), conversation)

    def _checkpoint(self, conversation: Conversation) -> Checkpoint | None:
        latest = _marks(conversation).latest
        if latest is not None:
            return latest
        return conversation.checkpoints[-1] if conversation.checkpoints else None

    def before_tool_call(self, call: ToolCallPart, tool: ToolSpec,
                         conversation: Conversation) -> None:
        risk = getattr(tool.risk, "value", tool.risk)
        if not self.enabled or risk not in ("write", "execute"):
            return
        with self._lock:
            checkpoint = self._checkpoint(conversation)
            if checkpoint is None:
                return
            workspace = self._workspace()
            store = self._store(conversation)
            repo = self._repo(workspace)
            marks = _marks(conversation)
            if repo is not None:
                if marks.full != checkpoint.id:
                    self._git_record(store, repo, checkpoint, "tool")
                    marks.full = checkpoint.id
                    self._prune(store, conversation)
                return
            from chatcli_checkpoints import _files
            from chatcli_checkpoints._targets import touched_paths

            paths = self._relative(workspace, touched_paths(call.arguments)) \
                if risk == "write" else []
            if not paths:
                if marks.full == checkpoint.id:
                    return
                data = _files.manifest(workspace, store_ready(store), self.limits,
                                       self._hashes.setdefault(str(workspace), {}),
                                       skip=(_base(),))
                marks.full = checkpoint.id
            else:
                seen_at, seen = marks.recorded
                if seen_at != checkpoint.id:
                    seen = set()
                    marks.recorded = (checkpoint.id, seen)
                fresh = [p for p in paths if p not in seen]
                if not fresh:
                    return
                seen.update(fresh)
                data = _files.preimages(workspace, fresh, store_ready(store), self.limits)
            self._save(store, checkpoint, "tool", "files", str(workspace), data)
            self._prune(store, conversation)

    @staticmethod
    def _relative(workspace: Path, paths: list[str]) -> list[str]:
        found = []
        for text in paths:
            candidate = Path(os.path.expanduser(text))
            full = candidate if candidate.is_absolute() else workspace / candidate
            real = Path(os.path.realpath(full))
            if real != workspace and workspace in real.parents:
                found.append(real.relative_to(workspace).as_posix())
        return list(dict.fromkeys(found))

    def _save(self, store: ConversationStore, checkpoint: Checkpoint, reason: str, kind: str,
              root: str, data: dict[str, Any]) -> Record:
        from chatcli_checkpoints._store import Record

        record = Record(id=store.new_id(), checkpoint=checkpoint.id,
                        checkpoint_at=checkpoint.created_at, taken_at=time.time(),
                        reason=reason, kind=kind, root=root, data=data)
        store.save(record)
        return record

    def _git_record(self, store: ConversationStore, repo: GitRepo, checkpoint: Checkpoint,
                    reason: str, extra: dict[str, Any] | None = None) -> Record:
        from chatcli_checkpoints._store import Record

        store.ensure()
        index = store.index_path(repo.toplevel)
        tree = repo.fresh().tree(index, self.limits.max_file_bytes)
        record_id = store.new_id()
        commit = repo.commit(tree, f"chatcli checkpoint {record_id} of {store.conversation_id} "
                                   f"({reason}, before: {checkpoint.label})", index)
        repo.set_ref(_ref_prefix(store) + record_id, commit, index)
        record = Record(id=record_id, checkpoint=checkpoint.id,
                        checkpoint_at=checkpoint.created_at, taken_at=time.time(),
                        reason=reason, kind="git", root=repo.toplevel,
                        data={"commit": commit, "scope": repo.scope, **(extra or {})})
        store.save(record)
        return record

    # ------------------------------------------------------------------ pruning

    def _prune(self, store: ConversationStore, conversation: Conversation) -> None:
        """Drop the records of checkpoints the conversation no longer keeps (it keeps the newest
        ``max_checkpoints``), then the oldest records outside git while their blobs are over
        ``max_total_bytes``.

        A record shows the state of its checkpoint and of the ones before it that had none;
        when its checkpoint is gone, so are those, and nothing can ask for it.
        """
        names = store.names()
        if not names:
            return
        from chatcli_checkpoints._store import Record

        known = {safe_name(c.id) for c in conversation.checkpoints}
        gone = [path for _, checkpoint, path in names if known and checkpoint not in known]
        drop: list[Record] = []
        for path in gone:
            try:
                drop.append(Record.from_json(path.read_bytes()))
            except (OSError, ValueError, TypeError):
                with contextlib.suppress(OSError):
                    path.unlink()
        over = (any(r.kind == "files" for r in drop)
                or store.blob_bytes() > self.limits.max_total_bytes)
        if not drop and not over:
            return
        kept = [r for r in store.records() if r.id not in {d.id for d in drop}]
        if over:
            self._collect(store, kept)
        files_kept = [r for r in kept if r.kind == "files"]
        while len(files_kept) > 1 and store.blob_bytes() > self.limits.max_total_bytes:
            oldest = files_kept.pop(0)
            kept.remove(oldest)
            drop.append(oldest)
            store.delete(oldest)
            self._collect(store, kept)
        for record in drop:
            store.delete(record)
            if record.kind == "git":
                from chatcli_checkpoints._git import GitError, GitRepo

                repo = GitRepo(record.root, record.data.get("scope", ""))
                with contextlib.suppress(GitError, OSError):
                    repo.delete_ref(_ref_prefix(store) + record.id, store.index_path(record.root))

    @staticmethod
    def _collect(store: ConversationStore, kept: list[Record]) -> None:
        names: set[str] = set()
        for record in kept:
            if record.kind != "files":
                continue
            groups = [record.data.get("entries", {}),
                      record.data.get("restore", {}).get("target", {})]
            for entries in groups:
                for entry in entries.values():
                    if entry.get("sha"):
                        names.add(entry["sha"])
        store.collect_blobs(names)

    # ------------------------------------------------------------------ restore points

    def _plans(self, store: ConversationStore, checkpoint: Checkpoint) -> list[_Plan]:
        from chatcli_checkpoints._git import GitRepo

        records = [r for r in store.records() if r.after(checkpoint.id, checkpoint.created_at)]
        groups: dict[tuple[str, str, str], list[Record]] = {}
        for record in records:
            key = (record.kind, record.root, record.data.get("scope", ""))
            groups.setdefault(key, []).append(record)
        plans = []
        for (kind, root, scope), group in groups.items():
            if kind == "git":
                plan: _Plan = _GitPlan(self, store, GitRepo(root, scope), group[0])
            else:
                plan = _FilesPlan(self, store, Path(root), group)
            if plan.changes:
                plans.append(plan)
        return plans

    def restore_point(self, conversation: Conversation, checkpoint: Checkpoint
                      ) -> RestorePoint | None:
        from chatcli_plugin_records import RestorePoint

        store = self._store(conversation)
        if not store.exists:
            return None
        with self._lock:
            plans = self._plans(store, checkpoint)
        if not plans:
            return None
        from chatcli_checkpoints._changes import describe

        summary = describe([c for plan in plans for c in plan.changes])

        def restore() -> str:
            return self._restore(conversation, checkpoint)

        return RestorePoint(summary, restore)

    def _restore(self, conversation: Conversation, checkpoint: Checkpoint) -> str:
        from chatcli_checkpoints._changes import restored_line

        with self._lock:
            store = self._store(conversation)
            latest = self._checkpoint(conversation) or checkpoint
            done: list[Change] = []
            failed: list[tuple[Change, str]] = []
            kept: list[Change] = []
            restores: list[str] = []
            for plan in self._plans(store, checkpoint):  # again: files may have changed since
                record, plan_done, plan_failed = plan.restore(latest)
                restores.append(record.id)
                done += plan_done
                failed += plan_failed
                kept += [c for c in plan.changes if not c.restorable]
            if restores:
                marks = _marks(conversation)
                marks.pending = restores
                # the files restored are a change after the latest checkpoint: the next
                # write/execute call records its state again
                marks.full, marks.recorded = None, ("", set())
                self._prune(store, conversation)
            return restored_line(done, failed, kept)

    # ------------------------------------------------------------------ the undo stack mirror

    def head_moved(self, conversation: Conversation, head: str | None, reason: str) -> None:
        with self._lock:
            store = self._store(conversation)
            marks = _marks(conversation)
            pending, marks.pending = marks.pending, None
            if not store.exists:
                return
            stack = store.journal()
            if reason == "undo":
                top = stack.pop() if stack else None
                marks.undone = list(top or [])
            else:
                stack.append(pending)
                marks.undone = None
            store.save_journal(stack)

    def undo(self, conversation: Conversation) -> str | None:
        from chatcli_checkpoints._changes import restored_line
        from chatcli_checkpoints._git import GitRepo

        with self._lock:
            marks = _marks(conversation)
            ids, marks.undone = marks.undone, None
            if not ids:
                return None
            store = self._store(conversation)
            done: list[Change] = []
            failed: list[tuple[Change, str]] = []
            changed_since: list[Change] = []
            missing = 0
            for record_id in ids:
                record = store.record(record_id)
                if record is None:
                    missing += 1
                    continue
                plan = (_GitPlan(self, store, GitRepo(record.root, record.data.get("scope", "")),
                                 record) if record.kind == "git"
                        else _FilesPlan(self, store, Path(record.root), [record]))
                d, f, c = plan.undo()
                done += d
                failed += f
                changed_since += c
            marks.full, marks.recorded = None, ("", set())
            if missing and not (done or failed or changed_since):
                return _("The code rewind cannot be undone: its snapshot was pruned.")
            line = (restored_line(done, failed, [], undone=True) if done or failed
                    else _("Code rewind undone: no file needed it."))
            if changed_since:
                names = ", ".join(c.shown for c in changed_since[:6])
                line = _("{line}; left as they are (changed since the rewind): {names}.").format(
                    line=line.rstrip("."), names=names)
            return line


def store_ready(store: ConversationStore) -> ConversationStore:
    store.ensure()
    return store


# ---------------------------------------------------------------------- plans


class _Plan:
    changes: list[Change]

    def restore(self, latest: Checkpoint) -> tuple[Record, list[Change],
                                                   list[tuple[Change, str]]]:
        raise NotImplementedError

    def undo(self) -> tuple[list[Change], list[tuple[Change, str]], list[Change]]:
        raise NotImplementedError


class _GitPlan(_Plan):
    """Putting a git snapshot back over the working tree."""

    def __init__(self, owner: Checkpoints, store: ConversationStore, repo: GitRepo,
                 record: Record) -> None:
        self.owner, self.store, self.repo, self.record = owner, store, repo.fresh(), record
        self.index = store.index_path(repo.toplevel)
        self.target = record.data["commit"]
        if not repo.exists(self.target, self.index):
            from chatcli_checkpoints._changes import Change

            self.changes = [Change(repo.scope, ".", "kept", _("its git snapshot is gone"))]
            return
        now = repo.tree(self.index, owner.limits.max_file_bytes)
        self.changes = repo.changes(now, self.target, self.index)

    def restore(self, latest: Checkpoint) -> tuple[Record, list[Change],
                                                   list[tuple[Change, str]]]:
        restorable = [c for c in self.changes if c.restorable]
        before = self.owner._git_record(
            self.store, self.repo, latest, "restore",
            {"restore": {"target": self.target, "paths": [c.path for c in restorable]}})
        failed = self.repo.apply(self.target, restorable, self.store.folder / "git-scratch")
        return before, *self._verify(restorable, failed, self.target)

    def _verify(self, wanted: list[Change], failed: list[tuple[Change, str]], target: str
                ) -> tuple[list[Change], list[tuple[Change, str]]]:
        now = self.repo.tree(self.index, self.owner.limits.max_file_bytes)
        still = {c.path for c in self.repo.changes(now, target, self.index)}
        failed_paths = {c.path for c, _ in failed}
        done = [c for c in wanted if c.path not in still and c.path not in failed_paths]
        failed += [(c, _("could not be written")) for c in wanted
                   if c.path in still and c.path not in failed_paths]
        return done, failed

    def undo(self) -> tuple[list[Change], list[tuple[Change, str]], list[Change]]:
        info = self.record.data.get("restore", {})
        paths = set(info.get("paths", []))
        wrote = info.get("target")
        before = self.record.data["commit"]
        if not paths or not wrote:
            return [], [], []
        now = self.repo.fresh().tree(self.index, self.owner.limits.max_file_bytes)
        since = {c.path: c for c in self.repo.changes(now, wrote, self.index) if c.path in paths}
        back = [c for c in self.repo.changes(now, before, self.index)
                if c.path in paths and c.path not in since]
        failed = self.repo.apply(before, back, self.store.folder / "git-scratch")
        done, failed = self._verify(back, failed, before)
        return done, failed, list(since.values())


class _FilesPlan(_Plan):
    """Putting recorded entries back, outside git."""

    def __init__(self, owner: Checkpoints, store: ConversationStore, root: Path,
                 records: list[Record]) -> None:
        self.owner, self.store, self.root = owner, store, root
        self.records = records
        from chatcli_checkpoints import _files

        self.target = _files.resolve([r.data for r in records])
        self.changes = _files.changes(root, self.target, owner.limits, skip=(_base(),))

    def restore(self, latest: Checkpoint) -> tuple[Record, list[Change],
                                                   list[tuple[Change, str]]]:
        from chatcli_checkpoints import _files

        restorable = [c for c in self.changes if c.restorable]
        data = _files.preimages(self.root, [c.path for c in restorable], store_ready(self.store),
                                self.owner.limits)
        wanted = {c.path: self.target.entry(c.path)[0] for c in restorable}
        data["restore"] = {"target": wanted}
        before = self.owner._save(self.store, latest, "restore", "files", str(self.root), data)
        done, failed = _files.apply(self.root, [(c, wanted[c.path]) for c in restorable],
                                    self.store)
        return before, done, failed

    def undo(self) -> tuple[list[Change], list[tuple[Change, str]], list[Change]]:
        from chatcli_checkpoints import _files
        from chatcli_checkpoints._changes import Change

        record = self.records[0]
        wrote: dict[str, Any] = record.data.get("restore", {}).get("target", {})
        at = time.time_ns()
        back: list[tuple[Change, dict[str, Any]]] = []
        since: list[Change] = []
        for rel, entry in wrote.items():
            change = Change(rel, rel, "changed")
            if _files.compare(self.root / rel, entry, at) != "same":
                since.append(change)
                continue
            previous = record.data.get("entries", {}).get(rel, _files.ABSENT)
            if previous.get("t") == "f" and not previous.get("sha"):
                since.append(Change(rel, rel, "kept", previous.get("why", "")))
                continue
            if _files.compare(self.root / rel, previous, record.data.get("at", 0)) == "same":
                continue
            kind = ("created" if previous.get("t") == "-" else
                    "deleted" if entry.get("t") == "-" else "changed")
            back.append((Change(rel, rel, kind), previous))
        done, failed = _files.apply(self.root, back, self.store)
        return done, failed, since
