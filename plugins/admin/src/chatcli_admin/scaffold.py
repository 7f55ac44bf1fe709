"""``chatcli plugins new``: render the plugin template into a new package folder.

The template is the repository's ``plugin-template/`` folder; the chatcli-admin wheel carries a
copy as ``chatcli_admin/_template`` (see ``plugins/admin/hatch_build.py``). Each kind (provider,
tool, command, skills) is a complete package whose file contents and file names hold
``{{placeholders}}``.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from chatcli import UsageError, __version__, translation

__all__ = [
    "KINDS",
    "find_template",
    "placeholders",
    "render_plugin",
    "validate_name",
]

_, ngettext = translation(__name__)

#: The kinds of plugin the template offers.
KINDS = ("provider", "tool", "command", "skills")

#: Distribution and import-package prefixes per kind (see DESIGN.md "Naming").
_PREFIXES = {
    "provider": "provider-",
    "tool": "",
    "command": "",
    "skills": "skills-",
}

_NAME_RULE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_MAX_NAME = 30
_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
#: Files and folders never copied out of the template (build and test leftovers).
_SKIP = {"__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", ".venv", "dist", "build"}


def find_template() -> Path:
    """The template folder: the installed ``chatcli_admin/_template``, else the repository's."""
    here = Path(__file__).resolve().parent  # the chatcli_admin package
    candidates = [here / "_template", here.parents[3] / "plugin-template"]
    for folder in candidates:
        if (folder / "tool").is_dir():
            return folder
    raise UsageError(
        _("the plugin template is not installed with chatcli-admin"),
        _("reinstall it: pip install --force-reinstall chatcli-admin"),
    )


def validate_name(name: str, kind: str) -> str:
    """The plugin's short name from ``name``, or :class:`UsageError` (one line) when unusable.

    Lowercase letters, digits and dashes, starting with a letter. A leading ``chatcli-`` (and the
    kind's own prefix, ``provider-`` or ``skills-``) is dropped: the distribution name adds it.
    """
    if kind not in KINDS:
        raise UsageError(_("unknown plugin kind '{kind}'").format(kind=kind),
                         _("use one of: {kinds}").format(kinds=", ".join(KINDS)))
    short = name.strip()
    for prefix in ("chatcli-", _PREFIXES[kind]):
        if prefix and _NAME_RULE.match(short.removeprefix(prefix)):
            short = short.removeprefix(prefix)
    if not _NAME_RULE.match(short) or len(short) > _MAX_NAME:
        shown = name if len(name) <= 60 and name.isprintable() else repr(name[:60])
        raise UsageError(
            _("invalid plugin name '{name}'").format(name=shown),
            _("use lowercase letters, digits and dashes, starting with a letter, at most "
              "{count} characters (e.g. 'weather' or 'my-tool')").format(count=_MAX_NAME),
        )
    return short


def placeholders(name: str, kind: str) -> dict[str, str]:
    """The placeholder values for plugin ``name`` of ``kind`` (see plugin-template/README.md)."""
    short = validate_name(name, kind)
    ident = short.replace("-", "_")
    distribution = f"chatcli-{_PREFIXES[kind]}{short}"
    return {
        "name": short,
        "ident": ident,
        "title": " ".join(word.capitalize() for word in short.split("-")),
        "distribution": distribution,
        "package": distribution.replace("-", "_"),
        "env": ident.upper(),
        "kernel_version": __version__,
        "kernel_range": f">={__version__},<{int(__version__.split('.')[0]) + 1}",
        "kind": kind,
    }


def _substitute(text: str, values: dict[str, str]) -> str:
    """Replace known ``{{key}}`` placeholders; unknown ones are left as they are."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _check_destination(dest: Path) -> None:
    """Refuse to write over anything: ``dest`` must not exist, or be an empty folder."""
    if dest.is_dir() and any(dest.iterdir()):
        raise UsageError(
            _("{path} already exists and is not empty").format(path=dest),
            _("choose another folder with --dir, or remove it"),
        )
    if dest.exists() and not dest.is_dir():
        raise UsageError(_("{path} already exists and is a file").format(path=dest),
                         _("choose another folder with --dir"))
    for parent in dest.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(_("{path} is a file, not a folder").format(path=parent),
                                 _("choose another --dir"))
            break


def _render_tree(source: Path, target: Path, values: dict[str, str]) -> None:
    """Copy ``source`` into the existing folder ``target``, substituting names and contents."""
    for entry in sorted(source.iterdir()):
        if entry.name in _SKIP or entry.suffix in (".pyc", ".pyo") or entry.is_symlink():
            continue
        out = target / _substitute(entry.name, values)
        if entry.is_dir():
            out.mkdir()
            _render_tree(entry, out, values)
            continue
        data = entry.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            out.write_bytes(data)  # binary files are copied as they are
        else:
            out.write_text(_substitute(text, values), encoding="utf-8", newline="")
        shutil.copymode(entry, out)


def render_plugin(name: str, kind: str, dest: Path | None = None) -> Path:
    """Create a new plugin package of ``kind`` named ``name``; returns its folder.

    :param name: the plugin's short name (``weather``); see :func:`validate_name`.
    :param kind: one of :data:`KINDS`.
    :param dest: where to create it, with ``cp -r`` semantics: an existing folder receives a new
        ``<distribution>`` sub-folder (``chatcli-weather``, ``chatcli-provider-weather``,
        ``chatcli-skills-weather``); a path that does not exist yet becomes the package folder.
        Default: the current directory.
    :raises UsageError: bad name or kind, the package folder exists and is not empty, ``dest``
        is a file, or the template is missing.

    The package is written to a temporary sibling folder and moved into place at the end, so a
    failure never leaves half a package behind.
    """
    values = placeholders(name, kind)
    source = find_template() / kind
    if not source.is_dir():
        raise UsageError(
            _("the plugin template has no '{kind}' kind").format(kind=kind),
            _("reinstall chatcli-admin: pip install --force-reinstall chatcli-admin"),
        )
    target = (Path.cwd() if dest is None else Path(dest)).expanduser().absolute()
    if target.is_dir():
        target = target / values["distribution"]
    _check_destination(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as err:
        raise UsageError(
            _("cannot create {path}: {reason}").format(path=target, reason=err.strerror or err),
            _("choose another folder with --dir"),
        ) from None
    try:
        _render_tree(source, staging, values)
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        if target.is_dir():
            target.rmdir()  # empty (checked above); replaced by the rendered folder
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
