"""The personas as agent types, kept in chatcli's cache folder between runs.

Every start that offers the ``delegate`` tool lists the agent types in its description, so
``chatcli -p`` would read, hash and convert every persona file (and import the loader) on each
run. The list of types a run registered, and the warnings reading the files gave, are kept in
``<cache dir>/personas-agent-types.json`` under a key made of everything they depend on: the
persona folders in precedence order with each ``*.md`` file's name and status (modification and
change times, size, inode), the language, the current and home folders (a warning names a file
relative to them) and the status of this package's own modules (a new version converts anew).
A run whose key is unchanged registers the kept types and says the kept warnings again, without
importing the loader.

A project's ``.claude/agents`` files are read only once the user trusted them: a run with such
files present does not use the cache (trust decides each time). A damaged or unreadable cache is
ignored and written again; the file is private (0600) and written atomically.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatcli_plugin_records import AgentType

    from chatcli_personas.catalog import Catalog

__all__ = ["CACHE_NAME", "agent_types"]

#: the cache file's name in chatcli's cache folder
CACHE_NAME = "personas-agent-types.json"
#: the most keys kept (one per workspace and set of files, the newest last)
_MOST = 32
#: bump when what is kept changes shape
_FORMAT = 1
#: the modules whose code decides what a persona file becomes as an agent type
_MODULES = ("agents.py", "catalog.py", "claude.py", "frontmatter.py", "persona.py",
            "prompt.py", "typecache.py")

_lock = threading.Lock()
#: this process's copy of the cache file, with the file's path (None: not read yet)
_table: tuple[Path, dict[str, Any]] | None = None


def agent_types(catalog: Catalog, warn: Callable[[str], None]) -> list[AgentType]:
    """The agent types of ``catalog``'s personas, in precedence order; a kept warning is said
    again through ``warn``. Only a catalog that has read nothing yet fills the cache (its
    warnings are then all the files give)."""
    key = _key(catalog)
    if key is not None:
        hit = _lookup(key)
        if hit is not None:
            types, lines = hit
            for line in lines:
                warn(line)
            return types
    if key is None or not catalog.untouched:
        return _convert(catalog)
    catalog.said = []
    try:
        types = _convert(catalog)
        lines = catalog.said
    finally:
        catalog.said = None
    _store(key, types, lines)
    return types


def _convert(catalog: Catalog) -> list[AgentType]:
    from chatcli_personas.agents import agent_type

    return [agent_type(persona) for persona in catalog.personas().values()]


def _status(path: str | Path) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino]


def _listing(folder: Path) -> list[list[Any]]:
    """The persona files of ``folder`` as the catalog picks them, each with its status."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    for entry in entries:
        name = entry.name
        if not name.endswith(".md") or name.startswith((".", "_")) \
                or name.lower() == "readme.md":
            continue
        try:
            if not entry.is_file():
                continue
            info = entry.stat()
        except OSError:
            continue
        found.append([name, info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino])
    return sorted(found)


def _key(catalog: Catalog) -> str | None:
    """What the types depend on, as one string; None when the cache must not be used."""
    import hashlib

    from chatcli import language

    from chatcli_personas.catalog import _is_claude

    here = Path(__file__).parent
    parts: list[Any] = [_FORMAT, language(), os.getcwd(), str(Path.home()),
                        [_status(here / name) for name in _MODULES]]
    claude_user = catalog.claude_user_folder()
    for source, folder in catalog.folders():
        files = _listing(folder)
        if files and source == "project" and (_is_claude(folder) or folder == claude_user):
            return None  # the project's Claude Code agents: trust decides, each run
        parts.append([source, str(folder), files])
    text = json.dumps(parts, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _path() -> Path:
    from chatcli import cache_dir

    return cache_dir() / CACHE_NAME


def _load() -> dict[str, Any]:
    """The cache file's entries (a damaged or missing file: none). Under ``_lock``."""
    global _table
    path = _path()
    if _table is None or _table[0] != path:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        entries = data.get("entries") if isinstance(data, dict) \
            and data.get("format") == _FORMAT else None
        _table = (path, dict(entries) if isinstance(entries, dict) else {})
    return _table[1]


def _valid_type(row: Any) -> bool:
    if not isinstance(row, list) or len(row) != 9:
        return False
    name, description, prompt, tools, model, provider, isolation, max_turns, source = row
    optional = (model, provider, isolation)
    return (isinstance(name, str) and isinstance(description, str)
            and isinstance(prompt, str) and isinstance(source, str)
            and (tools is None or (isinstance(tools, list)
                                   and all(isinstance(t, str) for t in tools)))
            and all(v is None or isinstance(v, str) for v in optional)
            and (max_turns is None or (isinstance(max_turns, int)
                                       and not isinstance(max_turns, bool))))


def _lookup(key: str) -> tuple[list[AgentType], list[str]] | None:
    with _lock:
        entry = _load().get(key)
    if not isinstance(entry, dict):
        return None
    rows, lines = entry.get("types"), entry.get("warnings")
    if not isinstance(rows, list) or not all(_valid_type(row) for row in rows) \
            or not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
        return None
    from chatcli_plugin_records import AgentType

    types = [AgentType(row[0], row[1], row[2], tuple(row[3]) if row[3] is not None else None,
                       *row[4:]) for row in rows]
    return types, list(lines)


def _store(key: str, types: list[AgentType], lines: list[str]) -> None:
    """Keep ``types`` and ``lines`` under ``key`` (atomic, private; a failure is ignored)."""
    from chatcli import atomic_write

    rows = [[t.name, t.description, t.prompt, list(t.tools) if t.tools is not None else None,
             t.model, t.provider, t.isolation, t.max_turns, t.source] for t in types]
    if not all(_valid_type(row) for row in rows):
        return  # (a value JSON would not give back as it is: not kept)
    with _lock:
        table = _load()
        table.pop(key, None)
        table[key] = {"types": rows, "warnings": list(lines)}
        while len(table) > _MOST:
            del table[next(iter(table))]
        text = json.dumps({"format": _FORMAT, "entries": table}, ensure_ascii=False)
        with contextlib.suppress(OSError):  # a read-only cache folder: read afresh next time
            atomic_write(_path(), text, mode=0o600)
