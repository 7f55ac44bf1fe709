"""Path-scoped rules: ``.chatcli/rules/*.md`` whose frontmatter ``paths:`` (or ``globs:``) says
which files they are about.

A rule applies to a turn when a path the turn touches matches one of its globs: paths in the
latest user message (``src/app.py``, ``@src/app.py``, ``./src/app.py:12``) and in the arguments
of the tool calls made since. Globs are gitignore-style (pathspec's ``gitignore`` patterns: ``*.py``
matches at any depth, ``src/**`` under ``src/``), matched against paths relative to the
project root; ``{a,b}`` alternatives are expanded. A rule without globs applies always.

Rules come from the project root's ``.chatcli/rules/`` and the user's ``rules/`` config folder;
for one file name, the project's rule wins.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation
from chatcli_records_lite import dataclass

from chatcli_context.files import FileCache
from chatcli_context.frontmatter import parse_frontmatter, scalar, split_list
from chatcli_context.globs import expand_braces

if TYPE_CHECKING:
    from chatcli import Message

__all__ = ["Rule", "find_rules", "match_rules", "turn_paths"]

_, ngettext = translation(__name__)

#: How much of a message is searched for paths, and how many paths a turn may name.
_SCAN_CHARS = 200_000
_MAX_PATHS = 200
#: Patterns compiled (by ``re``'s cache) when a turn's paths are first looked for, not at import.
_TOKEN = r"[^\s\"'`<>()\[\],;|*?]+"
_FILE_NAME = r"^[\w.-]*[\w-]\.[A-Za-z0-9]{1,10}$"
_LINE_SUFFIX = r"(?::\d+){1,2}$"


@dataclass(frozen=True)
class Rule:
    """One rule file: its name (``python.md``), path, source, globs (empty: always), text."""

    name: str
    path: Path
    source: str
    globs: tuple[str, ...]
    body: str

    @property
    def always(self) -> bool:
        return not self.globs


_parsed: dict[tuple[Path, str], Rule] = {}


def find_rules(root: Path, user_dir: Path, cache: FileCache,
               problems: list[str] | None = None) -> list[Rule]:
    """Every rule in effect, by file name (project over user)."""
    chosen: dict[str, tuple[str, Path]] = {}
    for source, folder in (("user", user_dir / "rules"), ("project", root / ".chatcli" / "rules")):
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".md") and not entry.name.startswith("."):
                chosen[entry.name] = (source, Path(entry.path))
    rules = []
    for name in sorted(chosen):
        source, path = chosen[name]
        text = cache.get(path)
        if text is None:
            continue
        if text.text is None:
            if problems is not None:
                problems.append(_("{path} is not used: {problem}").format(
                    path=path, problem=text.problem))
            continue
        rule = _rule(name, path, source, text.text)
        if rule.body.strip():
            rules.append(rule)
    return rules


def _rule(name: str, path: Path, source: str, text: str) -> Rule:
    key = (path, text)
    hit = _parsed.get(key)
    if hit is not None and hit.source == source:
        return hit
    fields, body = parse_frontmatter(text.replace("\r\n", "\n"))
    globs: list[str] = []
    for field in ("paths", "globs", "path", "files"):
        value = fields.get(field)
        if value:
            items = value if isinstance(value, list) else split_list(value)
            for item in items:
                globs.extend(g for g in expand_braces(scalar(item)) if g)
            break
    rule = Rule(name, path, source, tuple(dict.fromkeys(globs)), body.strip("\n"))
    if len(_parsed) > 1024:
        _parsed.clear()
    _parsed[key] = rule
    return rule


_specs: dict[tuple[str, ...], Any] = {}


def _spec(globs: tuple[str, ...]) -> Any:
    spec = _specs.get(globs)
    if spec is None:
        import pathspec

        lines = [g.lstrip("/") if g.startswith("/") else g for g in globs]
        try:
            spec = pathspec.PathSpec.from_lines("gitignore", lines)
        except Exception:  # one bad glob must not cost the others: keep the good ones
            good = []
            for line in lines:
                try:
                    pathspec.PathSpec.from_lines("gitignore", [line])
                except Exception:
                    continue
                good.append(line)
            spec = pathspec.PathSpec.from_lines("gitignore", good)
        if len(_specs) > 1024:
            _specs.clear()
        _specs[globs] = spec
    return spec


def match_rules(rules: Iterable[Rule], paths: list[str]) -> list[tuple[Rule, list[str]]]:
    """The rules with globs that some of ``paths`` match, each with the paths it matched."""
    matched = []
    for rule in rules:
        if rule.always or not paths:
            continue
        spec = _spec(rule.globs)
        hits = [path for path in paths if spec.match_file(path)]
        if hits:
            matched.append((rule, hits))
    return matched


# ------------------------------------------------------------------------------ the turn's paths


def turn_paths(messages: list[Message], workspace: Path, root: Path) -> list[str]:
    """The paths the current turn touches, relative to ``root`` (POSIX), in order of
    appearance: those in the latest user message and in the tool calls made after it."""
    from chatcli import Role

    start = None
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == Role.USER and messages[index].text:
            start = index
            break
    if start is None:
        return []
    texts = [messages[start].text[:_SCAN_CHARS]]
    for message in messages[start + 1:]:
        for call in message.tool_calls:
            texts.extend(_strings(call.arguments))
    found: dict[str, None] = {}
    for text in texts:
        for token in re.findall(_TOKEN, text):
            for path in _candidates(token, workspace, root):
                found.setdefault(path)
                if len(found) >= _MAX_PATHS:
                    return list(found)
    return list(found)


def _strings(value: Any, depth: int = 0) -> list[str]:
    """The strings inside a tool call's arguments (nested lists and objects too, bounded)."""
    if isinstance(value, str):
        return [value[:_SCAN_CHARS // 10]]
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [s for item in list(value.values())[:100] for s in _strings(item, depth + 1)]
    if isinstance(value, list):
        return [s for item in value[:100] for s in _strings(item, depth + 1)]
    return []


def _candidates(token: str, workspace: Path, root: Path) -> list[str]:
    """What ``token`` names relative to ``root``, if it looks like a path."""
    token = token.lstrip("@").rstrip(".,:;!?")
    token = re.sub(_LINE_SUFFIX, "", token)
    if not token or "://" in token or len(token) > 1024:
        return []
    if "/" not in token and not re.match(_FILE_NAME, token):
        return []
    if token.startswith("~"):
        token = os.path.expanduser(token)
    out = []
    if os.path.isabs(token):
        bases = [Path(os.path.normpath(token))]
    else:
        plain = os.path.normpath(token).replace(os.sep, "/")
        if plain != "." and not plain.startswith("../"):
            out.append(plain)
        bases = [Path(os.path.normpath(workspace / token))] if workspace != root else []
    for base in bases:
        try:
            relative = base.relative_to(root).as_posix()
        except ValueError:
            continue
        if relative != "." and relative not in out:
            out.append(relative)
    return out
