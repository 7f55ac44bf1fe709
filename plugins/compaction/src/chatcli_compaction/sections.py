"""The structured summary: its six sections, read from what the model wrote and written back in
one normal form (every section present, in order, ``- none`` when empty). Paths in the file
sections that the summarised messages never mention are left out: a summary must not invent
files. The parser takes any text and never raises."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["FILE_SECTIONS", "SECTIONS", "Summary", "drop_invented_files", "parse_summary",
           "paths_in"]

SECTIONS = ("Files read", "Files modified", "Commands run", "Key decisions", "Errors and fixes",
            "Current task state")
#: The sections whose lines name files (checked against the summarised messages).
FILE_SECTIONS = ("Files read", "Files modified")

_KEYS = {name.lower(): name for name in SECTIONS}
_HEADING_JUNK = "#*_:`> \t"
#: A path-looking word: something/with/slashes, or name.ext
_PATH = re.compile(r"[\w.~-]*[/\\][\w./\\~-]+|[\w~-][\w.~-]*\.[A-Za-z0-9]{1,8}\b")


@dataclass
class Summary:
    """A summary as sections of lines (``preamble``: what came before the first heading)."""

    sections: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SECTIONS})
    preamble: list[str] = field(default_factory=list)
    #: lines left out because they named files the messages never mention
    dropped: int = 0

    def render(self) -> str:
        """The summary in normal form."""
        out: list[str] = []
        if self.preamble:
            out.extend([*self.preamble, ""])
        for name in SECTIONS:
            lines = self.sections.get(name) or ["- none"]
            out.extend([f"## {name}", *lines, ""])
        if self.dropped:
            noun = "line" if self.dropped == 1 else "lines"
            # (the summary is the model's: English)
            out.append(f"({self.dropped} {noun} naming files the messages never "  # untranslated
                       "mention left out)")
        return "\n".join(out).strip("\n")

    def empty(self) -> bool:
        """Whether the model wrote nothing usable."""
        return not self.preamble and not any(self.sections.values())


def _heading(line: str) -> str | None:
    """The section a line opens (``## Files read``, ``**Files read:**``, ``Files read:``), or
    None for any other line."""
    stripped = line.strip()
    if not stripped or len(stripped) > 60:
        return None
    name = stripped.strip(_HEADING_JUNK).lower()
    found = _KEYS.get(name)
    if found is None:
        return None
    marked = stripped[0] in "#*_" or stripped.rstrip("*_ ").endswith(":")
    return found if marked or name == stripped.lower() else None


def parse_summary(text: str) -> Summary:
    """Read the model's summary into sections; lines under no known heading before the first one
    are the preamble; ``- none`` lines and blank lines are dropped."""
    summary = Summary()
    current: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        name = _heading(line)
        if name is not None:
            current = name
            continue
        if not line.strip():
            continue
        if line.strip().lstrip("-*• ").strip().lower().rstrip(".") in ("none", "n/a", "nothing"):
            continue
        if current is None:
            summary.preamble.append(line)
        else:
            summary.sections[current].append(line)
    return summary


def paths_in(line: str) -> list[str]:
    """The path-looking words of ``line`` (``src/app.py``, ``README.md``), without the quotes,
    backticks and punctuation around them."""
    found = []
    for match in _PATH.finditer(line):
        word = match.group(0).strip(".,;:!?'\"`()[]{}")
        if word and not word.startswith(("http:", "https:")) and any(c.isalpha() for c in word):
            found.append(word)
    return found


def drop_invented_files(summary: Summary, source: str) -> Summary:
    """Leave out lines of the file sections naming only paths that ``source`` (the summarised
    messages) never mentions — by full path or by file name."""
    for name in FILE_SECTIONS:
        kept = []
        for line in summary.sections[name]:
            paths = paths_in(line)
            if paths and not any(_mentioned(p, source) for p in paths):
                summary.dropped += 1
                continue
            kept.append(line)
        summary.sections[name] = kept
    return summary


def _mentioned(path: str, source: str) -> bool:
    if path in source:
        return True
    base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return bool(base) and base in source
