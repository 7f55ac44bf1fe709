"""Building the map: list the files, read their tags (from the cache when the file did not
change), rank, render — and remember the result.

Caches, in chatcli's cache folder (``repomap/``, folder 0700, files 0600, written atomically),
one pair per project:

- ``<project>.tags.json``: each file's ``(mtime_ns, size, digest)`` and, by content digest,
  its definitions and references. A file whose ``lstat`` did not change is not read; one that
  changed is read and hashed, and parsed only when no file with those bytes was parsed before.
- ``<project>.maps.json``: the last few rendered maps, by the files' signatures, the files the
  conversation mentions and the budget. A warm build (nothing changed) lists the files, stats
  them and reads this small file: tree-sitter is not even imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chatcli_records_lite import NamedTuple

from chatcli_repomap.languages import language_of
from chatcli_repomap.project import Listing, file_stat, inside, list_files, read_source
from chatcli_repomap.tags import QUERY_VERSION

__all__ = ["MAP_VERSION", "Built", "build_map", "cache_folder", "mentioned_files"]

MAP_VERSION = "2"
#: rendered maps kept per project
KEPT_MAPS = 8
_LOCK = threading.Lock()


class Built(NamedTuple):
    """A map and what it covers."""

    text: str
    root: Path
    #: files considered (known languages, within max_files), files shown, definitions shown
    files: int
    shown_files: int
    shown_defs: int
    #: files of known languages left out by max_files
    left_out: int
    #: how it was made: "cached" (the rendered map was reused), "built"
    how: str
    #: files parsed by tree-sitter in this build
    parsed: int = 0
    #: files left for a later build by the time budget
    pending: int = 0


def cache_folder() -> Path:
    """Where the map's caches live."""
    from chatcli import cache_dir

    return cache_dir() / "repomap"


def _project_id(root: Path) -> str:
    return hashlib.sha256(os.fsencode(str(root))).hexdigest()[:20]


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("v") == MAP_VERSION else {}


def _save(path: Path, data: dict[str, Any]) -> None:
    from chatcli import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        # (ASCII: a file name that is not UTF-8 is kept as its escaped surrogates)
        atomic_write(path, json.dumps(data, separators=(",", ":")), mode=0o600)
    except (OSError, ValueError):
        pass  # a cache that cannot be written only makes the next build slower


_WORD = re.compile(r"[\w./\\-]+")


def mentioned_files(texts: Iterable[str], files: Iterable[str]) -> list[str]:
    """The files of ``files`` that ``texts`` name, by path (``src/app.py``, ``./src/app.py``)
    or by a file name that only one file has (``app.py``)."""
    files = list(files)
    by_path = set(files)
    by_name: dict[str, list[str]] = {}
    for file in files:
        by_name.setdefault(file.rpartition("/")[2], []).append(file)
    found: dict[str, None] = {}
    for text in texts:
        for word in _WORD.findall(text):
            word = word.rstrip(".,:;\\").removeprefix("./")
            if word in by_path:
                found[word] = None
                continue
            same = by_name.get(word.rpartition("/")[2])
            if same and len(same) == 1 and (word == same[0].rpartition("/")[2]
                                            or same[0].endswith("/" + word)):
                found[same[0]] = None
    return list(found)


def _choose(listing: Listing, workspace: Path, max_files: int) -> tuple[list[str], int]:
    """The files of a known language to map (those under the workspace first, then the
    shallowest), and how many were left out by ``max_files``."""
    known = [f for f in listing.files if language_of(f) is not None]
    if len(known) <= max_files:
        return sorted(known), 0
    try:
        here = os.path.relpath(os.path.realpath(workspace), listing.root)
    except ValueError:
        here = "."
    prefix = "" if here in (".", "") or here.startswith("..") else here + "/"
    known.sort(key=lambda f: (not f.startswith(prefix), f.count("/"), f))
    return sorted(known[:max_files]), len(known) - max_files


