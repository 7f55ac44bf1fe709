"""Slash-command templates: markdown files that become ``/commands``.

Folders, first one wins for a name: the project's ``.chatcli/commands/`` and
``.claude/commands/`` (from the workspace up to the repository's root, nearest first), then the
user's ``<config dir>/commands/`` and ``~/.claude/commands/``. ``review.md`` is ``/review``;
sub-folders give namespaced names: ``frontend/review.md`` is ``/frontend:review``.

Frontmatter (all optional): ``description`` (``/help``'s text; else the body's first line),
``argument-hint`` (``[file]``), ``model`` (``MODEL`` or ``PROVIDER/MODEL``: used for this
command's answer only) and ``allowed-tools`` (the only tools its answer may call). The body is
the prompt sent as the user's message, its arguments substituted (:mod:`chatcli_personas.expand`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import translation

__all__ = ["NAME_PATTERN", "Template", "find_templates", "template_folders"]

_, ngettext = translation(__name__)

#: A template's command name (``frontend:review``).
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(:[A-Za-z0-9][A-Za-z0-9_.-]*)*$")

#: Longest ``/help`` text kept.
MAX_HELP = 120


@dataclass(frozen=True)
class Template:
    """One command template."""

    name: str
    description: str
    body: str
    path: Path
    source: str
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] | None = None

    @property
    def help(self) -> str:
        """What ``/help`` says of it: description, argument hint, where it comes from."""
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        text = f"{self.description}{hint}".strip() or _("(command template)")
        if len(text) > MAX_HELP:
            text = text[: MAX_HELP - 1] + "…"
        return f"{text} ({self.source})"


def template_folders(workspace: Path, home: Path | None = None,
                     config: Path | None = None) -> list[tuple[str, Path]]:
    """``(source, folder)`` in precedence order: the project's, then the user's."""
    from chatcli_personas.catalog import project_folders

    if config is None:
        from chatcli import config_dir

        config = config_dir()
    home = home or Path.home()
    folders = [("project", folder) for folder in
               project_folders(workspace, ".chatcli/commands", ".claude/commands")]
    return [*folders, ("user", config / "commands"), ("user", home / ".claude" / "commands")]


def find_templates(folders: list[tuple[str, Path]],
                   warn: Callable[[str], None]) -> list[Template]:
    """Every template of ``folders``, the first of each name; problems go to ``warn``."""
    found: dict[str, Template] = {}
    for source, folder in folders:
        for path, name in _markdown_tree(folder):
            if name in found:
                continue
            template = _load(path, name, source, warn)
            if template is not None:
                found[name] = template
    return list(found.values())


def _markdown_tree(folder: Path) -> list[tuple[Path, str]]:
    """``(path, command name)`` of each ``*.md`` under ``folder`` (hidden entries skipped)."""
    found: list[tuple[Path, str]] = []
    if not folder.is_dir():
        return found
    for top, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            if file.endswith(".md") and not file.startswith(".") and file.lower() != "readme.md":
                path = Path(top) / file
                relative = path.relative_to(folder).with_suffix("")
                found.append((path, ":".join(relative.parts)))
    return found


def _load(path: Path, name: str, source: str, warn: Callable[[str], None]) -> Template | None:
    from chatcli_personas.frontmatter import as_list, as_text, parse

    if not NAME_PATTERN.match(name):
        warn(_("command template {path}: '/{name}' is not a command name (letters, digits, "
               "'-', '_', '.'; sub-folders give 'folder:name'); skipped").format(path=path,
                                                                                 name=name))
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        warn(_("command template {path}: cannot read it: {reason}").format(
            path=path, reason=err.strerror or err))
        return None
    document = parse(text)
    for problem in document.problems:
        warn(_("command template {path}: {problem}").format(path=path, problem=problem))
    if not document.body:
        warn(_("command template {path}: it has no body (the prompt to send); skipped").format(
            path=path))
        return None
    description = as_text(document.get("description"))
    if not description:
        description = next((line.strip("# ").strip() for line in document.body.splitlines()
                            if line.strip()), "")
    tools = document.get("allowed-tools", "tools")
    return Template(
        name=name, description=description, body=document.body, path=path, source=source,
        argument_hint=as_text(document.get("argument-hint")),
        model=as_text(document.get("model")) or None,
        allowed_tools=None if tools is None else tuple(as_list(tools)),
    )


def split_model(value: str, providers: Any) -> tuple[str | None, str]:
    """``openai/gpt-4.1`` → ``("openai", "gpt-4.1")`` when ``openai`` is in ``providers``;
    otherwise the whole value is the model (``anthropic/claude-3`` on OpenRouter)."""
    head, _, rest = value.partition("/")
    if rest and head in providers:
        return head, rest
    return None, value
