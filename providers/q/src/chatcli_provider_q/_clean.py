"""What ``q chat`` prints, turned into the answer's text: a small terminal parser.

The Amazon Q CLI writes for a person at a terminal: colours and cursor movements (CSI), window
titles and links (OSC), braille spinner frames redrawn with carriage returns or "erase line",
a braille-art logo, a "Did you know?" box, shortcut hints, "Thinking..." and tool-use lines.
:class:`Cleaner` reads that output a character at a time and gives back only the text a reader
would keep:

- every escape sequence is removed: 7-bit (``ESC [`` CSI, ``ESC ]`` OSC, ``ESC P/X/^/_``
  strings up to BEL or ST, ``ESC`` + intermediates + final) and 8-bit C1 forms; a sequence split
  across two reads is held until its end, so none of it leaks;
- a carriage return, "erase line" (``CSI K``/``CSI 2K``) or "cursor to column 1" (``CSI G``)
  throws away what the line held and not yet shown: a spinner frame is replaced by the next;
- other control characters and braille cells (U+2800–U+28FF, spinner frames and the logo) go;
- lines that are the CLI's own furniture go whole (banners, hints, tips, box lines, separators,
  the ``> `` prompt, tool-use lines: :data:`NOISE_PREFIXES`), and so does a tool use from its
  ``🛠️  Using tool:`` line to its `` ● Completed in…`` line (or the answer's next ``> ``);
- blank lines at the start and end go, and runs of blank lines become one.

A line is shown as soon as its beginning rules out every kind of furniture, so an answer still
streams while it is cleaned; a line that could still turn out to be furniture (it starts like
the prompt or a hint) is held until it can be judged, at the latest until it ends.

The result of :func:`clean` is a fixed point (``clean(clean(x)) == clean(x)``) and does not
depend on how the input was split into reads.
"""

from __future__ import annotations

import re
from enum import Enum

__all__ = ["NOISE_PREFIXES", "Cleaner", "clean", "is_prompt", "prompt_match"]

#: Beginnings of lines the CLI prints for the person, never part of an answer (compared with the
#: line's text after leading whitespace; see the Q CLI's greeting, tips and chat loop).
NOISE_PREFIXES: tuple[str, ...] = (
    "Thinking...",
    "Thinking…",
    "/help all commands",
    "Use /help for more information",
    "ctrl + j new lines",
    "ctrl + s fuzzy search",
    "Did you know?",
    "💡 ",
    "🤖 You are chatting with",
    "To learn more about MCP safety",
    "Picking up where we left off",
    "All tools are now trusted",
    "Agents can sometimes do unexpected things",
    "📷 Checkpoints are enabled",
    "🛠️  Using tool:",
    "🛠️ Using tool:",
    "Allow this action?",
    "Creating summary...",
    "Dividing up the work...",
    "▸ Credits:",
    "▸ Time:",
    "WARNING: --profile is deprecated",
    "⚠️ This conversation is getting lengthy",
    "To ensure continued smooth operation, please use /compact",
    "(To exit the CLI, press Ctrl+C",
    "[BACKGROUND TASK READY]",
)

#: A tool use: q prints ``🛠️  Using tool: NAME``, the tool's description and output, and ends
#: with `` ● Completed in 0.1s`` (or `` ● Execution failed after…``); all of it goes.
_TOOL_OPENER = "🛠️"
_TOOL_CLOSERS = (" ● Completed in", " ● Execution failed")

#: Beginnings compared with the raw line (Q's tool-use bullets start with a space).
_RAW_NOISE_PREFIXES: tuple[str, ...] = (" ● ", " ⋮ ", " ↳ ", " ✓ ", " ❗ ")

#: Whole lines about MCP servers loading (``✓ 2 of 2 mcp servers initialized.``).
_MCP_LINE = re.compile(
    r"[✓✗⚠!]?\s*(\d+ of \d+ mcp servers? initialized|\S+ (has )?(loaded|failed to load)\b)",
    re.IGNORECASE)
_MCP_FIRST = "✓✗⚠"