def build_map(workspace: Path, *, tokens: int | None, mentioned_texts: Iterable[str] = (),
              max_files: int = 1000, max_file_bytes: int = 256 * 1024,
              header: bool = True, path: str | None = None,
              seconds: float | None = None) -> Built:
    """The map of ``workspace``'s project within ``tokens`` (None: whole), the files that
    ``mentioned_texts`` name weighted up; ``path`` keeps the files under that path only.

    ``seconds``: how long parsing may take (None: no limit). Files not parsed by then (the
    mentioned ones are parsed first) are left out of this map, which is then not cached:
    the next build starts from the files parsed so far."""
    texts = list(mentioned_texts)
    deadline = None if seconds is None else time.monotonic() + seconds
    with _LOCK:
        try:
            return _build(workspace, tokens, texts, max_files, max_file_bytes, header, path,
                          deadline)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            # a cache file of the right version but the wrong shape (edited, or another
            # program's): build without reading it (and write it anew)
            return _build(workspace, tokens, texts, max_files, max_file_bytes, header, path,
                          deadline, fresh=True)


def _build(workspace: Path, tokens: int | None, texts: list[str], max_files: int,
           max_file_bytes: int, header: bool, path: str | None, deadline: float | None,
           fresh: bool = False) -> Built:
    listing = list_files(workspace)
    root = listing.root
    files, left_out = _choose(listing, workspace, max_files)
    checked: dict[str, bool] = {}
    stats: dict[str, tuple[int, int]] = {}
    for rel in files:
        info = file_stat(root, rel)
        if info is None or info.st_size > max_file_bytes or not inside(root, rel, checked):
            continue
        stats[rel] = (info.st_mtime_ns, info.st_size)
    files = list(stats)
    if not files:  # nothing to map: no cache to read or write
        return Built("", root, 0, 0, 0, left_out, "built")
    mentioned = mentioned_files(texts, files)
    folder = cache_folder()
    ident = _project_id(root)
    key = hashlib.sha256(json.dumps(
        [MAP_VERSION, sorted(stats.items()), mentioned, tokens, header, path, left_out,
         listing.truncated], separators=(",", ":")).encode()).hexdigest()
    maps_path = folder / f"{ident}.maps.json"
    maps = {} if fresh else _load(maps_path)
    hit = (maps.get("maps") or {}).get(key)
    if isinstance(hit, list) and len(hit) == 4:
        return Built(hit[0], root, len(files), hit[1], hit[2], left_out, "cached")
    tags_path = folder / f"{ident}.tags.json"
    store = {} if fresh else _load(tags_path)
    known_files: dict[str, list[Any]] = store.get("files") or {}
    known_tags: dict[str, list[Any]] = store.get("tags") or {}
    new_files: dict[str, list[Any]] = {}
    used_tags: dict[str, list[Any]] = {}
    parsed = pending = 0
    first = set(mentioned)
    for rel in [*mentioned, *(f for f in files if f not in first)]:
        mtime, size = stats[rel]
        entry = known_files.get(rel)
        digest = None
        if entry and entry[0] == mtime and entry[1] == size and entry[2] in known_tags:
            digest = entry[2]
        else:
            source = read_source(root, rel, max_file_bytes)
            if source is None:
                continue
            language = language_of(rel) or ""
            digest = hashlib.sha1(f"{QUERY_VERSION}\0{language}\0".encode()
                                  + source.data).hexdigest()
            if digest not in known_tags:
                if deadline is not None and time.monotonic() > deadline:
                    pending += 1
                    continue
                from chatcli_repomap.tags import extract

                found = extract(source.data, language)
                parsed += 1
                known_tags[digest] = [found.defs, found.refs] if found else [[], {}]
            mtime, size = source.mtime_ns, source.size
        new_files[rel] = [mtime, size, digest]
        used_tags[digest] = known_tags[digest]
    text, shown_files, shown_defs = _rank_and_render(
        root, new_files, used_tags, mentioned, texts, tokens, header, path, left_out,
        listing.truncated, pending)
    if new_files != known_files or len(used_tags) != len(known_tags):
        _save(tags_path, {"v": MAP_VERSION, "root": str(root), "files": new_files,
                          "tags": used_tags})
    if not pending:  # (an incomplete map is not kept: the next build goes on parsing)
        kept = dict(list((maps.get("maps") or {}).items())[-(KEPT_MAPS - 1):])
        kept[key] = [text, shown_files, shown_defs, len(files)]
        _save(maps_path, {"v": MAP_VERSION, "maps": kept})
    return Built(text, root, len(files), shown_files, shown_defs, left_out, "built", parsed,
                 pending)


