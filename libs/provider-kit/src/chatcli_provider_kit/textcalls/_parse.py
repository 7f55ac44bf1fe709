"""Parsing and prompting of the text tool-call protocol (the public names are in
:mod:`chatcli_provider_kit.textcalls`).

The model is shown a catalog of tools (:func:`catalog_section`) and asked to write calls as
``<tool_call name="NAME" args='{"key": "value"}'/>`` (:func:`format_tool_call` writes that form).
Models do not always comply, so :func:`parse_tool_calls` also accepts:

- the tag with its attributes in any order, either quote style, bare values, ``\\"``-escaped
  quotes inside a quoted attribute, raw JSON quotes inside the attribute
  (``args="{"path": "a"}"``) and HTML entities (``&quot;`` ``&amp;`` ``&lt;`` ``&#39;`` …; only
  the ``;``-terminated ones are decoded);
- the paired form ``<tool_call name="NAME">{…}</tool_call>``, whose body may also be a plain
  string, and Hermes' ``<tool_call>{"name": "NAME", "arguments": {…}}</tool_call>``;
- a JSON object in the text: ``{"tool_call": "NAME", "args": {…}}`` (``"arguments"`` too), or
  ``{"name": "NAME", "arguments": {…}}`` (``"args"``, ``"parameters"``; ``name`` must come first);
- Kamaji's line ``TOOL_CALL: NAME(arguments)``, at the start of a line: the arguments are JSON
  (which may span lines), ``key=value`` pairs (``key: value`` too; values are JSON or bare text
  up to the next comma; keys must be the tool's parameters), ``--key value`` words, or
  positional: one string for a tool with one required parameter (or, with none required, its
  first parameter), comma-separated strings when there are as many as required parameters, and
  otherwise one string for the first required parameter (the engine then names the missing
  ones). A tag's ``args`` or body that is not JSON is read the same way, except that last rule:
  there such arguments stay raw. A positional value is a JSON literal unless the parameter is a
  string (``TOOL_CALL: sleep(1.5)`` gives a number, ``read(42)`` the path ``"42"``).

Arguments are JSON, or JSON as models write it: single quotes, trailing commas, unquoted keys,
``True``/``False``/``None``, invalid escapes such as ``\\d`` kept as written, raw newlines in
strings. A small reader of our own handles that (no ``eval``); strict JSON goes through the C
decoder first. Arguments that cannot be read (or nest deeper than :data:`MAX_DEPTH`) are kept as
``raw_arguments`` on the :class:`ToolCallPart`, so the engine tells the model what was wrong.

What is not a call:

- text that mentions ``<tool_call>`` or ``TOOL_CALL`` without a name and arguments, a tag that is
  never closed with ``>``, a paired tag with no arguments, body or closing tag, a
  ``TOOL_CALL: name(`` line without a ``)``, a JSON object that is not shaped like a call;
- anything inside a fenced code block (a line starting with ````` ``` ````` or ``~~~``, closed by
  a fence of the same character at least as long, or running to the end of the answer as in
  CommonMark): those are examples. The exception is an answer that is nothing but one fenced
  block (whitespace around it allowed): its content is searched. Inline code is not special
  (arguments routinely hold backticks). The text is read left to right, so a fence inside a
  call's arguments (a file's content) belongs to the call.

Details: a quote in a tag that does not open an attribute's value makes the tag garbage; a paired
body that is itself a call object (``{"tool_call": "NAME", …}``, same name) is unwrapped; a
``{"tool_call": "NAME", …`` object that cannot be read is a call with raw arguments spanning up
to where reading stopped, and text a broken JSON object swallowed is not searched again.

Hostile text must not hurt a turn, so the scan never raises, takes time linear in the length of
the text, and is bounded:

- at most :data:`MAX_CALLS` calls are returned per answer; calls beyond it are ignored, and the
  returned :class:`ToolCalls` has ``truncated`` set so the caller can tell the model;
- the structural work (tokens, attributes, fences, failed attempts) of one answer is capped at
  ``_MAX_STEPS`` (10,000) steps, of which a long ordinary answer needs a few hundred; an
  answer that needs more is not searched further (``truncated`` again). Bulk work (searching
  for markers, quotes and closing tags, strict JSON) is done by C code, and every position of
  the text is examined a bounded number of times.

Parsing is a quote-aware scanner, not a regular expression: arguments routinely hold ``>``,
quotes and nested JSON, and only a scanner that tracks quoting can tell a ``>`` inside an
attribute from the one that closes the tag. Regular expressions are used only to find the next
fixed marker (``<tool_call``, ``TOOL_CALL:`` at a line start, a fence, a quote) quickly.
"""

from __future__ import annotations

import html
import html.entities
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from chatcli import PromptSection, ToolCallPart, ToolSpec

__all__ = [
    "CATALOG_SECTION",
    "MAX_CALLS",
    "MAX_DEPTH",
    "ParsedCall",
    "ToolCalls",
    "catalog_section",
    "format_tool_call",
    "parse_tool_calls",
    "scan_tool_calls",
    "to_tool_call",
]