#: Box-drawing (U+2500–U+257F) and block elements (U+2580–U+259F).
_BOX_FIRST, _BOX_LAST = 0x2500, 0x259F
_CORNERS = "╭╮╰╯┌┐└┘"
_SIDES = "│┃║"


def _is_box(char: str) -> bool:
    return _BOX_FIRST <= ord(char) <= _BOX_LAST


def prompt_match(text: str) -> str | None:
    """How ``text`` relates to Q's input prompt ``[agent] 6% λ ↯ !> ``.

    ``"full"``: it is a whole prompt (trailing spaces allowed); ``"partial"``: it could still
    become one; None: it cannot.
    """
    i, n = 0, len(text)
    if i < n and text[i] == "[":
        end = text.find("]", i)
        if end < 0:
            return "partial"
        i = end + 1
        if i == n:
            return "partial"
        if text[i] != " ":
            return None
        i += 1
    if i < n and text[i].isdigit():
        while i < n and text[i].isdigit():
            i += 1
        if i == n:
            return "partial"
        if text[i] != "%":
            return None
        i += 1
        if i == n:
            return "partial"
        if text[i] != " ":
            return None
        i += 1
    for symbol in ("λ", "↯"):
        if i < n and text[i] == symbol:
            i += 1
            if i == n:
                return "partial"
            if text[i] != " ":
                return None
            i += 1
    if i < n and text[i] == "!":
        i += 1
    if i == n:
        return "partial"
    if text[i] != ">":
        return None
    return "full" if not text[i + 1:].strip(" ") else None


def is_prompt(text: str) -> bool:
    """Whether ``text`` (one line, escape sequences removed) is Q's input prompt."""
    return prompt_match(text.strip(" ")) == "full" if text.strip(" ") else False


class _Verdict(Enum):
    TEXT = "text"
    NOISE = "noise"
    UNDECIDED = "undecided"


def _judge(line: str, complete: bool) -> _Verdict:
    """Whether ``line`` (what the line holds so far) is answer text or the CLI's furniture;
    UNDECIDED when more characters could change the answer (never when ``complete``)."""
    for prefix in _RAW_NOISE_PREFIXES:
        if line.startswith(prefix):
            return _Verdict.NOISE
    text = line.lstrip()
    undecided = not complete and (not text or any(p.startswith(line)
                                                  for p in _RAW_NOISE_PREFIXES))
    if not text:
        return _Verdict.UNDECIDED if undecided else _Verdict.NOISE
    match = prompt_match(text.rstrip(" ") if complete else text)
    if match == "full" and complete:
        return _Verdict.NOISE
    if match is not None and not complete:
        undecided = True
    for prefix in NOISE_PREFIXES:
        if text.startswith(prefix):
            return _Verdict.NOISE
        if not complete and prefix.startswith(text):
            undecided = True
    if all(_is_box(c) or c.isspace() for c in text):
        return _Verdict.NOISE if complete else _Verdict.UNDECIDED
    if text[0] in _CORNERS:
        return _Verdict.NOISE
    if text[0] in _SIDES:
        if not complete:
            return _Verdict.UNDECIDED
        return _Verdict.NOISE if text.rstrip()[-1] in _SIDES else _Verdict.TEXT
    if text[0] in _MCP_FIRST or text[0].isdigit():
        if not complete and (text[0] in _MCP_FIRST or prompt_match(text) is not None
                             or _could_be_mcp(text)):
            return _Verdict.UNDECIDED
        if complete and _MCP_LINE.fullmatch(text.rstrip(" .")):
            return _Verdict.NOISE
    return _Verdict.UNDECIDED if undecided else _Verdict.TEXT


def _could_be_mcp(text: str) -> bool:
    """``N of M mcp servers…`` lines start with digits: hold such a line while it could be one."""
    probe = "0 of 0 mcp servers initialized"
    body = re.sub(r"^\d+", "0", text)
    body = re.sub(r"^0 of \d+", "0 of 0", body)
    return probe.startswith(body) or body.lower().startswith(probe)


#: Characters after which a line still undecided is taken as text (furniture is shorter).
_LONGEST_FURNITURE = 400

# States of the escape-sequence parser.
_NORMAL, _ESC, _ESC_INTER, _CSI, _STRING, _STRING_ESC = range(6)


