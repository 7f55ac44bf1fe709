"""The ``context_pull`` kinds of this plugin: ``skills`` (the catalog with descriptions) and
``skill`` (one skill's full instructions and its list of files, or one of those files).

``context_pull`` itself belongs to chatcli-context; these kinds reach it through
``register_pull_kinds``. A fetch that cannot answer raises :class:`SkillPullError` with a
message the model can act on (the names it could use, the call to make).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli_skills.inject import pull_call

if TYPE_CHECKING:
    from chatcli_plugin_records import PullKind

    from chatcli_skills.skill import Skill
    from chatcli_skills.sources import Catalog

__all__ = ["SkillPullError", "fetch_catalog", "fetch_skill", "pull_kinds"]

#: Characters of a result kept for the page note.
_NOTE_ROOM = 300


class SkillPullError(LookupError):
    """A pull that cannot be answered; the message says what to do instead."""


def pull_kinds(catalog: Callable[[], Catalog], disabled: Callable[[], set[str]]
               ) -> list[PullKind]:
    """The kinds, reading the current catalog at each call."""
    from chatcli_plugin_records import PullKind

    return [
        PullKind("skills", "the installed skills: name, description, location, how each "
                           "activates", lambda arguments, context: fetch_catalog(
                               catalog(), disabled()), ""),
        PullKind("skill", "one skill's full instructions and the list of its files, or one "
                          "of its files", lambda arguments, context: fetch_skill(
                              catalog(), disabled(), arguments, context),
                 "name: the skill; file (optional): one of its files as listed; offset "
                 "(optional)"),
    ]


def fetch_catalog(catalog: Catalog, disabled: set[str]) -> str:
    """Every skill the model may use, with what activates it."""
    skills = catalog.visible(disabled)
    if not skills:
        return "No skills are installed (or every one is turned off)."
    lines = [f"{len(skills)} skill{'s' if len(skills) != 1 else ''}; load one with "
             f"context_pull {pull_call('<name>')}:"]
    for skill in skills:
        how = []
        if skill.triggers:
            how.append("triggers: " + ", ".join(skill.triggers))
        if skill.paths:
            how.append("paths: " + ", ".join(skill.paths))
        if skill.user_invocable:
            how.append(f"the user can run /{skill.name}")
        extra = f" [{'; '.join(how)}]" if how else ""
        lines.append(f"- {skill.name} ({skill.scope}): {skill.catalog_description()} "
                     f"(location: {skill.path}){extra}")  # untranslated: model-facing
    if catalog.untrusted:
        lines.append("Not active until the user trusts this project (/skills trust): "
                     + ", ".join(sorted(catalog.untrusted)))  # untranslated: model-facing
    return "\n".join(lines)


def _find(catalog: Catalog, disabled: set[str], name: str) -> Skill:
    skill = catalog.find(name)
    if skill is not None and skill.name not in disabled:
        if not skill.model_invocable:
            raise SkillPullError(
                f"skill {skill.name!r} is run by the user only (/skill {skill.name}); "
                "do not load it yourself")  # untranslated: model-facing
        return skill
    if name in catalog.untrusted:
        raise SkillPullError(
            f"skill {name!r} belongs to this project, which the user has not trusted; the user "
            "can trust it with /skills trust")  # untranslated: model-facing
    import difflib  # only to name what the model may have meant

    names = [s.name for s in catalog.visible(disabled)]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else (
        f"; the skills are: {', '.join(names)}" if names else "; no skill is installed")
    raise SkillPullError(f"no skill named {name!r}{hint}")  # untranslated: model-facing


def _offset(arguments: Mapping[str, Any]) -> int:
    value = arguments.get("offset")
    return value if isinstance(value, int) and value > 0 else 0


def _page(text: str, offset: int, limit: int, again: Callable[[int], str]) -> str:
    if offset and offset >= len(text):
        raise SkillPullError(f"offset {offset:,} is past the end ({len(text):,} characters); "
                             "call without offset to start at the beginning")  # untranslated: model
    chunk = text[offset:offset + limit]
    end = offset + len(chunk)
    if end < len(text):
        chunk += (f"\n\n[characters {offset:,}–{end:,} of {len(text):,}; the next page: "
                  f"context_pull {again(end)}]")
    return chunk


def fetch_skill(catalog: Catalog, disabled: set[str], arguments: Mapping[str, Any],
                context: Any) -> str:
    """A skill's block (what a turn would inject), or one of its files."""
    name = arguments.get("name")
    if not isinstance(name, str) or not name.strip():
        names = ", ".join(s.name for s in catalog.visible(disabled)) or "none is installed"
        raise SkillPullError(
            f"say which skill: {pull_call('<name>')} (the skills: {names})")  # untranslated: model
    skill = _find(catalog, disabled, name.strip())
    limit = max(1_000, int(getattr(context, "max_output", 60_000) or 60_000) - _NOTE_ROOM)
    file = arguments.get("file")
    if isinstance(file, str) and file.strip():
        path = _inside(skill, file.strip())
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as err:
            raise SkillPullError(
                f"{file}: cannot be read ({err.strerror or err})") from err  # untranslated: model
        relative = path.relative_to(skill.folder.resolve()).as_posix()
        return _page(text, _offset(arguments), limit,
                     lambda end: pull_call(skill.name, file=relative, offset=end))
    return _page(skill.block(), _offset(arguments), limit,
                 lambda end: pull_call(skill.name, offset=end))


def _inside(skill: Skill, file: str) -> Path:
    """``file`` of the skill, refusing anything outside its folder."""
    folder = skill.folder.resolve()
    path = (folder / file.lstrip("/")).resolve()
    if path != folder and folder not in path.parents:
        raise SkillPullError(
            f"{file!r} is outside skill {skill.name!r}'s folder")  # untranslated: model-facing
    if not path.is_file():
        import difflib

        listed = [*skill.references, *skill.scripts, *skill.assets, *skill.others]
        close = difflib.get_close_matches(file, listed, n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else (
            f"; its files: {', '.join(listed)}" if listed else "; it has no other files")
        raise SkillPullError(
            f"skill {skill.name!r} has no file {file!r}{hint}")  # untranslated: model-facing
    return path
