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

from collections.abc import Sequence

from chatcli_repomap.text import clean_line, shown_path

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "render"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """The tokens ``text`` is estimated to cost."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _line(row: int, text: str) -> str:
    return f"{row + 1:>5}│{clean_line(text, 100)}"


def render(ranked: Sequence[tuple[str, str, int, str]], budget_chars: int | None
           ) -> tuple[str, int, int]:
    """The map of ``ranked`` definitions — (file, name, 0-based line, line text), best first —
    within ``budget_chars`` (None: all of them), files in the order of their best definition.

    :return: (text, files shown, definitions shown).
    """
    chosen: dict[str, dict[int, str]] = {}
    used = misses = 0
    for file, _name, row, text in ranked:
        rows = chosen.get(file)
        cost = len(_line(row, text)) + 1
        if rows is None:
            cost += len(shown_path(file)) + 2
        elif row in rows:
            continue
        if budget_chars is not None and used + cost > budget_chars:
            misses += 1
            if misses > 50:
                break
            continue  # a smaller one further down may still fit
        used += cost
        chosen.setdefault(file, {})[row] = text
    files = list(chosen)  # (in the order of each file's best definition)
    blocks = []
    for file in files:
        rows = chosen[file]
        body = "\n".join(_line(row, rows[row]) for row in sorted(rows))
        blocks.append(f"{shown_path(file)}:\n{body}")
    return "\n".join(blocks), len(files), sum(len(r) for r in chosen.values())
