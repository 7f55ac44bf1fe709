"""Where skills come from, in precedence order, and the catalog they make.

1. the project: ``.chatcli/skills/``, ``.agents/skills/``, ``.claude/skills/`` in the workspace
   and each folder above it up to the repository's root (nearest first);
2. the user: ``<config dir>/skills/``, ``~/.agents/skills/``, ``~/.claude/skills/``
   (``$CLAUDE_CONFIG_DIR/skills/`` when Claude Code's folder is moved);
3. packages: the folders skill packs register (``register_skill_sources``), in their order.

Two skills with one name: the earlier source wins and the other is *shadowed* (``chatcli skills
list`` says so). A project skill of an untrusted project never shadows a user's or a package's
skill of the same name: it is listed as untrusted and the other one stays active.

Loading is cached by SKILL.md's path and file status (modification and change times, size,
inode), in memory and in ``<cache dir>/skills/loaded.json`` (so a fresh ``chatcli -p`` neither
imports PyYAML nor parses the frontmatter of skills it read before): re-reading the sources
before every model call costs a directory listing and a ``stat`` per skill — which is also how
an edited SKILL.md is noticed at once. A skill whose frontmatter holds what JSON cannot carry
as it is (dates, non-text keys) is kept in memory only. A skill's warnings and a skipped file's
line are in the user's language: a language other than English has its own entries (English
ones are keyed as they always were).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from chatcli import language, translation
from chatcli_records_lite import dataclass

from chatcli_skills.skill import Loaded, Skill, load_skill, skill_file
from chatcli_skills.trust import project_chain

_, ngettext = translation(__name__)

__all__ = ["Catalog", "Source", "discover", "source_folders"]

PROJECT_DIRS = (".chatcli/skills", ".agents/skills", ".claude/skills")
#: Skill folders read from one source, at most.
MAX_PER_SOURCE = 500


@dataclass(frozen=True)
class Source:
    """A folder of skill folders."""

    path: Path
    scope: str  # "project", "user" or "package"
    label: str  # how lists name it: ".claude/skills", "user", "package core"


@dataclass
class Catalog:
    """Every skill found, by name (the winners), and what else was found."""

    skills: dict[str, Skill] = field(default_factory=dict)
    #: (the shadowed skill, the one that wins)
    shadowed: list[tuple[Skill, Skill]] = field(default_factory=list)
    #: project skills not activated because the project is not trusted
    untrusted: dict[str, Skill] = field(default_factory=dict)
    #: why folders were skipped, and what loading repaired (one line each)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    trusted: bool = True

    def active(self) -> list[Skill]:
        """The skills that may be activated, by name."""
        return [self.skills[name] for name in sorted(self.skills)]

    def visible(self, disabled: Iterable[str] = ()) -> list[Skill]:
        """The skills the model's catalog lists (model-invocable, not disabled)."""
        off = set(disabled)
        return [s for s in self.active() if s.model_invocable and s.name not in off]

    def find(self, name: str) -> Skill | None:
        """A skill by exact name, case-insensitively, or by unique prefix."""
        if name in self.skills:
            return self.skills[name]
        folded = name.strip().lower()
        for key, skill in self.skills.items():
            if key.lower() == folded:
                return skill
        prefixed = [s for k, s in self.skills.items() if k.startswith(folded)]
        return prefixed[0] if len(prefixed) == 1 and folded else None


def source_folders(workspace: Path, package_sources: Iterable[tuple[str, Path]] = (), *,
                   chain: list[Path] | None = None) -> list[Source]:
    """Every source folder in precedence order (existing or not); ``chain``: the workspace's
    :func:`project_chain`, when the caller has it."""
    from chatcli import config_dir

    sources = []
    for folder in project_chain(workspace) if chain is None else chain:
        for sub in PROJECT_DIRS:
            label = sub if folder == workspace.resolve() else f"{folder}/{sub}"
            sources.append(Source(folder / sub, "project", label))
    home = Path(os.path.expanduser("~"))
    claude = os.environ.get("CLAUDE_CONFIG_DIR")  # Claude Code's own folder, when moved
    sources.append(Source(config_dir() / "skills", "user", "user"))
    sources.append(Source(home / ".agents" / "skills", "user", "~/.agents/skills"))
    sources.append(Source(Path(claude) / "skills" if claude else home / ".claude" / "skills",
                          "user", "~/.claude/skills"))
    for name, path in package_sources:
        sources.append(Source(Path(path), "package", f"package {name}"))
    unique: dict[Path, Source] = {}
    for source in sources:
        try:
            key = source.path.resolve()
        except OSError:
            key = source.path
        unique.setdefault(key, source)  # the same folder twice: its first (higher) place
    return list(unique.values())


