"""A tiny terminal emulator for the escape sequences rich's Live uses (tests only)."""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC (hyperlinks)
    r"|\x1b\[([0-9;?]*)([A-Za-z])"  # CSI
    r"|(\r|\n)"
    r"|([^\x1b\r\n]+)"
)


def screen_text(raw: str) -> str:
    """The text a terminal would show after ``raw`` (colours dropped, trailing spaces cut)."""
    lines: list[list[str]] = [[]]
    row = col = 0
    for match in _TOKEN.finditer(raw):
        params, command, control, text = match.groups()
        if command:
            if command == "A":
                row = max(0, row - int(params or 1))
            elif command == "K":
                lines[row] = [] if params in ("2", "") and params == "2" else lines[row][:col]
            elif command == "G":
                col = int(params or 1) - 1
        elif control == "\r":
            col = 0
        elif control == "\n":
            row += 1
            col = 0
            while len(lines) <= row:
                lines.append([])
        elif text:
            line = lines[row]
            line.extend(" " * (col - len(line)))
            line[col : col + len(text)] = list(text)
            col += len(text)
    out = ["".join(line).rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)
