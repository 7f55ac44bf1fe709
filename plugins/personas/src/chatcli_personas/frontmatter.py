"""Markdown files with YAML frontmatter: the fields and the body, read leniently.

Real files are sloppy (an unquoted colon in a description, tabs, a missing closing ``---``), so a
frontmatter that YAML refuses is read again as plain ``key: value`` lines (with ``- item`` lists)
and the problem is reported, instead of losing the file. The reading is chatcli-frontmatter's
(imported on first use); this module keeps the personas' conventions (keys lower-cased, ``_``
read as ``-``, the body stripped) and turns fields into text and lists.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from typing import Any

from chatcli import language, translation

__all__ = ["Document", "as_list", "as_text", "parse"]

_, ngettext = translation(__name__)


class Document:
    """A parsed file: ``fields`` (keys lower-cased, ``_`` read as ``-``), ``body`` (the markdown
    after the frontmatter) and ``problems`` (one line each, for warnings)."""

    def __init__(self, fields: dict[str, Any], body: str, problems: list[str]) -> None:
        self.fields = fields
        self.body = body
        self.problems = problems

    def get(self, *keys: str) -> Any:
        """The first of ``keys`` present in the frontmatter (``color``, ``colour``), else None."""
        for key in keys:
            if key in self.fields:
                return self.fields[key]
        return None


#: What parsing read from each persona text (``docs``, by a digest of the text) and which colour
#: each colour text names (``colours``), kept in chatcli's cache folder so that a run whose
#: persona files did not change imports neither a YAML reader nor rich's colour tables: the
#: personas are read at every start that offers the ``delegate`` tool or answers an ``@name``.
_CACHE_NAME = "personas-parsed.json"
_CACHE_MOST = 1000
_cache: dict[str, dict[str, Any]] | None = None
_cache_lock = threading.Lock()


def parse(text: str) -> Document:
    """Split ``text`` into frontmatter fields and body; never raises. A text parsed before (in
    this process or an earlier one) is answered from the cache."""
    import hashlib

    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    entry = remembered("docs", key, lambda: _as_entry(_parse(text)))
    return Document(*entry)


def _as_entry(document: Document) -> list[Any]:
    return [document.fields, document.body, document.problems]


def remembered(section: str, key: str, compute: Callable[[], Any]) -> Any:
    """``compute()``'s value for ``key`` in the cache's ``section``: the cached one when there
    is one, else computed — and kept when JSON gives it back as it is (YAML can read dates,
    sets…). The problems a value holds are in the user's language: another language's entries
    are kept apart."""
    lang = language()
    if lang != "en":
        key = f"{key}@{lang}"
    with _cache_lock:
        table = _load_cache().setdefault(section, {})
        if key in table:
            return table[key]
    value = compute()
    try:
        same = json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        same = False
    if same:
        with _cache_lock:
            table[key] = value
            while len(table) > _CACHE_MOST:
                del table[next(iter(table))]
            _save_cache(_load_cache())
    return value


def _cache_path() -> str:
    from chatcli import cache_dir

    return os.path.join(cache_dir(), _CACHE_NAME)


def _load_cache() -> dict[str, dict[str, Any]]:
    global _cache
    if _cache is None:
        try:
            with open(_cache_path(), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            data = None
        docs = data.get("docs") if isinstance(data, dict) else None
        colours = data.get("colours") if isinstance(data, dict) else None
        _cache = {
            "docs": {k: v for k, v in (docs if isinstance(docs, dict) else {}).items()
                     if isinstance(v, list) and len(v) == 3 and isinstance(v[0], dict)
                     and isinstance(v[1], str) and isinstance(v[2], list)},
            "colours": {k: v for k, v in (colours if isinstance(colours, dict) else {}).items()
                        if isinstance(v, list) and len(v) == 2
                        and (v[0] is None or isinstance(v[0], str))},
        }
    return _cache


def _save_cache(cache: dict[str, dict[str, Any]]) -> None:
    from pathlib import Path

    from chatcli import atomic_write

    with contextlib.suppress(OSError):  # a read-only cache folder: parsed again next time
        atomic_write(Path(_cache_path()), json.dumps(cache, ensure_ascii=False), mode=0o600)


def _parse(text: str) -> Document:
    from chatcli_frontmatter import FrontmatterError, read, read_lines

    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    try:
        doc = read(text)
    except FrontmatterError as err:
        if err.kind in ("missing", "unclosed"):
            return Document({}, text.strip(), [] if err.kind == "missing" else [
                _("the frontmatter has no closing '---' line; the whole file was read as the "
                  "body")])
        if err.kind == "empty":
            return Document({}, err.body.strip(), [])
        if err.kind == "not-mapping":
            return Document({}, err.body.strip(), [
                _("the frontmatter is a YAML {type}, not a mapping of keys; it was ignored")
                .format(type=type(err.value).__name__)])
        problem = err.problem or _("invalid syntax")
        return Document(_normalise(read_lines(err.front or "")), err.body.strip(), [
            _("the frontmatter is not valid YAML (line {line}): {problem}; it was read as plain "
              "'key: value' lines (quote values that hold ': ')").format(
                  line=err.line, problem=problem) if err.line is not None else
            _("the frontmatter is not valid YAML: {problem}; it was read as plain 'key: value' "
              "lines (quote values that hold ': ')").format(problem=problem)])
    return Document(_normalise(doc.fields), doc.body.strip(), [])


def _normalise(data: dict[Any, Any]) -> dict[str, Any]:
    return {str(key).strip().lower().replace("_", "-"): value for key, value in data.items()}


def as_text(value: Any) -> str:
    """A field as one line of text ('' for None; lists joined with ', ')."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(as_text(item) for item in value if item is not None)
    return " ".join(str(value).split())


def as_list(value: Any) -> list[str]:
    """A field as a list of strings: a YAML list, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list | tuple | set):
        return [as_text(item) for item in value if as_text(item)]
    return [as_text(value)] if as_text(value) else []
