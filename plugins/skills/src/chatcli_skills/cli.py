"""``chatcli skills list|show|validate|path``: the skills from the shell.

Imported only when one of these commands runs (the root command line names the group through
``LazyGroup``). The package sources come from the command line's own plugin host.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from chatcli import translation

__all__ = ["skills"]

_, ngettext = translation(__name__)


def _host() -> Any:
    """The plugin host of the running command line (None when run outside it)."""
    context = click.get_current_context(silent=True)
    state = context.find_root().obj if context is not None else None
    return getattr(state, "host", None)


def _core() -> Any:
    from chatcli import load_settings

    from chatcli_skills.core import Skills

    core = Skills()
    core.reset(_host(), load_settings(), Path.cwd().resolve())
    return core


def _catalog(core: Any, *, quiet: bool = False) -> Any:
    from chatcli_skills.sources import discover

    catalog = discover(core.ws(), core.package_sources(), trusted=core.trusted())
    if not quiet:
        for line in [*catalog.skipped, *catalog.warnings]:
            click.echo(_("skills: {problem}").format(problem=line), err=True)
    return catalog


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths,
                                                                          strict=True)).rstrip()
                     for row in rows)


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


@click.group("skills", help=_("Agent Skills (SKILL.md folders): list, show, validate them, "
                             "and where they live."))
def skills() -> None:
    """Agent Skills (SKILL.md folders): list, show, validate them, and where they live."""


@skills.command("list", help=_(
    "The skills found, which source each comes from, and its state (active, untrusted, "
    "disabled, pinned, user only); then the skills another one shadows."))
def list_command() -> int:
    """The skills found, which source each comes from, and its state (active, untrusted,
    disabled, pinned, user only); then the skills another one shadows."""
    core = _core()
    catalog = _catalog(core)
    options = core.options()
    pinned = {s.name for s in core.pinned(catalog, options)}
    rows = [[_("NAME"), _("SOURCE"), _("STATE"), _("DESCRIPTION")]]
    for skill in catalog.active():
        state = (_("disabled") if skill.name in options.disabled else _("pinned")
                 if skill.name in pinned else _("user only") if not skill.model_invocable
                 else _("active"))
        rows.append([skill.name, skill.source, state, _short(skill.catalog_description())])
    for name in sorted(catalog.untrusted):
        skill = catalog.untrusted[name]
        rows.append([name, skill.source, _("untrusted"), _short(skill.catalog_description())])
    if len(rows) == 1:
        click.echo(_("no skills found; `chatcli skills path` lists where they are looked for"))
        return 0
    click.echo(_table(rows))
    for shadowed, winner in catalog.shadowed:
        click.echo(_("shadowed: {name} in {folder} ({source}) by {winner} ({winner_source})")
                   .format(name=shadowed.name, folder=shadowed.folder, source=shadowed.source,
                           winner=winner.folder, winner_source=winner.source))
    if catalog.untrusted:
        click.echo(_("untrusted: the project's skills stay off until you trust it: "
                     "`chatcli trust`, or /skills trust in the chat"))
    return 0


@skills.command("show", help=_("A skill's fields, files and instructions."))
@click.argument("name")
def show_command(name: str) -> int:
    """A skill's fields, files and instructions."""
    from chatcli import UsageError

    core = _core()
    catalog = _catalog(core, quiet=True)
    skill = catalog.find(name) or catalog.untrusted.get(name)
    untrusted = skill is not None and skill is catalog.untrusted.get(skill.name)
    if skill is None:
        import difflib

        close = difflib.get_close_matches(name, [*catalog.skills, *catalog.untrusted], n=1)
        raise UsageError(_("no skill named {name!r}").format(name=name),
                         _("did you mean {name}?").format(name=close[0]) if close else
                         _("see `chatcli skills list`"))
    source = f"{skill.source} ({skill.scope})"
    lines = [_("name: {name}").format(name=skill.name),
             _("description: {text}").format(text=skill.description),
             _("location: {path}").format(path=skill.path),
             (_("source: {source} — untrusted, not active") if untrusted else
              _("source: {source}")).format(source=source),
             _("fingerprint: sha256:{digest}").format(digest=skill.fingerprint)]
    for label, values in ((_("triggers"), skill.triggers), (_("paths"), skill.paths),
                          ("allowed-tools", skill.allowed_tools),
                          (_("references"), skill.references), (_("scripts"), skill.scripts),
                          (_("assets"), skill.assets), (_("other files"), skill.others)):
        if values:
            lines.append(f"{label}: {', '.join(values)}")
    command = f"/{skill.name}" if skill.user_invocable else "/skill NAME"
    lines.append((_("invoked by: the model and the user ({command})") if skill.model_invocable
                  else _("invoked by: the user ({command})")).format(command=command))
    for key in ("license", "compatibility", "argument-hint", "model"):
        value = skill.fields.get(key)
        if isinstance(value, str) and value.strip():
            lines.append(f"{key}: {value.strip()}")
    for warning in skill.warnings:
        lines.append(_("warning: {warning}").format(warning=warning))
    click.echo("\n".join(lines))
    click.echo("")
    click.echo(skill.body.strip())
    return 0