def _rank_and_render(root: Path, files: dict[str, list[Any]], tags: dict[str, list[Any]],
                     mentioned: list[str], texts: list[str], tokens: int | None,
                     header: bool, path: str | None, left_out: int, truncated: bool,
                     pending: int = 0) -> tuple[str, int, int]:
    from chatcli_repomap.rank import rank_definitions
    from chatcli_repomap.render import CHARS_PER_TOKEN, render

    defines: dict[str, list[str]] = {}
    uses: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], list[tuple[int, str]]] = {}
    outlines: dict[str, list[tuple[int, int, str, str]]] = {}
    for rel, (_m, _s, digest) in files.items():
        defs, refs = tags[digest]
        for name, kind, row, text, end in defs:
            defines.setdefault(name, []).append(rel)
            lines.setdefault((rel, name), []).append((row, text))
            outlines.setdefault(rel, []).append((row, end, kind, text))
        if refs:
            uses[rel] = refs
    said = set(_WORD_NAMES.findall("\n".join(texts))) if texts else set()
    scores, file_ranks = rank_definitions(
        defines, uses, files=list(files), mentioned_files=mentioned,
        mentioned_names=[n for n in said if n in defines])
    boost = set(mentioned)
    # a file the conversation names comes first: the model is about to work on it
    top = max(scores.values(), default=0.0) + max(file_ranks.values(), default=0.0)
    ranked = []
    for (rel, name), places in lines.items():
        score = scores.get((rel, name), 0.0) + file_ranks.get(rel, 0.0) * 1e-6
        if rel in boost:
            score += top
        for row, text in places:
            ranked.append((score, rel, name, row, text))
    ranked.sort(key=lambda item: (-item[0], item[1], item[3]))
    chosen = [(rel, name, row, text) for _s, rel, name, row, text in ranked
              if path is None or _under(rel, path)]
    budget = None if tokens is None else tokens * CHARS_PER_TOKEN
    head = _header(root, len(files) + pending, left_out, truncated, whole=tokens is None,
                   path=path, pending=pending)
    if budget is not None and header:
        budget = max(0, budget - len(head) - 1)
    body, shown_files, shown_defs = render(chosen, budget, outlines)
    if not header:
        return body, shown_files, shown_defs
    if not body:
        body = ("(no definitions found)" if path is None
                else f"(no definitions under {path!r})")
    return f"{head}\n{body}", shown_files, shown_defs


_WORD_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _under(rel: str, path: str) -> bool:
    wanted = path.strip().strip("/").removeprefix("./")
    return not wanted or rel == wanted or rel.startswith(wanted + "/")


def _header(root: Path, files: int, left_out: int, truncated: bool, *, whole: bool,
            path: str | None, pending: int = 0) -> str:
    what = "every definition" if whole else "the most referenced definitions"
    where = f" under {path!r}" if path else ""
    line = (f"Repository map{where}: {what} of the project's {files} source files, ranked "
            "(paths relative to the project root; the number is the line).")
    if left_out or truncated:
        line += (f" {left_out} more source files were not mapped ([repomap] max_files)."
                 if left_out else " The folder is too big to list whole without git.")
    if pending:
        line += (f" {pending} files are not parsed yet (the map's time budget); a later map "
                 "will have them.")
    return line
