"""Reading ``context_pull`` arguments however a model writes them.

Strict parsing only teaches a model to repeat the call at the cost of a round trip, so every
shape below means ``{"kind": "skill", "name": "x"}``::

    {"kind": "skill", "name": "x"}
    {"cmd": "skill", "skill": "x"}
    {"kind": "skill", "args": {"name": "x"}}          (also "arguments", "params", "input")
    {"args": "{\\"kind\\": \\"skill\\", \\"name\\": \\"x\\"}"}   (a wrapper holding JSON text)
    {"skill": "x"}
    {"Kind": "Skills", "Name": "x"}                    (keys and kinds in any case, plurals)
    {"kind": "skill:x"}

:func:`normalise` does the structural part (wrappers, key aliases, value types) without knowing
the kinds; :func:`resolve_kind` then finds the kind among the registered ones. Neither raises.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["canonical_kind", "normalise", "resolve_kind"]

WRAPPERS = ("args", "arguments", "params", "parameters", "input", "options", "payload")
ALIASES: dict[str, tuple[str, ...]] = {
    "kind": ("kind", "cmd", "command", "type", "action", "what", "op", "operation",
             "category"),
    "name": ("name", "item", "key", "title", "target", "ref"),
    "id": ("id", "compaction", "compaction_id", "range", "archive", "archive_id"),
    "file": ("file", "path", "file_path", "filepath", "filename", "file_name"),
    "offset": ("offset", "start", "from", "position", "cursor", "page_offset"),
}
_MAX_DEPTH = 4
_MAX_KEYS = 64


def _key(raw: Any) -> str:
    return str(raw).strip().lower().replace("-", "_").replace(" ", "_")


def _unwrap(value: Any) -> Mapping[str, Any] | None:
    """A wrapper's content as a mapping: a dict, or JSON text holding an object."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _flatten(raw: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    """``raw`` with lower-case keys and wrappers merged in (the outer value wins a clash)."""
    flat: dict[str, Any] = {}
    inner: list[Mapping[str, Any]] = []
    for raw_key, value in list(raw.items())[:_MAX_KEYS]:
        key = _key(raw_key)
        content = _unwrap(value) if key in WRAPPERS else None
        if content is not None and depth < _MAX_DEPTH:
            inner.append(content)
        elif key not in flat or flat[key] in (None, ""):
            flat[key] = value
    for content in inner:
        for key, value in _flatten(content, depth + 1).items():
            if key not in flat or flat[key] in (None, ""):
                flat[key] = value
    return flat


def _text(value: Any) -> str | None:
    """A scalar as text (a one-item list as its item); None for nothing usable."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (str, int, float)):
        text = str(value).strip()
        return text or None
    return None


def _offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value == value and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, str):
        stripped = value.strip().replace(",", "").replace("_", "")
        if stripped.lstrip("-").isdigit() and len(stripped) < 16:
            value = int(stripped)
    return max(0, value) if isinstance(value, int) else None


def normalise(raw: Any) -> dict[str, Any]:
    """The arguments with wrappers merged, aliases read as ``kind``/``name``/``id``/``file``/
    ``offset`` and values of the right type; other keys are kept (lower-cased). Never raises."""
    if not isinstance(raw, Mapping):
        return {}
    flat = _flatten(raw)
    out: dict[str, Any] = {}
    used: set[str] = set()
    for canonical, aliases in ALIASES.items():
        for alias in aliases:
            if alias not in flat:
                continue
            value = _offset(flat[alias]) if canonical == "offset" else _text(flat[alias])
            if value is not None:
                out[canonical] = value
                used.add(alias)
                break
    for key, value in flat.items():  # the rest, but never an unusable value under a field
        if key not in used and key not in ALIASES and key not in WRAPPERS:
            out[key] = value
    return out


def canonical_kind(word: str) -> str:
    return _key(word)


def resolve_kind(arguments: Mapping[str, Any], kinds: Collection[str]
                 ) -> tuple[str | None, dict[str, Any]]:
    """The registered kind the (normalised) ``arguments`` ask for, and the arguments with
    ``kind`` set to it and ``name`` filled from a key named after the kind
    (``{"cmd": "skill", "skill": "x"}``). The kind is None when none matches."""
    args = dict(arguments)
    known = {canonical_kind(k): k for k in kinds}
    requested = _text(args.get("kind"))
    kind = None
    if requested is not None:
        word = canonical_kind(requested)
        kind = _match(word, known)
        if kind is None:
            for separator in (":", "/", " "):  # "skill:x", "skill/x", "skill x"
                head, _, tail = requested.partition(separator)
                found = _match(canonical_kind(head), known) if tail.strip() else None
                if found is not None:
                    kind = found
                    args.setdefault("name", tail.strip())
                    break
    else:
        for key, value in list(args.items()):
            found = _match(canonical_kind(str(key)), known)
            if found is not None:
                kind = found
                text = _text(value)
                if text is not None and "name" not in args:
                    args["name"] = text
                del args[key]
                break
    if kind is None:
        return None, args
    args["kind"] = kind
    if "name" not in args:
        for variant in _variants(canonical_kind(kind)):
            text = _text(args.get(variant))
            if text is not None:
                args["name"] = text
                break
    return kind, args


def _variants(word: str) -> list[str]:
    out = [word, word[:-1] if word.endswith("s") else word + "s"]
    return [*out, *(w + "_name" for w in out)]


def _match(word: str, known: dict[str, str]) -> str | None:
    """``word`` among the kinds: exactly, as a singular or plural, or as a unique prefix."""
    for variant in _variants(word)[:2]:
        if variant in known:
            return known[variant]
    if len(word) >= 3:
        prefixed = [k for c, k in known.items() if c.startswith(word)]
        if len(prefixed) == 1:
            return prefixed[0]
    return None