@skills.command("validate", help=_(
    "Check skills strictly against the Agent Skills specification: a skill folder, its "
    "SKILL.md, or a folder of skills (default: every skill chatcli finds). Exit 1 on any "
    "problem."))
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--spec", "spec_only", is_flag=True,
              help=_("Only the specification's six fields are allowed (as skills-ref checks); "
                     "chatcli's extra fields (triggers, paths, …) are problems too."))
def validate_command(path: Path | None, spec_only: bool) -> int:
    """Check skills strictly against the Agent Skills specification: a skill folder, its
    SKILL.md, or a folder of skills (default: every skill chatcli finds). Exit 1 on any
    problem."""
    from chatcli import UsageError

    from chatcli_skills.validate import skill_folders, validate_all

    if path is not None:
        try:
            folders = skill_folders(path)
        except FileNotFoundError:
            raise UsageError(_("{path}: no such file or folder").format(path=path),
                             _("give a skill folder, its SKILL.md, or a folder of skills")
                             ) from None
        if not folders:
            raise UsageError(_("{path}: no skill folders in it").format(path=path),
                             _("give a skill folder, its SKILL.md, or a folder of skills"))
    else:
        core = _core()
        folders = []
        for source in _catalog(core, quiet=True).sources:
            if source.path.is_dir():
                folders += skill_folders(source.path)
    count, problems = validate_all(folders, spec_only=spec_only)
    for problem in problems:
        click.echo(problem)
    checked = ngettext("{count} skill checked", "{count} skills checked", count).format(
        count=count)
    if problems:
        click.echo(ngettext("{checked}: {count} problem", "{checked}: {count} problems",
                            len(problems)).format(checked=checked, count=len(problems)),
                   err=True)
        return 1
    click.echo(_("{checked}: no problems").format(checked=checked), err=True)
    return 0


@skills.command("path", help=_(
    "Where skills are looked for, in precedence order (the first one wins a name)."))
def path_command() -> int:
    """Where skills are looked for, in precedence order (the first one wins a name)."""
    core = _core()
    catalog = _catalog(core, quiet=True)
    counts: dict[Path, int] = {}
    for skill in [*catalog.skills.values(), *catalog.untrusted.values(),
                  *(s for s, _winner in catalog.shadowed)]:
        counts[skill.folder.parent] = counts.get(skill.folder.parent, 0) + 1
    rows = [[_("SCOPE"), _("FOLDER"), _("SKILLS")]]
    for source in catalog.sources:
        found = str(counts.get(source.path, 0)) if source.path.is_dir() else _("(missing)")
        rows.append([source.scope, str(source.path), found])
    click.echo(_table(rows))
    root = core.project()
    if root is not None:
        click.echo((_("project: {root} — trusted") if catalog.trusted else
                    _("project: {root} — not trusted (its skills stay off)")).format(root=root))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(skills())
