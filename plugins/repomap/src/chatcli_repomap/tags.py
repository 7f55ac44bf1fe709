"""Definitions and references of one source file, from tree-sitter.

Each grammar package of the tree-sitter organisation ships a ``tags.scm`` query naming
definitions (``@definition.function`` … with ``@name``) and some references
(``@reference.call``…). The references they name are few (Python's: calls only), so every
identifier-like node of the file counts as a reference instead: an edge in the map's graph needs a
name used in one file and defined in another, and aider's experience is that such plain uses
rank well. TypeScript's query adds to JavaScript's (its grammar extends it), as the grammar's
own documentation says.

py-tree-sitter ≥ 0.23 API: ``Query(language, source)`` compiles, ``QueryCursor(query)``
runs it (``matches(node)`` → ``[(pattern, {capture: [nodes]})]``, ``captures(node)`` →
``{capture: [nodes]}``).
"""

from __future__ import annotations

import threading
from typing import Any

from chatcli_records_lite import NamedTuple

__all__ = ["QUERY_VERSION", "FileTags", "extract"]

#: changes whenever what :func:`extract` returns for the same bytes changes (the cache key)
QUERY_VERSION = "2"
#: definitions kept per file, at most
MAX_DEFS = 400
#: characters of a definition's first line kept
LINE = 120

#: per language: the node types whose text is a name in use
IDENTIFIERS: dict[str, tuple[str, ...]] = {
    "python": ("identifier",),
    "javascript": ("identifier", "property_identifier"),
    "typescript": ("identifier", "property_identifier", "type_identifier"),
    "tsx": ("identifier", "property_identifier", "type_identifier"),
    "go": ("identifier", "type_identifier", "field_identifier"),
    "rust": ("identifier", "type_identifier", "field_identifier"),
    "java": ("identifier", "type_identifier"),
    "c": ("identifier", "type_identifier", "field_identifier"),
    "cpp": ("identifier", "type_identifier", "field_identifier"),
    "ruby": ("identifier", "constant"),
}


class FileTags(NamedTuple):
    """What one file defines and uses."""

    #: (name, kind, 0-based line, the line's text, 0-based last line) per definition, in file
    #: order
    defs: list[tuple[str, str, int, str, int]]
    #: name → how many times the file uses it
    refs: dict[str, int]


class _Grammar(NamedTuple):
    parser: Any
    tags: Any
    names: Any


_GRAMMARS: dict[str, _Grammar | None] = {}
_LOCK = threading.Lock()


def _language(key: str) -> tuple[Any, str] | None:
    """The grammar's language object and its tags query source (each package imported here,
    when a file of its language is first parsed)."""
    if key == "python":
        import tree_sitter_python as python

        return python.language(), python.TAGS_QUERY
    if key == "javascript":
        import tree_sitter_javascript as javascript

        return javascript.language(), javascript.TAGS_QUERY
    if key in ("typescript", "tsx"):
        import tree_sitter_javascript as javascript
        import tree_sitter_typescript as typescript

        made = typescript.language_tsx() if key == "tsx" else typescript.language_typescript()
        return made, javascript.TAGS_QUERY + "\n" + typescript.TAGS_QUERY
    if key == "go":
        import tree_sitter_go as go

        return go.language(), go.TAGS_QUERY
    if key == "rust":
        import tree_sitter_rust as rust

        return rust.language(), rust.TAGS_QUERY
    if key == "java":
        import tree_sitter_java as java

        return java.language(), java.TAGS_QUERY
    if key == "c":
        import tree_sitter_c as c

        return c.language(), c.TAGS_QUERY
    if key == "cpp":
        import tree_sitter_cpp as cpp

        return cpp.language(), cpp.TAGS_QUERY
    if key == "ruby":
        import tree_sitter_ruby as ruby

        return ruby.language(), ruby.TAGS_QUERY
    return None


def _grammar(key: str) -> _Grammar | None:
    with _LOCK:
        if key in _GRAMMARS:
            return _GRAMMARS[key]
        grammar = None
        try:
            found = _language(key)
            if found is not None:
                from tree_sitter import Language, Parser, Query

                language = Language(found[0])
                names = _names_query(language, IDENTIFIERS.get(key, ("identifier",)))
                grammar = _Grammar(Parser(language), Query(language, found[1]), names)
        except Exception:  # a grammar that does not load maps nothing (the rest still does)
            grammar = None
        _GRAMMARS[key] = grammar
        return grammar


def _names_query(language: Any, types: tuple[str, ...]) -> Any:
    from tree_sitter import Query

    good = []
    for node_type in types:
        try:
            Query(language, f"({node_type}) @name")
        except Exception:  # a node type this grammar lacks
            continue
        good.append(f"({node_type}) @name")
    return Query(language, "\n".join(good)) if good else None


def extract(source: bytes, key: str) -> FileTags | None:
    """The definitions and references of ``source`` in language ``key`` (None: no grammar)."""
    grammar = _grammar(key)
    if grammar is None:
        return None
    from tree_sitter import QueryCursor

    tree = grammar.parser.parse(source)
    root = tree.root_node
    lines = source.split(b"\n")
    defs: list[tuple[str, str, int, str, int]] = []
    seen: set[tuple[str, int]] = set()
    refs: dict[str, int] = {}
    for _pattern, captures in QueryCursor(grammar.tags).matches(root):
        names = captures.get("name")
        if not names:
            continue
        name = _text(names[0])
        if not name:
            continue
        kind = next((c for c in captures if c.startswith(("definition.", "reference."))), "")
        if kind.startswith("definition."):
            row = names[0].start_point[0]
            if (name, row) in seen or len(defs) >= MAX_DEFS:
                continue
            seen.add((name, row))
            line = lines[row].decode("utf-8", "replace") if row < len(lines) else ""
            end = max(row, captures[kind][0].end_point[0])  # (the whole definition's node)
            defs.append((name, kind.removeprefix("definition."), row, line[:LINE * 2], end))
        elif kind.startswith("reference.") and grammar.names is None:
            refs[name] = refs.get(name, 0) + 1
    if grammar.names is not None:
        for node in QueryCursor(grammar.names).captures(root).get("name", []):
            name = _text(node)
            if name and (name, node.start_point[0]) not in seen:
                refs[name] = refs.get(name, 0) + 1
    defs.sort(key=lambda item: item[2])
    return FileTags(defs, refs)


def _text(node: Any) -> str:
    raw = node.text
    if not raw or len(raw) > 200:
        return ""
    return str(raw.decode("utf-8", "replace"))
