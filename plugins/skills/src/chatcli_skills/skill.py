"""One skill as loaded: its fields, body, files and fingerprint, and how it reads to the model.

:func:`load_skill` reads a folder leniently (real files are sloppy): a name that differs from its
folder, an over-long description, an unquoted colon — each is one warning and the skill loads;
a file without a description (or without readable frontmatter) is skipped with a message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from chatcli import translation
from chatcli_records_lite import dataclass

from chatcli_skills import spec

_, ngettext = translation(__name__)

__all__ = ["Loaded", "Skill", "list_files", "load_skill", "skill_file"]

#: Files of a skill listed with its body, at most.
MAX_FILES = 60
#: Folders a skill's files are never listed from.
_SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Skill:
    """A loaded skill."""

    name: str
    description: str
    #: the skill's folder and its SKILL.md
    folder: Path
    path: Path
    #: where it was found: "project", "user" or "package", and the source folder's label
    scope: str
    source: str
    body: str
    #: sha256 of SKILL.md's bytes (hex): editing the file changes it
    fingerprint: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    triggers: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    user_invocable: bool = True
    model_invocable: bool = True
    argument_hint: str | None = None
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()
    assets: tuple[str, ...] = ()
    others: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def short_fingerprint(self) -> str:
        return self.fingerprint[:16]

    @property
    def size(self) -> int:
        """Bytes of the body as injected."""
        return len(self.block().encode("utf-8"))

    def catalog_description(self) -> str:
        """The description as the catalog shows it: one line, at most 1,024 characters."""
        text = " ".join(self.description.split())
        return text if len(text) <= spec.MAX_DESCRIPTION else (
            text[:spec.MAX_DESCRIPTION - 1] + "…")

    def expanded_body(self, arguments: str | None = None) -> str:
        """The body with ``${CLAUDE_SKILL_DIR}`` (the folder) and, when ``arguments`` are given,
        ``$ARGUMENTS`` filled in."""
        body = self.body.strip()
        for variable in ("${CLAUDE_SKILL_DIR}", "${CHATCLI_SKILL_DIR}", "${SKILL_DIR}"):
            body = body.replace(variable, str(self.folder))
        if arguments is not None and "$ARGUMENTS" in body:
            body = body.replace("$ARGUMENTS", arguments)
        return body

    def takes_arguments(self) -> bool:
        """Whether the body has a ``$ARGUMENTS`` placeholder."""
        return "$ARGUMENTS" in self.body

    def block(self, arguments: str | None = None) -> str:
        """The skill's instructions as the model receives them: a ``<skill>`` block naming the
        skill, its fingerprint and location, its files, then the body. The same skill file
        (and arguments) always gives the same text, which is how a copy is found in the
        history."""
        lines = [f'<skill name="{self.name}" fingerprint="sha256:{self.short_fingerprint}" '
                 f'location="{self.path}">',
                 f"Base directory: {self.folder} (the files below are relative to it)"]
        if self.references:
            lines.append("References (read one when the instructions call for it, with the "
                         "read tool or context_pull {\"kind\": \"skill\", \"name\": "
                         f"\"{self.name}\", \"file\": \"<file>\"}}): "  # untranslated: model-facing
                         + ", ".join(self.references))
        if self.scripts:
            lines.append("Scripts (run them with the exec tool; the permission rules apply): "
                         + ", ".join(self.scripts))  # untranslated: model-facing
        if self.assets:
            lines.append("Assets: " + ", ".join(self.assets))  # untranslated: model-facing
        if self.others:
            lines.append("Other files: " + ", ".join(self.others))  # untranslated: model-facing
        lines += ["", self.expanded_body(arguments), "</skill>"]
        return "\n".join(lines)


@dataclass
class Loaded:
    """The outcome of loading one folder: a skill (with its warnings) or why it was skipped."""

    skill: Skill | None
    skipped: str | None = None


def skill_file(folder: Path) -> Path | None:
    """The folder's ``SKILL.md`` (``skill.md`` is accepted too), or None."""
    for name in ("SKILL.md", "skill.md"):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _words(value: Any) -> tuple[str, ...]:
    """A list of text, or text split at commas (``"a, b"``), as a tuple of stripped items."""
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, list):
        items = [str(item) for item in value if isinstance(item, (str, int, float))]
    else:
        return ()
    return tuple(dict.fromkeys(item.strip() for item in items if item.strip()))


def _tools(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list):
        return tuple(str(item) for item in value if isinstance(item, str))
    return ()


