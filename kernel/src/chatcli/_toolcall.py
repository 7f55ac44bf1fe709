"""The text tool-call protocol, for models without native tool calling.

The model is shown a catalog of tools (:func:`catalog_section`) and asked to write calls as
``<tool_call name="NAME" args='{"key": "value"}'/>``. Models do not always comply, so the parser
also accepts the paired form ``<tool_call name="NAME">{…}</tool_call>``, a JSON object
``{"tool_call": "NAME", "args": {…}}`` and a line ``TOOL_CALL: NAME(arguments)``.

Parsing is a quote-aware scanner, not a regular expression: arguments routinely hold ``>``,
quotes and nested JSON, and only a scanner that tracks quoting can tell a ``>`` inside an
attribute from the one that closes the tag.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chatcli._calls import PromptSection, ToolSpec
from chatcli._types import ToolCallPart

__all__ = [
    "ParsedCall",
    "catalog_section",
    "format_tool_call",
    "parse_tool_calls",
    "scan_tool_calls",
    "to_tool_call",
]

_TAG = "<tool_call"
_CLOSE = "</tool_call>"
_LINE = "TOOL_CALL:"


@dataclass
class ParsedCall:
    """A tool call found in text: the tool's name, its raw argument text, and where it stood."""

    name: str
    raw_args: str
    start: int
    end: int


# ------------------------------------------------------------------------------------ scanner


def _skip_quoted(text: str, i: int) -> int:
    """``text[i]`` is a quote; return the index just past its closing quote (or the end)."""
    quote = text[i]
    j = text.find(quote, i + 1)
    return len(text) if j < 0 else j + 1


def _scan_tag_end(text: str, i: int) -> int:
    """From inside a tag, the index of the ``>`` that closes it, respecting quotes; -1 if none."""
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i = _skip_quoted(text, i)
            continue
        if ch == ">":
            return i
        i += 1
    return -1


def _attributes(inner: str) -> dict[str, str]:
    """``name="a" args='b'`` → dict; values may be quoted or bare; entities are unescaped."""
    attrs: dict[str, str] = {}
    i, n = 0, len(inner)
    while i < n:
        while i < n and (inner[i].isspace() or inner[i] == "/"):
            i += 1
        start = i
        while i < n and not inner[i].isspace() and inner[i] not in "=/":
            i += 1
        key = inner[start:i].lower()
        while i < n and inner[i].isspace():
            i += 1
        if not key:
            i += 1
            continue
        if i >= n or inner[i] != "=":
            attrs[key] = ""
            continue
        i += 1
        while i < n and inner[i].isspace():
            i += 1
        if i < n and inner[i] in "\"'":
            closing = inner.find(inner[i], i + 1)
            value = inner[i + 1 : closing] if closing >= 0 else inner[i + 1 :]
            i = closing + 1 if closing >= 0 else n
        else:
            start = i
            while i < n and not inner[i].isspace():
                i += 1
            value = inner[start:i]
        attrs[key] = html.unescape(value)
    return attrs


def _scan_xml(text: str) -> list[ParsedCall]:
    calls: list[ParsedCall] = []
    lower = text.lower()
    pos = 0
    while True:
        start = lower.find(_TAG, pos)
        if start < 0:
            return calls
        after = start + len(_TAG)
        if after < len(text) and not (text[after].isspace() or text[after] in "/>"):
            pos = after  # <tool_caller> and friends
            continue
        close = _scan_tag_end(text, after)
        if close < 0:
            return calls
        inner = text[after:close]
        self_closing = inner.rstrip().endswith("/")
        attrs = _attributes(inner.rstrip().rstrip("/"))
        end = close + 1
        args = attrs.get("args", attrs.get("arguments"))
        if not self_closing:
            body_end = lower.find(_CLOSE, end)
            if body_end >= 0:
                body = text[end:body_end]
                end = body_end + len(_CLOSE)
                if args is None:
                    args = html.unescape(body.strip())
        name = attrs.get("name", "").strip()
        if name:
            calls.append(ParsedCall(name, (args or "").strip(), start, end))
        pos = end
    return calls


