"""The plain-text tables of the administration commands (``models``, ``keys list``,
``plugins list``, ``trust --list``)."""

from __future__ import annotations

__all__ = ["format_table"]


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """Rows as aligned plain-text columns (readable on a terminal, easy to ``grep``/``awk``)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    lines = []
    for row in [headers, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
