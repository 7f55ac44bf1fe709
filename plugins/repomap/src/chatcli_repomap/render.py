"""The map as text, cut to a budget.

```
src/app/models.py:
  12│class User(Base):
  40│    def save(self) -> None:
```

Files come best first; within a file, definitions in line order, each shown by its first
source line (its signature, most of the time) with its 1-based line number. The budget is in
tokens, estimated as characters / 4 (chatcli's own estimate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from chatcli_repomap.text import clean_line, shown_path

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "render"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """The tokens ``text`` is estimated to cost."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _line(row: int, text: str) -> str:
    return f"{row + 1:>5}│{clean_line(text, 100)}"


#: Definition kinds that hold others (a method's class): shown above what they hold.
CONTAINERS = frozenset({"class", "interface", "module", "type", "implementation"})


def _parents(row: int, outline: Sequence[tuple[int, int, str, str]]) -> list[tuple[int, str]]:
    """The containers (classes, interfaces, modules) whose lines hold the definition at
    ``row``, outermost first; ``outline`` is the file's definitions as (line, last line, kind,
    text)."""
    return sorted((start, text) for start, end, kind, text in outline
                  if kind in CONTAINERS and start < row <= end)


def render(ranked: Sequence[tuple[str, str, int, str]], budget_chars: int | None,
           outlines: Mapping[str, Sequence[tuple[int, int, str, str]]] | None = None
           ) -> tuple[str, int, int]:
    """The map of ``ranked`` definitions — (file, name, 0-based line, line text), best first —
    within ``budget_chars`` (None: all of them), files in the order of their best definition.
    With ``outlines`` (file → its definitions as (line, last line, kind, text)), a definition
    inside a class, interface or module comes with the lines of those that enclose it, so a
    method reads in place.

    :return: (text, files shown, definitions shown).
    """
    chosen: dict[str, dict[int, str]] = {}
    used = misses = 0
    for file, _name, row, text in ranked:
        rows = chosen.get(file)
        if rows is not None and row in rows:
            continue
        wanted = [(row, text)]
        if outlines is not None and file in outlines:
            wanted = [*(p for p in _parents(row, outlines[file])
                        if rows is None or p[0] not in rows), *wanted]
        cost = sum(len(_line(r, x)) + 1 for r, x in wanted)
        if rows is None:
            cost += len(shown_path(file)) + 2
        if budget_chars is not None and used + cost > budget_chars:
            misses += 1
            if misses > 50:
                break
            continue  # a smaller one further down may still fit
        used += cost
        chosen.setdefault(file, {}).update(wanted)
    files = list(chosen)  # (in the order of each file's best definition)
    blocks = []
    for file in files:
        rows = chosen[file]
        body = "\n".join(_line(row, rows[row]) for row in sorted(rows))
        blocks.append(f"{shown_path(file)}:\n{body}")
    return "\n".join(blocks), len(files), sum(len(r) for r in chosen.values())