#: What loading each SKILL.md gave, by (folder, SKILL.md, scope, label): the file status it
#: was read at, the skill or the line saying why it was skipped, and the sha256 of its bytes.
_cache: dict[str, tuple[tuple[int, ...], Loaded, str]] = {}
_lock = threading.Lock()
#: The on-disk copy, of the cache file it was read from (read once per process and file);
#: ``_dirty`` when something was loaded afresh since it was written.
_disk: tuple[Path, dict[str, Any]] | None = None
_dirty = False
_DISK_VERSION = 1
_MAX_CACHED = 2_000
#: A file changed less than this long before it was loaded (ns) may change again within the
#: same clock tick of the file system (timestamps are coarse): its content is compared too.
_RACY_NS = 2_000_000_000


def _disk_entries() -> dict[str, Any]:
    """The loaded skills cached on disk, by key (unreadable: none). Under ``_lock``."""
    global _disk
    from chatcli import cache_dir

    path = cache_dir() / "skills" / "loaded.json"
    if _disk is None or _disk[0] != path:
        import json

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        ok = isinstance(data, dict) and data.get("version") == _DISK_VERSION
        entries = data.get("skills") if ok and isinstance(data, dict) else None
        _disk = (path, entries if isinstance(entries, dict) else {})
    return _disk[1]


def save_cache() -> None:
    """Write what was loaded afresh to the on-disk cache (atomic; a failure is ignored)."""
    global _dirty
    with _lock:
        if not _dirty or _disk is None:
            return
        _dirty = False
        path, entries = _disk[0], dict(_disk[1])
    import json

    from chatcli import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"version": _DISK_VERSION, "skills": entries},
                                      ensure_ascii=False))
    except (OSError, ValueError):
        pass


def _to_json(skill: Skill) -> dict[str, Any] | None:
    """``skill`` as JSON values, or None when its fields would not come back the same."""
    import json

    fields = dict(skill.fields)
    try:
        if json.loads(json.dumps(fields)) != fields:
            return None
    except (TypeError, ValueError, RecursionError):
        return None
    out: dict[str, Any] = {}
    for name in Skill.__dataclass_fields__:
        value = getattr(skill, name)
        out[name] = (str(value) if isinstance(value, Path) else list(value)
                     if isinstance(value, tuple) else fields if name == "fields" else value)
    return out


_TEXT_FIELDS = ("name", "description", "folder", "path", "scope", "source", "body",
                "fingerprint")


def _from_json(data: Any) -> Skill | None:
    """The skill :func:`_to_json` wrote, or None for anything else."""
    if (not isinstance(data, dict) or set(data) != set(Skill.__dataclass_fields__)
            or not isinstance(data["fields"], dict) or not all(
                isinstance(data[name], str) for name in _TEXT_FIELDS)):
        return None
    try:
        values: dict[str, Any] = {
            name: (Path(value) if name in ("folder", "path") else tuple(value)
                   if isinstance(value, list) else value) for name, value in data.items()}
        return Skill(**values)
    except (TypeError, ValueError):
        return None


def _from_record(record: Any) -> tuple[Loaded, str] | None:
    """The outcome an on-disk entry holds (a skill, or why the file was skipped) and the
    sha256 of the bytes it was loaded from."""
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("skipped"), str) and isinstance(record.get("sha256"), str):
        return Loaded(None, record["skipped"]), record["sha256"]
    skill = _from_json(record.get("skill"))
    return (Loaded(skill), skill.fingerprint) if skill is not None else None


def _status(path: Path) -> tuple[int, ...] | None:
    """SKILL.md's status: modification and change times, size, inode, and 1 when it changed
    so recently that the first four may not tell a later edit (then the content is checked)."""
    import time

    try:
        found = path.stat()
    except OSError:
        return None
    racy = int(time.time_ns() - max(found.st_mtime_ns, found.st_ctime_ns) < _RACY_NS)
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino, racy)


def _still(stored: Any, status: tuple[int, ...], path: Path, digest: str) -> bool:
    """Whether an outcome loaded at status ``stored`` still stands for the file now at
    ``status`` (a racy one: when the file's bytes still have the sha256 ``digest``)."""
    if not isinstance(stored, (list, tuple)) or len(stored) != 5:
        return False
    if list(stored[:4]) != list(status[:4]):
        return False
    if not stored[4]:
        return True
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == digest
    except OSError:
        return False


