"""Where personas come from, in precedence order, and the loaded set.

1. the project: ``.chatcli/agents/``, then ``.claude/agents/`` (Claude Code's subagents, read
   as they are), in the workspace and every folder above it up to the repository's root (the
   folder holding ``.git``), nearest folder first;
2. the user: ``<config dir>/agents/`` (``~/.config/chatcli/agents``), then ``~/.claude/agents/``
   (``$CLAUDE_CONFIG_DIR/agents``);
3. packages: the folders persona packs register (``register_persona_sources``), in order.

A name found twice is the first one's. Files are read again only when they change (size and
modification time), so asking for the set before every model call costs a few ``stat`` calls.

A project's ``.claude/agents/*.md`` are control files (:data:`CONTROL_PATTERNS`, registered
through ``register_setting_rules``): they are read only once the user trusted the project
(``chatcli trust``) with those very files; an untrusted project's are skipped (the session's
trust notice names them), and one deeper than :data:`MAX_DEPTH` folders below the project root
(which trust cannot cover) is skipped with one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost

    from chatcli_personas.persona import Persona

__all__ = ["CLAUDE_AGENTS", "CONTROL_PATTERNS", "Catalog", "project_folders", "project_root"]

_, ngettext = translation(__name__)

#: Claude Code's subagent folder, in a project and in the home folder.
CLAUDE_AGENTS = ".claude/agents"

#: How deep below the project root a folder's ``.claude/agents`` is covered by workspace trust
#: (a monorepo's ``packages/app/.claude/agents``); deeper ones are never read.
MAX_DEPTH = 2

#: The project's Claude Code agent files as control files (globs relative to the project root).
CONTROL_PATTERNS = tuple(f"{'*/' * depth}{CLAUDE_AGENTS}/*.md" for depth in range(MAX_DEPTH + 1))


def project_root(workspace: Path) -> Path | None:
    """The nearest folder at or above ``workspace`` that holds ``.git``, else None."""
    for folder in (workspace, *workspace.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_folders(workspace: Path, *relative: str) -> list[Path]:
    """``folder/relative`` for each folder from ``workspace`` up to the project's root
    (only ``workspace`` itself outside a repository), nearest first."""
    root = project_root(workspace)
    chain = [workspace]
    if root is not None:
        chain = [workspace, *[p for p in workspace.parents if p == root or root in p.parents]]
    return [folder / part for folder in chain for part in relative]


class Catalog:
    """The personas a run can use; ``warn`` gets each problem of a file once."""

    def __init__(self, host: PluginHost | None = None, workspace: Path | None = None,
                 warn: Callable[[str], None] | None = None,
                 user_folder: Callable[[], Path] | None = None,
                 claude_folder: Callable[[], Path] | None = None) -> None:
        self.host = host
        self.workspace = workspace
        self._warn = warn or (lambda line: None)
        self._user_folder = user_folder
        self._claude_folder = claude_folder
        self._files: dict[Path, tuple[tuple[int, int], Persona | None]] = {}
        self._warned: set[str] = set()
        #: the lines said, in order, while a list is given (:mod:`chatcli_personas.typecache`)
        self.said: list[str] | None = None

    @property
    def untouched(self) -> bool:
        """Whether this catalog has read no file and said nothing yet."""
        return not self._files and not self._warned

    def folders(self) -> list[tuple[str, Path]]:
        """``(source, folder)`` pairs in precedence order."""
        from chatcli import config_dir

        workspace = (self.workspace or Path.cwd()).resolve()
        user = self._user_folder() if self._user_folder is not None else config_dir() / "agents"
        claude = self.claude_user_folder()
        found = [("project", folder) for folder in
                 project_folders(workspace, ".chatcli/agents", CLAUDE_AGENTS)
                 if folder not in (user, claude)]
        found += [("user", user), ("user", claude)]
        if self.host is not None:
            from chatcli_plugin_records import PersonaSource

            sources = self.host.collect("register_persona_sources", PersonaSource,
                                        "persona source")
            found += [(source.name, Path(source.path)) for source in sources.values()]
        return found

    def claude_user_folder(self) -> Path:
        """The user's Claude Code agents: ``~/.claude/agents`` (``$CLAUDE_CONFIG_DIR/agents``
        when Claude Code's folder is moved)."""
        if self._claude_folder is not None:
            return self._claude_folder()
        moved = os.environ.get("CLAUDE_CONFIG_DIR")
        return Path(moved) / "agents" if moved else Path.home() / CLAUDE_AGENTS

    def personas(self) -> dict[str, Persona]:
        """Every persona by name, the first of each name in precedence order."""
        chosen: dict[str, Persona] = {}
        seen: set[Path] = set()
        trusted: set[Path] | None = None  # the project's trusted files (None: not asked yet)
        untrusted = False
        claude_user = self.claude_user_folder()
        for source, folder in self.folders():
            claude = _is_claude(folder) or folder == claude_user
            files = _markdown_files(folder)
            if claude and source == "project" and files:
                if trusted is None:
                    found = self._trusted_files()
                    trusted, untrusted = found or set(), found is None
                if not untrusted and any(path not in trusted for path in files):
                    # (an untrusted project's files are named by the session's one trust notice)
                    self._say_once(_("persona {path}: not read — workspace trust does not "
                                     "cover it (more than {depth} folders below the project "
                                     "root, or outside it)").format(path=_shown(folder),
                                                                    depth=MAX_DEPTH))
                files = [path for path in files if path in trusted]
            for path in files:
                if path in seen:
                    continue
                seen.add(path)
                persona = self._load(path, source, claude=claude)
                if persona is not None:
                    chosen.setdefault(persona.name, persona)
        return chosen

    def _trusted_files(self) -> set[Path] | None:
        """The project's files the user trusted as they are now; None when the project is not
        trusted (chatcli-admin's trust notice names its ignored files as a session starts) or
        there is no project (the workspace is the home folder)."""
        from chatcli import project_trust

        workspace = (self.workspace or Path.cwd()).resolve()
        state = project_trust(workspace, self.host)
        if state.root is None or not state.trusted:
            return None
        return {state.root / relative for relative in state.files}

    def _say_once(self, line: str) -> None:
        if line not in self._warned:
            self._warned.add(line)
            if self.said is not None:
                self.said.append(line)
            self._warn(line)

    def get(self, name: str) -> Persona | None:
        """The persona called ``name`` (any case; a leading ``@`` is ignored), else None."""
        wanted = name.strip().lstrip("@").lower()
        if not wanted:
            return None
        return self.personas().get(wanted)

    def _load(self, path: Path, source: str, *, claude: bool = False) -> Persona | None:
        try:
            info = path.stat()
        except OSError:
            return None
        stamp = (info.st_mtime_ns, info.st_size)
        cached = self._files.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        from chatcli_personas.persona import load_persona

        persona, problems = load_persona(path, source, claude=claude)
        self._files[path] = (stamp, persona)
        for problem in problems:
            self._say_once(_("persona {path}: {problem}").format(path=_shown(path),
                                                                 problem=problem))
        return persona


def _is_claude(folder: Path) -> bool:
    """Whether ``folder`` is a ``.claude/agents`` folder (Claude Code's format)."""
    return folder.parts[-2:] == (".claude", "agents")


def _markdown_files(folder: Path) -> list[Path]:
    """The ``*.md`` files of ``folder`` (not README.md, not hidden), sorted by name."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(Path(entry.path) for entry in entries
                  if entry.name.endswith(".md") and not entry.name.startswith((".", "_"))
                  and entry.name.lower() != "readme.md" and entry.is_file())


def _shown(path: Path) -> str:
    """``path`` as short as it can be: relative to the current folder or the home folder."""
    for base, prefix in ((Path.cwd(), ""), (Path.home(), "~/")):
        try:
            return prefix + str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)
