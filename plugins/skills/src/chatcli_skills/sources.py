"""Where skills come from, in precedence order, and the catalog they make.

1. the project: ``.chatcli/skills/``, ``.agents/skills/``, ``.claude/skills/`` in the workspace
   and each folder above it up to the repository's root (nearest first);
2. the user: ``<config dir>/skills/``, ``~/.agents/skills/``, ``~/.claude/skills/``
   (``$CLAUDE_CONFIG_DIR/skills/`` when Claude Code's folder is moved);
3. packages: the folders skill packs register (``register_skill_sources``), in their order.

Two skills with one name: the earlier source wins and the other is *shadowed* (``chatcli skills
list`` says so). A project skill of an untrusted project never shadows a user's or a package's
skill of the same name: it is listed as untrusted and the other one stays active.

Loading is cached by SKILL.md's path and content, so re-reading the sources before every model
call costs a directory listing and a file read per skill — which is also how an edited
SKILL.md is noticed at once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from chatcli_skills.skill import Loaded, Skill, load_skill, skill_file
from chatcli_skills.trust import project_chain

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


def source_folders(workspace: Path, package_sources: Iterable[tuple[str, Path]] = ()
                   ) -> list[Source]:
    """Every source folder in precedence order (existing or not)."""
    from chatcli import config_dir

    sources = []
    for folder in project_chain(workspace):
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


_cache: dict[tuple[str, str, str, bytes], Loaded] = {}
_lock = threading.Lock()


def _load(folder: Path, source: Source) -> Loaded:
    path = skill_file(folder)
    if path is None:
        return Loaded(None, None)
    try:
        data = path.read_bytes()
    except OSError as err:
        return Loaded(None, f"{path}: cannot be read ({err.strerror or err}); skipped")
    key = (str(folder), source.scope, source.label, data)
    with _lock:
        hit = _cache.get(key)
    if hit is not None and hit.skill is not None and _same_files(hit.skill):
        return hit
    loaded = load_skill(folder, source.scope, source.label, data)
    with _lock:
        if len(_cache) > 2_000:
            _cache.clear()
        _cache[key] = loaded
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
             trusted: bool = True) -> Catalog:
    """Load every source's skills; ``trusted`` says whether the project's may be activated."""
    catalog = Catalog(sources=source_folders(workspace, package_sources), trusted=trusted)
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
    return catalog
