"""Where personas come from, in precedence order, and the loaded set.

1. the project: ``.chatcli/agents/`` in the workspace and every folder above it up to the
   repository's root (the folder holding ``.git``), nearest first;
2. the user: ``<config dir>/agents/`` (``~/.config/chatcli/agents``);
3. packages: the folders persona packs register (``register_persona_sources``), in order.

A name found twice is the first one's. Files are read again only when they change (size and
modification time), so asking for the set before every model call costs a few ``stat`` calls.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli_personas.persona import Persona, load_persona

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["Catalog", "project_folders", "project_root"]


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
                 user_folder: Callable[[], Path] | None = None) -> None:
        self.host = host
        self.workspace = workspace
        self._warn = warn or (lambda line: None)
        self._user_folder = user_folder
        self._files: dict[Path, tuple[tuple[int, int], Persona | None]] = {}
        self._warned: set[str] = set()

    def folders(self) -> list[tuple[str, Path]]:
        """``(source, folder)`` pairs in precedence order."""
        from chatcli import config_dir

        workspace = (self.workspace or Path.cwd()).resolve()
        found = [("project", folder) for folder in project_folders(workspace, ".chatcli/agents")]
        user = self._user_folder() if self._user_folder is not None else config_dir() / "agents"
        found.append(("user", user))
        if self.host is not None:
            from chatcli_plugin_records import PersonaSource

            sources = self.host.collect("register_persona_sources", PersonaSource,
                                        "persona source")
            found += [(source.name, Path(source.path)) for source in sources.values()]
        return found

    def personas(self) -> dict[str, Persona]:
        """Every persona by name, the first of each name in precedence order."""
        chosen: dict[str, Persona] = {}
        seen: set[Path] = set()
        for source, folder in self.folders():
            for path in _markdown_files(folder):
                if path in seen:
                    continue
                seen.add(path)
                persona = self._load(path, source)
                if persona is not None:
                    chosen.setdefault(persona.name, persona)
        return chosen

    def get(self, name: str) -> Persona | None:
        """The persona called ``name`` (any case; a leading ``@`` is ignored), else None."""
        wanted = name.strip().lstrip("@").lower()
        if not wanted:
            return None
        return self.personas().get(wanted)

    def _load(self, path: Path, source: str) -> Persona | None:
        try:
            info = path.stat()
        except OSError:
            return None
        stamp = (info.st_mtime_ns, info.st_size)
        cached = self._files.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        persona, problems = load_persona(path, source)
        self._files[path] = (stamp, persona)
        for problem in problems:
            line = f"persona {_shown(path)}: {problem}"
            if line not in self._warned:
                self._warned.add(line)
                self._warn(line)
        return persona


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