#: calls parsed from one answer; more are ignored (``ToolCalls.truncated`` tells)
MAX_CALLS = 32
#: the name of the prompt section that describes the tools in the text protocol
CATALOG_SECTION = "tool-catalog"
#: deepest nesting of arguments (objects and arrays); deeper ones are invalid arguments
MAX_DEPTH = 64
#: structural steps per answer (and again for converting its calls' arguments)
_MAX_STEPS = 10_000
#: attribute tokens in one tag, and quote/paren events on one ``TOOL_CALL:`` line
_MAX_ATTRS = 64
_MAX_LINE_EVENTS = 512
_MAX_NAME = 128

_TAG = "<tool_call"
_LINE = "TOOL_CALL:"
_ARG_KEYS = ("args", "arguments")
_QUOTES = "\"'"

# Markers, each a pattern with a literal first character (so the regex engine skips to it in C)
# and none able to backtrack. Each is searched from a position that only moves forward, with its
# next match remembered: finding them all is linear in the length of the text.
_TAG_AT = re.compile(r"<(?i:tool_call)", re.A)
_OBJECT_AT = re.compile(
    r"\{(?=\s*[\"']?tool_call[\"']?\s*:"
    r"|\s*[\"']?name[\"']?\s*:\s*[\"'][^\"'\\\n]{1,128}[\"']\s*,\s*"
    r"[\"']?(?:arguments|args|parameters)[\"']?\s*:)",
    re.A,
)
_LINE_START = r"[ \t]*(?:(?P<line>TOOL_CALL:)|(?P<fence>`{3,}|~{3,}))"
_LINE_AT = re.compile(r"\n" + _LINE_START)
_AT_LINE_START = re.compile(_LINE_START)
_CLOSE_TAG = re.compile(r"</(?i:tool_call)[ \t\r\n]*>", re.A)
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})([^\n]*)")
_FENCE_CLOSE = {
    "`": re.compile(r"^[ \t]*(`{3,})[ \t\r]*$", re.M),
    "~": re.compile(r"^[ \t]*(~{3,})[ \t\r]*$", re.M),
}
_WS = re.compile(r"[ \t\r\n\f\v]*")
_SP = re.compile(r"\s*")
#: ``_WS.match`` and ``_SP.match``: they match the empty string, so they never return None
_ws: Callable[..., re.Match[str]] = _WS.match  # type: ignore[assignment]
_sp: Callable[..., re.Match[str]] = _SP.match  # type: ignore[assignment]
_ATTR_NAME = re.compile(r"[^\s=/<>\"']+")
_BARE_VALUE = re.compile(r"[^\s<>\"']*")
_LINE_HEAD = re.compile(r"[ \t]*([\w.@-]{1,128})[ \t]*\(")
_PAREN_EVENT = re.compile(r"[()\"'\\]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_IDENT = re.compile(r"[A-Za-z_$][\w$-]*")
_KEY = re.compile(r"[A-Za-z_][\w-]*")
_BARE_WORD = re.compile(r"[^\s'\"\\]+")
_ENTITY = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});")
_UNBACKSLASH = {'"': re.compile(r'\\([\\"])'), "'": re.compile(r"\\([\\'])")}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_TOOL_CALL_HEAD = re.compile(r"\{\s*[\"']?tool_call[\"']?\s*:\s*([\"'])(.{1,128}?)\1", re.A)
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False,
             "None": None}
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
            "r": "\r", "t": "\t", "\n": ""}
_DECODER = json.JSONDecoder()
_MISSING: Any = object()


@dataclass
class ParsedCall:
    """A tool call found in text: the tool's name, its raw argument text, and where it stood.

    ``parsed`` holds arguments already read as a JSON object (the JSON forms); ``alternatives``
    are other readings of ``raw_args`` to try as JSON (before HTML entities were decoded, or
    with one level of backslash escaping undone); ``form`` is ``tag``, ``json`` or ``line``;
    ``invalid`` marks arguments known to be unreadable (they stay raw).
    """

    name: str
    raw_args: str
    start: int
    end: int
    parsed: dict[str, Any] | None = None
    alternatives: tuple[str, ...] = ()
    form: str = "tag"
    invalid: bool = False


class ToolCalls(list):  # type: ignore[type-arg]
    """The calls found in an answer, in order. ``truncated`` is True when the answer was not
    searched to its end: it held more than :data:`MAX_CALLS` calls, or more structure than one
    answer may cost; the calls returned are the first ones, the rest were ignored."""

    truncated: bool = False


# ------------------------------------------------------------------------------ accounting