def list_files(folder: Path) -> dict[str, list[str]]:
    """The skill's files (SKILL.md aside) by kind, relative POSIX paths, sorted, bounded."""
    out: dict[str, list[str]] = {"references": [], "scripts": [], "assets": [], "others": []}
    count = 0
    stack = [folder]
    found: list[str] = []
    while stack and count < MAX_FILES:
        current = stack.pop()
        try:
            entries = sorted(current.iterdir(), key=lambda p: p.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
                continue
            if entry.is_dir():
                stack.append(entry)
            elif entry.is_file() and not (current == folder and entry.name.lower() == "skill.md"):
                found.append(entry.relative_to(folder).as_posix())
                count += 1
                if count >= MAX_FILES:
                    break
    for path in sorted(found):
        top = path.split("/", 1)[0] if "/" in path else ""
        out[top if top in ("references", "scripts", "assets") else "others"].append(path)
    return out


def _flag(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default


def load_skill(folder: Path, scope: str, source: str, data: bytes | None = None) -> Loaded:
    """Load the skill in ``folder`` leniently. ``data`` is SKILL.md's bytes when already read."""
    path = skill_file(folder)
    if path is None:
        return Loaded(None, _("{folder}: no SKILL.md; skipped").format(folder=folder))
    try:
        raw = data if data is not None else path.read_bytes()
    except OSError as err:
        return Loaded(None, _("{path}: cannot be read ({reason}); skipped").format(
            path=path, reason=err.strerror or err))
    from chatcli_skills.frontmatter import read_lenient  # (PyYAML) not for a cached skill

    text = raw.decode("utf-8", errors="replace")
    parsed = read_lenient(text)
    if parsed.fields is None:
        return Loaded(None, _("{path}: {problem}; skipped").format(path=path,
                                                                    problem=parsed.errors[0]))
    fields = parsed.fields
    warnings = [f"{path}: {w}" for w in parsed.warnings]
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        return Loaded(None, _("{path}: no description in the frontmatter; skipped (add "
                              "'description: what it does and when to use it')").format(
                                  path=path))
    name = fields.get("name")
    if not isinstance(name, str) or not name.strip():
        name = folder.name
        warnings.append(_("{path}: no name in the frontmatter; loaded as {name!r} (its folder)")
                        .format(path=path, name=name))
    elif not spec.valid_name(name.strip()):
        fallback = folder.name if spec.valid_name(folder.name) else _slug(name)
        warnings.append(_("{path}: name {name!r} is not 1-64 lowercase letters, digits and "
                          "single hyphens; loaded as {fallback!r}").format(
                              path=path, name=name.strip(), fallback=fallback))
        name = fallback
    else:
        name = name.strip()
        if name != folder.name:
            warnings.append(_("{path}: name {name!r} differs from its folder {folder!r}; "
                              "loaded as {name!r}").format(path=path, name=name,
                                                           folder=folder.name))
    if len(description) > spec.MAX_DESCRIPTION:
        warnings.append(_("{path}: description is {count:,} characters, over the limit of "
                          "{limit:,}; loaded (the catalog shows the first {limit:,})").format(
                              path=path, count=len(description), limit=spec.MAX_DESCRIPTION))
    compatibility = fields.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > spec.MAX_COMPATIBILITY:
        warnings.append(_("{path}: compatibility is {count:,} characters, over the limit of "
                          "{limit}; loaded").format(path=path, count=len(compatibility),
                                                    limit=spec.MAX_COMPATIBILITY))
    for key, kind in spec.EXTENSION_FIELDS.items():
        if key in fields and spec.extension_problems(key, kind, fields[key]):
            warnings.append(_("{path}: {problem}; ignored").format(
                path=path, problem=spec.extension_problems(key, kind, fields[key])[0]))
    files = list_files(folder)
    hint = fields.get("argument-hint")
    model = fields.get("model")
    skill = Skill(
        name=name, description=description.strip(), folder=folder, path=path, scope=scope,
        source=source, body=parsed.body, fingerprint=hashlib.sha256(raw).hexdigest(),
        fields=dict(fields), triggers=_words(fields.get("triggers")),
        paths=_words(fields.get("paths")),
        user_invocable=_flag(fields.get("user-invocable"), True),
        model_invocable=not _flag(fields.get("disable-model-invocation"), False),
        argument_hint=hint if isinstance(hint, str) and hint.strip() else None,
        model=model if isinstance(model, str) and model.strip() else None,
        allowed_tools=_tools(fields.get("allowed-tools")),
        references=tuple(files["references"]), scripts=tuple(files["scripts"]),
        assets=tuple(files["assets"]), others=tuple(files["others"]),
        warnings=tuple(warnings),
    )
    return Loaded(skill)


def _slug(text: str) -> str:
    """``text`` made into a valid name (lowercase, hyphens), or ``"skill"``."""
    import re

    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:spec.MAX_NAME].strip("-")
    return slug or "skill"