def _cached(key: str, status: tuple[int, ...], path: Path) -> Loaded | None:
    """The outcome cached for ``key`` (in memory, else on disk) if the file is unchanged."""
    global _dirty
    with _lock:
        hit = _cache.get(key)
        record = None if hit is not None else _disk_entries().get(key)
    stored: Any
    if hit is not None:
        stored, loaded, digest = hit
    else:
        found = _from_record(record)
        if found is None:
            return None
        stored = record.get("status") if isinstance(record, dict) else None
        loaded, digest = found
    skill = loaded.skill
    if not _still(stored, status, path, digest):
        return None
    if skill is not None and not _same_files(skill):
        return None
    with _lock:
        _cache[key] = (status, loaded, digest)
        if isinstance(record, dict) and record.get("status") != list(status):
            # checked by content while it was recent: now its status tells
            _disk_entries()[key] = {**record, "status": list(status)}
            _dirty = True
    return loaded


def _load(folder: Path, source: Source) -> Loaded:
    global _dirty
    path = skill_file(folder)
    if path is None:
        return Loaded(None, None)
    key = "\0".join((str(folder), str(path), source.scope, source.label))
    lang = language()
    if lang != "en":  # warnings and skip lines are in the user's language: each kept apart
        key += "\0" + lang
    status = _status(path)
    if status is not None:
        hit = _cached(key, status, path)
        if hit is not None:
            return hit
    try:
        data = path.read_bytes()
    except OSError as err:
        return Loaded(None, _("{path}: cannot be read ({reason}); skipped").format(
            path=path, reason=err.strerror or err))
    loaded = load_skill(folder, source.scope, source.label, data)
    if status is None or _status(path) != status:
        return loaded  # changed while it was read: not cached
    record: dict[str, Any] | None
    if loaded.skill is not None:
        digest = loaded.skill.fingerprint
        skill_record = _to_json(loaded.skill)
        record = None if skill_record is None else {"skill": skill_record}
    else:
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        record = {"skipped": loaded.skipped, "sha256": digest} if loaded.skipped else None
    with _lock:
        if len(_cache) > _MAX_CACHED:
            _cache.clear()
        _cache[key] = (status, loaded, digest)
        entries = _disk_entries()
        if len(entries) > _MAX_CACHED:
            entries.clear()
        if record is not None:
            entries[key] = {"status": list(status), **record}
            _dirty = True
        elif entries.pop(key, None) is not None:
            _dirty = True
    return loaded


def _same_files(skill: Skill) -> bool:
    """Whether the cached skill's list of files still holds (a quick look at its folders)."""
    from chatcli_skills.skill import list_files

    files = list_files(skill.folder)
    return (tuple(files["references"]) == skill.references
            and tuple(files["scripts"]) == skill.scripts
            and tuple(files["assets"]) == skill.assets and tuple(files["others"]) == skill.others)


def _folders(source: Source) -> list[Path]:
    try:
        entries = sorted(p for p in source.path.iterdir() if p.is_dir()
                         and not p.name.startswith("."))
    except OSError:
        return []
    return entries[:MAX_PER_SOURCE]


def discover(workspace: Path, package_sources: Iterable[tuple[str, Path]] = (), *,
             trusted: bool = True, chain: list[Path] | None = None) -> Catalog:
    """Load every source's skills; ``trusted`` says whether the project's may be activated
    (``chain``: the workspace's :func:`project_chain`, when the caller has it)."""
    catalog = Catalog(sources=source_folders(workspace, package_sources, chain=chain),
                      trusted=trusted)
    for source in catalog.sources:
        for folder in _folders(source):
            loaded = _load(folder, source)
            if loaded.skill is None:
                if loaded.skipped:
                    catalog.skipped.append(loaded.skipped)
                continue
            skill = loaded.skill
            catalog.warnings.extend(skill.warnings)
            if source.scope == "project" and not trusted:
                if skill.name in catalog.untrusted:
                    catalog.shadowed.append((skill, catalog.untrusted[skill.name]))
                else:
                    catalog.untrusted[skill.name] = skill
                continue
            winner = catalog.skills.get(skill.name)
            if winner is not None:
                catalog.shadowed.append((skill, winner))
            else:
                catalog.skills[skill.name] = skill
    save_cache()
    return catalog