class _Bad(Exception):
    """Internal: not a value here (``pos`` is where reading stopped). Never leaves the module."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


class _TooDeep(_Bad):
    """Internal: nested deeper than :data:`MAX_DEPTH`."""


class _OutOfSteps(Exception):
    """Internal: the step budget is spent; the scan stops."""


class _Budget:
    """Counts structural steps (capped) and characters examined by C-level searches (counted,
    for tests: their sum over a scan must stay a small multiple of the text's length)."""

    __slots__ = ("limit", "scanned", "steps", "strict")

    def __init__(self, limit: int | None = _MAX_STEPS) -> None:
        self.limit = limit
        self.steps = 0
        self.scanned = 0
        self.strict = True  # the C decoder may be tried first

    def step(self, n: int = 1) -> None:
        self.steps += n
        if self.limit is not None and self.steps > self.limit:
            raise _OutOfSteps


# ------------------------------------------------------------------------------ JSON reading


def _quote_end(s: str, i: int, hi: int, budget: _Budget) -> int:
    """``s[i]`` is a quote; the index of the quote that closes it before ``hi`` (one preceded
    by an even number of backslashes), or -1."""
    q = s[i]
    j = i + 1
    while True:
        k = s.find(q, j, hi)
        budget.scanned += (k if k >= 0 else hi) - j
        if k < 0:
            return -1
        if s[k - 1] != "\\":
            return k
        seg = s[j:k]
        if (len(seg) - len(seg.rstrip("\\"))) % 2 == 0:
            return k
        budget.step()
        j = k + 1


def _read_string(s: str, i: int, hi: int, budget: _Budget) -> tuple[str, int]:
    """The string whose quote (either style) is ``s[i]``; returns (text, index past it)."""
    q = s[i]
    if q == '"':
        try:
            text, end = json.decoder.scanstring(  # type: ignore[attr-defined]
                s, i + 1, False)
        except ValueError:
            pass
        else:
            budget.scanned += end - i
            if end <= hi:
                return text, end
            raise _Bad(hi)
    parts: list[str] = []
    j = i + 1
    close = s.find(q, j, hi)
    budget.scanned += (close if close >= 0 else hi) - j
    while True:
        if close < 0:
            raise _Bad(hi)
        k = s.find("\\", j, close)
        if k < 0:
            parts.append(s[j:close])
            return "".join(parts), close + 1
        budget.step()
        parts.append(s[j:k])
        if k + 1 >= hi:
            raise _Bad(hi)
        e = s[k + 1]
        j = k + 2
        if e in _ESCAPES:
            parts.append(_ESCAPES[e])
        elif e == "u" and _HEX4.fullmatch(s, k + 2, k + 6):
            code = int(s[k + 2 : k + 6], 16)
            j = k + 6
            if (0xD800 <= code < 0xDC00 and s.startswith("\\u", j)
                    and _HEX4.fullmatch(s, j + 2, j + 6)):
                low = int(s[j + 2 : j + 6], 16)
                if 0xDC00 <= low < 0xE000:
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    j += 6
            parts.append(chr(code) if not 0xD800 <= code < 0xE000 else "\ufffd")
        else:  # an escape JSON does not know (a regex's \d): kept as written
            parts.append("\\" + e)
        if j > close:  # the escaped character was the quote
            close = s.find(q, j, hi)
            budget.scanned += (close if close >= 0 else hi) - j


def _read_scalar(s: str, i: int, hi: int) -> tuple[Any, int]:
    m = _NUMBER.match(s, i, hi)
    if m:
        text = m.group()
        try:
            if "." in text or "e" in text or "E" in text:
                return float(text), m.end()
            return int(text), m.end()
        except ValueError:  # more digits than int() takes
            raise _Bad(i) from None
    m = _IDENT.match(s, i, hi)
    if m and m.group() in _LITERALS:
        return _LITERALS[m.group()], m.end()
    raise _Bad(i)


def _read_key(s: str, i: int, hi: int, budget: _Budget) -> tuple[str, int]:
    """An object key (quoted either way, or an identifier) and its ``:``; returns the key and
    the index after the colon."""
    if i >= hi:
        raise _Bad(i)
    if s[i] in _QUOTES:
        key, i = _read_string(s, i, hi, budget)
    else:
        m = _IDENT.match(s, i, hi)
        if not m:
            raise _Bad(i)
        key, i = m.group(), m.end()
    i = _ws(s, i, hi).end()
    if i >= hi or s[i] != ":":
        raise _Bad(i)
    return key, i + 1


def _read_lenient(s: str, i: int, hi: int, budget: _Budget) -> tuple[Any, int]:
    """The JSON-ish value at ``s[i:hi]`` (leading whitespace skipped), read without recursion;
    returns (value, index past it). Raises :class:`_Bad` / :class:`_TooDeep`."""
    stack: list[list[Any]] = []  # [container, pending key] per open object or array
    while True:
        budget.step()
        i = _ws(s, i, hi).end()
        if i >= hi:
            raise _Bad(i)
        c = s[i]
        if c == "{" or c == "[":
            if len(stack) >= MAX_DEPTH:
                raise _TooDeep(i)
            i = _ws(s, i + 1, hi).end()
            if c == "{":
                if i < hi and s[i] == "}":
                    value: Any = {}
                    i += 1
                else:
                    key, i = _read_key(s, i, hi, budget)
                    stack.append([{}, key])
                    continue
            elif i < hi and s[i] == "]":
                value = []
                i += 1
            else:
                stack.append([[], None])
                continue
        elif c in _QUOTES:
            value, i = _read_string(s, i, hi, budget)
        else:
            value, i = _read_scalar(s, i, hi)
        while True:  # hand the value to its container; close the containers that end here
            if not stack:
                return value, i
            top = stack[-1]
            container = top[0]
            if isinstance(container, list):
                container.append(value)
                closer = "]"
            else:
                container[top[1]] = value
                closer = "}"
            i = _ws(s, i, hi).end()
            if i >= hi:
                raise _Bad(i)
            c = s[i]
            if c == ",":
                i = _ws(s, i + 1, hi).end()
                if i < hi and s[i] == closer:  # a trailing comma
                    c = closer
                elif isinstance(container, dict):
                    top[1], i = _read_key(s, i, hi, budget)
                    break
                else:
                    break
            if c == closer:
                stack.pop()
                value = container
                i += 1
                continue
            raise _Bad(i)


def _value_at(s: str, i: int, hi: int, budget: _Budget) -> tuple[Any, int]:
    """The JSON value starting exactly at ``s[i]`` and ending by ``hi``: strict JSON by the C
    decoder, else the lenient reader. A failure's ``pos`` is the furthest either one read.

    Text nested ~1,000 deep makes the C decoder raise RecursionError after reading that deep;
    from then on this scan uses only the lenient reader (which stops at :data:`MAX_DEPTH`), so
    such text is not read again and again."""
    far = i
    if budget.strict:
        try:
            value, end = _DECODER.raw_decode(s, i)
        except json.JSONDecodeError as err:
            far = max(err.pos, i)
            budget.scanned += far - i
        except RecursionError:
            budget.strict = False
        except ValueError:
            pass
        else:
            budget.scanned += end - i
            if end > hi:
                raise _Bad(hi)
            if s.count("{", i, end) + s.count("[", i, end) > MAX_DEPTH and not _shallow(value):
                raise _TooDeep(end)
            return value, end
    try:
        return _read_lenient(s, i, hi, budget)
    except _Bad as bad:
        bad.pos = max(bad.pos, min(far, hi))
        raise


def _loads(text: str, budget: _Budget) -> Any:
    """The JSON-ish value that is the whole of ``text``."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise _TooDeep(0) from None
    except ValueError:
        value, end = _read_lenient(text, 0, len(text), budget)
        if _ws(text, end).end() != len(text):
            raise _Bad(end) from None
        return value
    budget.scanned += len(text)
    if text.count("{") + text.count("[") > MAX_DEPTH and not _shallow(value):
        raise _TooDeep(0)
    return value


def _shallow(value: Any) -> bool:
    """Whether ``value`` nests at most :data:`MAX_DEPTH` objects and arrays deep."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if type(item) is dict:
            children: Iterable[Any] = item.values()
        elif type(item) is list:
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return False
        stack.extend((c, depth + 1) for c in children if type(c) is dict or type(c) is list)
    return True


def _scrub(value: Any) -> Any:
    """``value`` with lone surrogates (from ``\\ud800`` escapes) replaced: they cannot be
    stored as UTF-8."""
    def fix(text: str) -> str:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

    if isinstance(value, str):
        return fix(value)
    root = [value]
    stack: list[Any] = [root]
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            items = list(container.items())
            container.clear()
            for key, item in items:
                container[fix(key)] = fix(item) if isinstance(item, str) else item
                if isinstance(item, dict | list):
                    stack.append(item)
        else:
            for index, item in enumerate(container):
                if isinstance(item, str):
                    container[index] = fix(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
    return root[0]


# ------------------------------------------------------------------------------ text forms


def _unescape(text: str) -> str:
    """HTML entities ending with ``;`` decoded (named, decimal, hex); anything else as is."""
    return _ENTITY.sub(_entity, text) if "&" in text else text


def _entity(m: re.Match[str]) -> str:
    ref = m.group()
    if ref[1] == "#":
        return html.unescape(ref)
    return html.entities.html5.get(ref[1:], ref)


def _valid_name(name: Any) -> bool:
    return (isinstance(name, str) and 0 < len(name) <= _MAX_NAME and name.isprintable()
            and " " not in name)


class _Next:
    """The next match of a pattern at or after a position, remembered between queries."""

    __slots__ = ("budget", "hi", "lo", "match", "rx", "s")

    def __init__(self, rx: re.Pattern[str], s: str, hi: int, budget: _Budget) -> None:
        self.rx, self.s, self.hi, self.budget = rx, s, hi, budget
        self.lo = hi + 1
        self.match: re.Match[str] | None = None

    def find(self, pos: int) -> re.Match[str] | None:
        m = self.match
        if self.lo <= pos and (m is None or pos <= m.start()):
            return m
        m = self.rx.search(self.s, pos, self.hi)
        self.budget.scanned += (m.start() if m else self.hi) - pos
        self.lo, self.match = pos, m
        return m


@dataclass
class _Scanner:
    """One left-to-right pass over an answer: finds the next marker, tries to read a call there,
    skips fenced blocks and whatever a call consumed."""

    s: str
    limit: int = MAX_CALLS
    budget: _Budget = field(default_factory=_Budget)
    calls: ToolCalls = field(default_factory=ToolCalls)

    def run(self) -> ToolCalls:
        try:
            self._run()
        except _OutOfSteps:
            self.calls.truncated = True
        return self.calls

    def _run(self) -> None:
        s, budget = self.s, self.budget
        pos, hi = self._region()
        self.closes = _Next(_CLOSE_TAG, s, hi, budget)
        self.tags = tags = _Next(_TAG_AT, s, hi, budget)
        objects = _Next(_OBJECT_AT, s, hi, budget)
        lines = _Next(_LINE_AT, s, hi, budget)
        while pos < hi:
            m = _AT_LINE_START.match(s, pos, hi) if pos == 0 else None
            if m is None or m.lastgroup is None:
                m = lines.find(pos - 1 if pos else 0)
                for other in (tags.find(pos), objects.find(pos)):
                    if other is not None and (m is None or other.start() < m.start()):
                        m = other
            if m is None:
                return
            budget.step()
            kind = m.lastgroup or ("tag" if m.re is _TAG_AT else "json")
            if kind == "fence":
                pos = self._after_fence(m.start(kind), hi)
                continue
            start = m.start(kind) if m.lastgroup else m.start()
            if kind == "tag":
                call, resume = self._tag(start, hi)
            elif kind == "line":
                call, resume = self._line(start, hi)
            else:
                call, resume = self._object(start, hi)
            if call is None:
                budget.step()
                pos = max(resume, start + 1)
                continue
            if len(self.calls) >= self.limit:
                self.calls.truncated = True
                return
            self.calls.append(call)
            pos = call.end

    # -------------------------------------------------------------------- fences

    def _region(self) -> tuple[int, int]:
        """Where calls may be: the whole text, or the content of the one fenced block that is
        the whole answer."""
        s = self.s
        first = len(s) - len(s.lstrip())
        m = _FENCE_OPEN.match(s, first)
        if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
            return 0, len(s)
        content = s.find("\n", m.end(1))
        if content < 0:
            return len(s), len(s)
        close = self._fence_close(m.group(1), content + 1, len(s))
        if close is None:
            return content + 1, len(s)
        if s[close[1]:].strip():
            return 0, len(s)
        return content + 1, close[0]

    def _fence_close(self, opener: str, pos: int, hi: int) -> tuple[int, int] | None:
        rx = _FENCE_CLOSE[opener[0]]
        while True:
            m = rx.search(self.s, pos, hi)
            self.budget.scanned += (m.end() if m else hi) - pos
            if m is None:
                return None
            self.budget.step()
            if len(m.group(1)) >= len(opener):
                return m.start(), m.end()
            pos = m.end()

    def _after_fence(self, start: int, hi: int) -> int:
        """``start`` opens a fence at a line start: the index past its block (examples)."""
        s = self.s
        m = _FENCE_OPEN.match(s, start, hi)
        assert m is not None
        if m.group(1)[0] == "`" and "`" in m.group(2):
            return m.end(1)  # ```inline``` code, not a fence
        eol = s.find("\n", m.end(1), hi)
        if eol < 0:
            return hi
        close = self._fence_close(m.group(1), eol + 1, hi)
        return hi if close is None else close[1]

    # -------------------------------------------------------------------- the tag

    def _tag(self, t: int, hi: int) -> tuple[ParsedCall | None, int]:
        s, budget = self.s, self.budget
        i = t + len(_TAG)
        if i < hi and not (s[i].isspace() or s[i] in "/>"):
            return None, i  # <tool_caller> and friends
        attrs: dict[str, tuple[str, str]] = {}
        for _ in range(_MAX_ATTRS):
            budget.step()
            i = _sp(s, i, hi).end()
            if i >= hi:
                return None, t + len(_TAG)  # never closed
            c = s[i]
            if c == ">":
                self_closing, open_end = False, i + 1
                break
            if c == "/":
                j = _sp(s, i + 1, hi).end()
                if j < hi and s[j] == ">":
                    self_closing, open_end = True, j + 1
                    break
                i += 1
                continue
            if c == "<" or c in _QUOTES:  # a quote must open a value (one after "=")
                return None, t + len(_TAG)
            if c == "=":
                i += 1
                continue
            m = _ATTR_NAME.match(s, i, hi)
            assert m is not None
            key, i = m.group().lower(), m.end()
            j = _sp(s, i, hi).end()
            if j < hi and s[j] == "=":
                value, i = self._attr_value(key, _sp(s, j + 1, hi).end(), hi)
                if value is None:
                    return None, t + len(_TAG)
                attrs.setdefault(key, value)
            else:
                attrs.setdefault(key, ("", ""))
        else:
            return None, t + len(_TAG)
        return self._tag_call(t, attrs, self_closing, open_end, hi)

    def _attr_value(self, key: str, i: int, hi: int) -> tuple[tuple[str, str] | None, int]:
        """The value of an attribute starting at ``s[i]``: (raw text, its quote) and the index
        past it; (None, i) when it never ends."""
        s, budget = self.s, self.budget
        if i >= hi:
            return None, i
        c = s[i]
        if c in _QUOTES:
            if key in _ARG_KEYS:  # raw JSON inside the quotes: args="{"a": "b"}"
                j = _sp(s, i + 1, hi).end()
                if j < hi and s[j] in "{[":
                    try:
                        _, end = _value_at(s, j, hi, budget)
                    except _Bad:
                        pass
                    else:
                        k = _sp(s, end, hi).end()
                        if k < hi and s[k] == c:
                            return (s[i + 1 : k], c), k + 1
            j = _quote_end(s, i, hi, budget)
            if j < 0:
                return None, i
            return (s[i + 1 : j], c), j + 1
        if c in "{[" and key in _ARG_KEYS:
            try:
                _, end = _value_at(s, i, hi, budget)
            except _Bad:
                pass
            else:
                return (s[i:end], ""), end
        m = _BARE_VALUE.match(s, i, hi)
        assert m is not None
        value, end = m.group(), m.end()
        if value.endswith("/") and end < hi and s[end] == ">":
            value, end = value[:-1], end - 1
        return (value, ""), end

    def _tag_call(self, t: int, attrs: dict[str, tuple[str, str]], self_closing: bool,
                  open_end: int, hi: int) -> tuple[ParsedCall | None, int]:
        s, budget = self.s, self.budget
        name = _unescape(attrs["name"][0]).strip() if "name" in attrs else ""
        args = attrs.get("args") or attrs.get("arguments")
        end = open_end
        body: str | None = None
        body_value: Any = _MISSING
        if not self_closing:
            j = _sp(s, open_end, hi).end()
            close = _CLOSE_TAG.match(s, j, hi)
            if close:  # <tool_call …></tool_call>
                body, end = "", close.end()
            elif args is None and j < hi and s[j] in "{[":
                try:
                    body_value, e = _value_at(s, j, hi, budget)
                except _Bad:
                    pass
                else:
                    body = s[j:e]
                    close = _CLOSE_TAG.match(s, _sp(s, e, hi).end(), hi)
                    end = close.end() if close else e
            if body is None and args is None:
                close = self.closes.find(open_end)
                if close is not None:
                    other = self.tags.find(open_end)
                    if other is None or other.start() > close.start():
                        body, end = s[open_end : close.start()].strip(), close.end()
        if not name:  # Hermes: <tool_call>{"name": …, "arguments": …}</tool_call>
            found = _call_object(body_value) if isinstance(body_value, dict) else None
            if found is None:
                return None, open_end
            return self._json_call(found[0], found[1], t, end, body or ""), end
        if not _valid_name(name):
            return None, open_end
        if args is not None:
            raw, quote = args
            if not self_closing:  # a closing tag right after belongs to this call
                close = _CLOSE_TAG.match(s, _sp(s, open_end, hi).end(), hi)
                end = close.end() if close else open_end
            primary = _unescape(raw)
            unquoted = [_UNBACKSLASH[quote].sub(r"\1", primary)] if (
                quote and "\\" + quote in primary) else []
            if primary != raw:
                unquoted.append(raw)
            return ParsedCall(name, primary, t, end, alternatives=tuple(unquoted)), end
        if isinstance(body_value, dict):
            found = _call_object(body_value)
            if found is not None and found[0] == name:
                return self._json_call(name, found[1], t, end, body or ""), end
        if body is not None:
            primary = _unescape(body)
            parsed = body_value if isinstance(body_value, dict) and primary == body else None
            alternatives = (body,) if primary != body else ()
            return ParsedCall(name, primary.strip(), t, end, parsed=_clean(parsed, body),
                              alternatives=alternatives), end
        if self_closing:
            return ParsedCall(name, "", t, end), end
        return None, open_end  # a paired tag with no arguments, body or closing tag

    # -------------------------------------------------------------------- JSON objects

    def _object(self, t: int, hi: int) -> tuple[ParsedCall | None, int]:
        s = self.s
        try:
            value, end = _value_at(s, t, hi, self.budget)
        except _Bad as bad:
            head = _TOOL_CALL_HEAD.match(s, t, min(hi, t + 200))
            if head and _valid_name(head.group(2).strip()):
                end = max(bad.pos, head.end())
                return ParsedCall(head.group(2).strip(), s[t:end], t, end, form="json",
                                  invalid=True), end
            return None, max(bad.pos, t + 1)
        found = _call_object(value) if isinstance(value, dict) else None
        if found is None:
            return None, end
        return self._json_call(found[0], found[1], t, end, s[t:end]), end

    def _json_call(self, name: str, args: Any, start: int, end: int, text: str) -> ParsedCall:
        if isinstance(args, dict):
            return ParsedCall(name, json.dumps(args, ensure_ascii=False), start, end,
                              parsed=_clean(args, text), form="json")
        if args is None:
            return ParsedCall(name, "", start, end, form="json")
        raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return ParsedCall(name, raw, start, end, form="json")

    # -------------------------------------------------------------------- TOOL_CALL: lines

    def _line(self, t: int, hi: int) -> tuple[ParsedCall | None, int]:
        s, budget = self.s, self.budget
        i = t + len(_LINE)
        m = _LINE_HEAD.match(s, i, hi)
        if not m:
            return None, i
        name, j = m.group(1), m.end()
        k = _ws(s, j, hi).end()
        if k < hi and s[k] in "{[":  # JSON arguments, which may span lines
            try:
                value, e = _value_at(s, k, hi, budget)
            except _Bad:
                pass
            else:
                close = _ws(s, e, hi).end()
                if close < hi and s[close] == ")":
                    parsed = value if isinstance(value, dict) else None
                    return ParsedCall(name, s[k:e], t, close + 1, parsed=_clean(parsed, s[k:e]),
                                      form="line"), close + 1
        eol = s.find("\n", j, hi)
        budget.scanned += (eol if eol >= 0 else hi) - j
        eol = hi if eol < 0 else eol
        close = self._paren_close(j, eol)
        if close < 0:  # Kamaji's rule: the last ")" on the line
            close = s.rfind(")", j, eol)
            budget.scanned += eol - j
        if close < 0:
            return None, eol
        return ParsedCall(name, s[j:close].strip(), t, close + 1, form="line"), close + 1

    def _paren_close(self, j: int, eol: int) -> int:
        """The ``)`` that closes the ``(`` before ``s[j]`` on this line, outside quotes; -1."""
        s, budget = self.s, self.budget
        depth, i = 1, j
        for _ in range(_MAX_LINE_EVENTS):
            m = _PAREN_EVENT.search(s, i, eol)
            budget.scanned += (m.end() if m else eol) - i
            if m is None:
                return -1
            budget.step()
            k = m.start()
            c = s[k]
            if c == "(":
                depth += 1
                if depth > MAX_DEPTH:
                    return -1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return k
            elif c == "\\":
                i = k + 2
                continue
            else:
                k = _quote_end(s, k, eol, budget)
                if k < 0:
                    return -1
            i = k + 1
        return -1


def _call_object(value: dict[str, Any]) -> tuple[str, Any] | None:
    """(name, arguments) when a JSON object is shaped like a call; else None."""
    if "tool_call" in value:
        name = value["tool_call"]
        if isinstance(name, dict):  # {"tool_call": {"name": …, "arguments": …}}
            return _call_object(name) if "name" in name else None
        args = value.get("args", value.get("arguments", value.get("parameters")))
    elif "name" in value and any(k in value for k in ("arguments", "args", "parameters")):
        name = value["name"]
        args = value.get("arguments", value.get("args", value.get("parameters")))
    else:
        return None
    if not isinstance(name, str) or not _valid_name(name.strip()):
        return None
    return name.strip(), args


def _clean(value: dict[str, Any] | None, text: str) -> dict[str, Any] | None:
    """Arguments read from ``text``, with lone surrogates replaced (only escapes make them)."""
    if value is not None and _SURROGATE_ESCAPE.search(text):
        return _scrub(value)  # type: ignore[no-any-return]
    return value


def scan_tool_calls(text: str, *, limit: int = MAX_CALLS) -> ToolCalls:
    """Every tool call in ``text`` (at most ``limit``), in order of appearance, in any accepted
    format; never raises."""
    scanner = _Scanner(text, limit)
    try:
        return scanner.run()
    except Exception:  # a bug must not cost the turn its answer: keep what was found
        scanner.calls.truncated = True
        return scanner.calls


# ------------------------------------------------------------------------------ arguments


def _schema(spec: ToolSpec | None) -> tuple[dict[str, Any], list[str]]:
    """The properties and required names of ``spec``'s schema, whatever shape it has."""
    params = spec.parameters if spec is not None and isinstance(spec.parameters, dict) else {}
    props = params.get("properties")
    required = params.get("required")
    props = props if isinstance(props, dict) else {}
    required = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    return props, required


def _split_words(raw: str, budget: _Budget) -> list[str]:
    """Split ``--key value "quoted value"`` into words as a shell would (quotes, backslashes);
    unbalanced quotes: plain whitespace splitting."""
    words: list[str] = []
    current: list[str] | None = None
    i, n = 0, len(raw)
    while i < n:
        budget.step()
        c = raw[i]
        if c.isspace():
            if current is not None:
                words.append("".join(current))
                current = None
            i = _ws(raw, i).end() if raw[i] in " \t\r\n\f\v" else i + 1
            continue
        if current is None:
            current = []
        if c in _QUOTES:
            k = _quote_end(raw, i, n, budget) if c == '"' else raw.find("'", i + 1)
            if k < 0:
                return raw.split()
            part = raw[i + 1 : k]
            current.append(_UNBACKSLASH['"'].sub(r"\1", part) if c == '"' else part)
            i = k + 1
        elif c == "\\":
            current.append(raw[i + 1 : i + 2])
            i += 2
        else:
            m = _BARE_WORD.match(raw, i)
            if m is None or not m.group():  # other whitespace
                current.append(c)
                i += 1
            else:
                current.append(m.group())
                i = m.end()
    if current is not None:
        words.append("".join(current))
    return words


def _cli(raw: str, budget: _Budget) -> dict[str, Any]:
    """``--key value --flag --key=value`` → a dict (the value of a flag alone is True)."""
    parsed: dict[str, Any] = {}
    key: str | None = None
    for word in _split_words(raw, budget):
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            key = name.replace("-", "_")
            parsed[key] = value if eq else True
        elif key is not None:
            parsed[key] = word if parsed[key] is True else f"{parsed[key]} {word}"
    return parsed


def _pairs(raw: str, props: dict[str, Any], budget: _Budget) -> dict[str, Any] | None:
    """``key=value, key2="value 2"`` (or ``key: value``) → a dict; None when it is not that, or
    names a key the tool does not have."""
    out: dict[str, Any] = {}
    i, n = 0, len(raw)
    while True:
        budget.step()
        i = _ws(raw, i).end()
        m = _KEY.match(raw, i)
        if not m:
            return None
        key = m.group()
        i = _ws(raw, m.end()).end()
        if i >= n or raw[i] not in "=:":
            return None
        i = _ws(raw, i + 1).end()
        value: Any = _MISSING
        if i < n and raw[i] in "\"'{[-0123456789tfnTFN":
            try:
                value, e = _value_at(raw, i, n, budget)
            except _Bad:
                value = _MISSING
            else:
                e = _ws(raw, e).end()
                if e < n and raw[e] != ",":
                    value = _MISSING
        if value is _MISSING:  # bare text up to the next comma
            e = raw.find(",", i)
            e = n if e < 0 else e
            value = raw[i:e].strip()
        out[key] = value
        if e >= n:
            break
        i = e + 1
    if props and any(k not in props for k in out):
        return None
    return out


def _split_commas(raw: str, budget: _Budget) -> list[str]:
    """``a, "b, c", d`` → its parts, quoted ones kept quoted."""
    parts: list[str] = []
    i, n = 0, len(raw)
    while True:
        budget.step()
        i = _ws(raw, i).end()
        e = -1
        if i < n and raw[i] in _QUOTES:
            k = _quote_end(raw, i, n, budget)
            if k >= 0:
                e = _ws(raw, k + 1).end()
                if e < n and raw[e] != ",":
                    e = -1
                else:
                    parts.append(raw[i : k + 1])
        if e < 0:
            e = raw.find(",", i)
            e = n if e < 0 else e
            parts.append(raw[i:e].strip())
        if e >= n:
            return parts
        i = e + 1


def _coerce(text: str, schema: Any, budget: _Budget) -> Any:
    """A positional argument for a parameter: a JSON literal when the parameter is not a
    string (or untyped), a quoted string unquoted, else the text itself."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if text and text[0] in _QUOTES and len(text) >= 2 and text[-1] == text[0]:
        try:
            value, end = _read_string(text, 0, len(text), budget)
        except _Bad:
            return text[1:-1]
        return value if end == len(text) else text[1:-1]
    if kind != "string" and text:
        try:
            value = _loads(text, budget)
        except _Bad:
            return text
        if not isinstance(value, str):
            return value
    return text


def _arguments(call: ParsedCall, spec: ToolSpec | None, budget: _Budget) -> dict[str, Any] | None:
    """The call's arguments as a JSON object for ``spec``; None when they cannot be read."""
    if call.invalid:
        return None
    if call.parsed is not None:
        return call.parsed
    raw = call.raw_args.strip()
    if not raw:
        return {}
    for text in (raw, *call.alternatives):
        text = text.strip()
        if not text:
            continue
        try:
            parsed = _loads(text, budget)
        except _TooDeep:
            return None
        except _Bad:
            continue
        if isinstance(parsed, dict):
            return _clean(parsed, text)
    if raw[0] == "{":
        return None  # meant as JSON, and it is not
    props, required = _schema(spec)
    if raw.startswith("--"):
        return _cli(raw, budget)
    if "=" in raw or ":" in raw:
        pairs = _pairs(raw, props, budget)
        if pairs is not None:
            return pairs
    targets = required or list(props)[:1]
    if len(targets) == 1:
        key = targets[0]
        return {key: _coerce(raw, props.get(key), budget)}
    if len(targets) > 1:
        parts = _split_commas(raw, budget)
        if len(parts) == len(targets):
            return {k: _coerce(p, props.get(k), budget) for k, p in zip(targets, parts,
                                                                         strict=True)}
        if call.form == "line":
            return {targets[0]: _coerce(raw, props.get(targets[0]), budget)}
    return None


def to_tool_call(parsed: ParsedCall, spec: ToolSpec | None,
                 budget: _Budget | None = None) -> ToolCallPart:
    """The :class:`chatcli.ToolCallPart` for a scanned call; unusable arguments stay raw."""
    try:
        arguments = _arguments(parsed, spec, budget or _Budget())
    except (_OutOfSteps, RecursionError):
        arguments = None
    if arguments is None:
        return ToolCallPart(name=parsed.name, raw_arguments=parsed.raw_args)
    return ToolCallPart(name=parsed.name, arguments=arguments)


def parse_tool_calls(text: str, tools: Iterable[ToolSpec] = (), *,
                     limit: int = MAX_CALLS) -> ToolCalls:
    """The tool calls written in ``text``, with arguments fitted to the named tools' schemas.

    At most ``limit`` calls (:data:`MAX_CALLS`); when the answer held more, or more structure
    than an answer may cost, the result's ``truncated`` is True and the rest was ignored, so the
    caller can tell the model. Never raises.
    """
    found = scan_tool_calls(text, limit=limit)
    result = ToolCalls()
    result.truncated = found.truncated
    try:
        specs = {spec.name: spec for spec in tools}
        budget = _Budget()
        for call in found:
            result.append(to_tool_call(call, specs.get(call.name), budget))
    except Exception:  # a bug must not cost the turn its answer: keep what was converted
        result.truncated = True
    return result


# ------------------------------------------------------------------------------ prompting


def format_tool_call(name: str, arguments: dict[str, Any]) -> str:
    """The canonical way to write a call: ``<tool_call name="…" args='{…}'/>``."""
    args = html.escape(json.dumps(arguments, ensure_ascii=False), quote=True)
    return f'<tool_call name="{html.escape(name, quote=True)}" args="{args}"/>'


def catalog_section(tools: Iterable[ToolSpec]) -> PromptSection:
    """A stable system-prompt section that lists the tools and how to call them."""
    lines = [
        "You can use tools. To call one, write exactly one line like:",
        '<tool_call name="TOOL_NAME" args=\'{"argument": "value"}\'/>',
        "with the arguments as a JSON object, outside any code block (a call inside ``` is "
        f"only an example), at most {MAX_CALLS} calls per answer; then stop and wait: the "
        "result comes back in the next message. Tools:",
    ]
    for spec in tools:
        params = json.dumps(_schema(spec)[0], ensure_ascii=False, default=str)
        # untranslated: the catalog is model-facing
        line = f"- {spec.name}: {spec.description} Arguments (JSON schema): {params}"
        lines.append(line)
    return PromptSection(name=CATALOG_SECTION, text="\n".join(lines), order=50)
