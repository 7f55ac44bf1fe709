"""Which files the map parses, and with which grammar (extension → language).

Nothing heavy here: the grammars load in :mod:`chatcli_repomap.tags`, on the first file that
needs one.
"""

from __future__ import annotations

__all__ = ["LANGUAGES", "language_of"]

#: file extension → language key
LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".rb": "ruby",
}


def language_of(path: str) -> str | None:
    """The language key of ``path`` by its extension, or None (not mapped)."""
    dot = path.rfind(".")
    if dot <= path.rfind("/") + 1:  # no dot, or a hidden file with none (".py")
        return None
    return LANGUAGES.get(path[dot:].lower())