def _scan_json(text: str) -> list[ParsedCall]:
    calls: list[ParsedCall] = []
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return calls
        head = text[start + 1 : start + 40].lstrip()
        if not head.startswith('"tool_call"'):
            pos = start + 1
            continue
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            pos = start + 1
            continue
        name = obj.get("tool_call") if isinstance(obj, dict) else None
        if isinstance(name, str) and name.strip():
            args = obj.get("args", obj.get("arguments", {}))
            raw = args if isinstance(args, str) else json.dumps(args)
            calls.append(ParsedCall(name.strip(), raw, start, end))
        pos = end


def _matching_paren(text: str, i: int) -> int:
    """``text[i]`` is ``(``; the index of its matching ``)`` outside quotes, or -1."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            i = _skip_quoted(text, i)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _scan_lines(text: str) -> list[ParsedCall]:
    calls: list[ParsedCall] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(_LINE):
            base = offset + len(line) - len(stripped) + len(_LINE)
            rest = text[base:]
            open_paren = rest.find("(")
            name = rest[:open_paren].strip() if open_paren > 0 else ""
            if name and name.replace("_", "").replace("-", "").isalnum():
                close = _matching_paren(rest, open_paren)
                if close < 0:  # unbalanced: take the rest of the line
                    close = len(line.rstrip("\r\n")) - (base - offset)
                raw = rest[open_paren + 1 : close]
                calls.append(ParsedCall(name, raw.strip(), base - len(_LINE), base + close + 1))
        offset += len(line)
    return calls


def scan_tool_calls(text: str) -> list[ParsedCall]:
    """Every tool call in ``text``, in order of appearance, in any accepted format."""
    found = _scan_xml(text) + _scan_json(text) + _scan_lines(text)
    found.sort(key=lambda c: c.start)
    result: list[ParsedCall] = []
    for call in found:  # a JSON body inside a <tool_call> tag is one call, not two
        if result and call.start < result[-1].end:
            continue
        result.append(call)
    return result


# ------------------------------------------------------------------------------ arguments


def _split_cli(raw: str) -> list[str]:
    """Split ``--key value "quoted value"`` into words, honouring quotes."""
    import shlex

    try:
        return shlex.split(raw)
    except ValueError:
        return raw.split()


def _arguments(raw: str, spec: ToolSpec | None) -> dict[str, Any] | None:
    """Turn raw argument text into a JSON object for ``spec``; None when it cannot."""
    raw = raw.strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    properties: dict[str, Any] = (spec.parameters.get("properties") or {}) if spec else {}
    required: list[str] = (spec.parameters.get("required") or []) if spec else []
    words = _split_cli(raw)
    if words and words[0].startswith("--"):
        parsed: dict[str, Any] = {}
        key = None
        for word in words:
            if word.startswith("--"):
                key = word[2:].replace("-", "_")
                parsed[key] = True
            elif key is not None:
                parsed[key] = word if parsed[key] is True else f"{parsed[key]} {word}"
        return parsed
    single = required if len(required) == 1 else list(properties) if len(properties) == 1 else []
    if len(single) == 1:
        text = raw
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        return {single[0]: value if value is not None and not isinstance(value, str) else text}
    return None


def to_tool_call(parsed: ParsedCall, spec: ToolSpec | None) -> ToolCallPart:
    """The kernel's :class:`ToolCallPart` for a scanned call; unusable arguments stay raw."""
    arguments = _arguments(parsed.raw_args, spec)
    if arguments is None:
        return ToolCallPart(name=parsed.name, raw_arguments=parsed.raw_args)
    return ToolCallPart(name=parsed.name, arguments=arguments)


def parse_tool_calls(text: str, tools: Iterable[ToolSpec] = ()) -> list[ToolCallPart]:
    """The tool calls written in ``text``, with arguments fitted to the named tools' schemas."""
    specs = {spec.name: spec for spec in tools}
    return [to_tool_call(call, specs.get(call.name)) for call in scan_tool_calls(text)]


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
        "then stop and wait: the result comes back in the next message. Tools:",
    ]
    for spec in tools:
        params = json.dumps(spec.parameters.get("properties", {}), ensure_ascii=False)
        lines.append(f"- {spec.name}: {spec.description} Arguments (JSON schema): {params}")
    return PromptSection(name="tool-catalog", text="\n".join(lines), order=50)