class Cleaner:
    """Incremental cleaner: :meth:`feed` text as it is read, :meth:`finish` at the end.

    ``strip_reply_marker``: the CLI starts an answer with ``> `` (in green); with this set, that
    marker is removed from the first line of text, and again from the first line after
    :meth:`expect_reply` (q starts each part of an answer that follows a tool use with it).
    """

    def __init__(self, *, strip_reply_marker: bool = False) -> None:
        self._state = _NORMAL
        self._csi = ""
        self._held = ""  # the current line's characters not yet judged or shown
        self._verdict = _Verdict.UNDECIDED
        self._shown_in_line = False  # part of the current line was shown already
        self._started = False  # some text was shown
        self._breaks = 0  # line breaks owed before the next shown text
        self._out: list[str] = []
        self._strip_marker = strip_reply_marker
        self._marker_armed = strip_reply_marker  # the next line may start with the marker
        self._in_tool = False  # between a tool use's first and last line

    # ------------------------------------------------------------------ public

    def feed(self, data: str) -> str:
        """Clean the next piece of output; returns the text that can be shown now."""
        for char in data:
            self._char(char)
        out, self._out = "".join(self._out), []
        return out

    def finish(self) -> str:
        """The end of the output: judge the last line; returns what is left to show."""
        self._state = _NORMAL
        self._end_line()
        self._breaks = 0
        out, self._out = "".join(self._out), []
        return out

    def expect_reply(self) -> None:
        """The CLI did something else in between (a tool ran, on stderr): the next line that
        starts with ``> `` starts a new part of the answer (with ``strip_reply_marker``)."""
        if self._strip_marker and self._started:
            self._marker_armed = True

    @property
    def started(self) -> bool:
        """Whether any text was shown."""
        return self._started

    def pending(self) -> str:
        """The current line as held so far when none of it was shown (else ``""``): where the
        prompt appears when the CLI waits for input."""
        return "" if self._shown_in_line else self._held

    # ------------------------------------------------------------------ parser

    def _char(self, c: str) -> None:
        state = self._state
        if state == _NORMAL:
            self._normal(c)
        elif state == _ESC:
            self._escape(c)
        elif state == _ESC_INTER:
            if "\x20" <= c <= "\x2f":
                return
            self._state = _NORMAL
            if not "\x30" <= c <= "\x7e":
                self._normal(c)
        elif state == _CSI:
            if "\x30" <= c <= "\x3f" or "\x20" <= c <= "\x2f":
                self._csi += c
                return
            self._state = _NORMAL
            if "\x40" <= c <= "\x7e":
                self._control_sequence(self._csi, c)
            else:  # not a sequence after all: drop what was read, keep this character
                self._normal(c)
        elif state == _STRING:
            if c == "\x07" or c == "\x9c":
                self._state = _NORMAL
            elif c == "\x1b":
                self._state = _STRING_ESC
            elif c == "\n":  # a string never spans lines here: do not swallow the answer
                self._state = _NORMAL
                self._normal(c)
        else:  # _STRING_ESC
            self._state = _NORMAL
            if c != "\\":
                self._escape(c)

    def _escape(self, c: str) -> None:
        """The character after ESC."""
        if c == "[":
            self._state, self._csi = _CSI, ""
        elif c in "]PX^_":
            self._state = _STRING
        elif "\x20" <= c <= "\x2f":
            self._state = _ESC_INTER
        elif c == "\x1b":
            self._state = _ESC
        elif "\x30" <= c <= "\x7e":
            self._state = _NORMAL
        else:
            self._state = _NORMAL
            self._normal(c)

    def _normal(self, c: str) -> None:
        if c == "\n":
            self._end_line()
        elif c == "\r":
            self._reset_line()
        elif c == "\x1b":
            self._state = _ESC
        elif c == "\x9b":
            self._state, self._csi = _CSI, ""
        elif c in "\x90\x98\x9d\x9e\x9f":
            self._state = _STRING
        elif c == "\b":
            if self._held and self._verdict != _Verdict.TEXT:
                self._held = self._held[:-1]
        elif c == "\t":
            self._add(c)
        elif c < "\x20" or "\x7f" <= c <= "\x9f" or "\u2800" <= c <= "\u28ff":
            return
        else:
            self._add(c)

    def _control_sequence(self, params: str, final: str) -> None:
        """A complete CSI sequence: only line erasure and column 1 matter here."""
        erase = final == "K" and params in ("2", "1")
        if erase or (final == "G" and params in ("", "0", "1")) or final == "J":
            self._reset_line()

    # ------------------------------------------------------------------ lines

    def _add(self, c: str) -> None:
        if self._in_tool:  # a tool at work: held to its end, unless the answer goes on
            self._held += c
            if self._marker_armed and self._held.lstrip(" ").startswith("> "):
                self._in_tool = False
                self._decide(complete=False)
            return
        verdict = self._verdict
        if verdict == _Verdict.NOISE:
            return
        if verdict == _Verdict.TEXT:
            self._show(c)
            return
        self._held += c
        self._decide(complete=False)

    def _decide(self, complete: bool) -> None:
        if not complete and len(self._held) > _LONGEST_FURNITURE:
            verdict = _Verdict.TEXT  # the CLI's furniture is never this long
        else:
            verdict = _judge(self._held, complete)
        if verdict == _Verdict.TEXT:
            self._verdict = verdict
            held, self._held = self._held, ""
            if self._marker_armed and not self._shown_in_line:
                stripped = held.lstrip(" ")
                if stripped.startswith("> "):
                    held = stripped[2:]
                elif stripped == ">" and complete:
                    held = ""
            self._show(held)
            if self._shown_in_line:
                self._marker_armed = False
        elif verdict == _Verdict.NOISE:
            self._verdict = verdict
            if self._held.lstrip().startswith(_TOOL_OPENER):
                self._in_tool = True
            self._held = ""

    def _show(self, text: str) -> None:
        if not text:
            return
        if not self._shown_in_line:
            if not text.strip():  # blank so far: wait for something visible
                self._held += text
                self._verdict = _Verdict.UNDECIDED
                return
            if self._started:
                self._out.append("\n" * min(self._breaks, 2))
            self._breaks = 0
            self._started = True
            self._shown_in_line = True
        self._out.append(text)

    def _reset_line(self) -> None:
        """Carriage return or line erasure: what the line held unseen is overwritten."""
        self._held = ""
        if self._verdict == _Verdict.NOISE or not self._shown_in_line:
            self._verdict = _Verdict.UNDECIDED
        elif self._verdict == _Verdict.TEXT:
            self._verdict = _Verdict.UNDECIDED  # what follows is judged afresh

    def _end_line(self) -> None:
        if self._in_tool and self._verdict != _Verdict.NOISE:  # a line of the tool's
            if self._held.startswith(_TOOL_CLOSERS):
                self._in_tool = False
            self._held = ""
            self._verdict = _Verdict.UNDECIDED
            self._shown_in_line = False
            return
        if self._verdict == _Verdict.NOISE and self._in_tool:  # the "Using tool" line itself
            self._held = ""
            self._verdict = _Verdict.UNDECIDED
            self._shown_in_line = False
            return
        if not self._shown_in_line and self._verdict != _Verdict.NOISE \
                and not self._held.strip():
            self._held = ""  # a blank line (spaces only count as blank)
            self._verdict = _Verdict.UNDECIDED
        if self._verdict == _Verdict.UNDECIDED and self._held:
            if self._shown_in_line:  # the rest of a shown line (after a carriage return)
                verdict = _judge(self._held, complete=True)
                if verdict == _Verdict.TEXT:
                    self._out.append(self._held)
            else:
                self._decide(complete=True)
        if self._shown_in_line:
            self._breaks = 1
        elif self._started and self._verdict != _Verdict.NOISE:
            self._breaks += 1
        self._held = ""
        self._verdict = _Verdict.UNDECIDED
        self._shown_in_line = False


def clean(text: str, *, strip_reply_marker: bool = False) -> str:
    """``text`` cleaned in one go (see :class:`Cleaner`)."""
    cleaner = Cleaner(strip_reply_marker=strip_reply_marker)
    return cleaner.feed(text) + cleaner.finish()
