"""Editing chatcli's TOML configuration files: ``chatcli config set|unset``, the REPL's
``/config set``, the permission rules an answer saves, ``chatcli mcp add``.

An edit changes only the key's line, so the file's comments and layout stay (the whole file is
written anew only when one line cannot give the expected data); every write is atomic. The
kernel validates the value (:func:`chatcli.validate_setting`: a value the setting does not take
is blamed on the value, a typo of a setting gets the closest name) and reads the file
(:func:`chatcli.read_toml`: a file that cannot be read is left exactly as it is).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import Settings

__all__ = ["get_value", "set_value", "unset_value"]

_, ngettext = translation(__name__)


def get_value(settings: Settings, key: str) -> Any:
    """The value at dotted ``key`` in the effective settings; raises ConfigError if absent."""
    from chatcli import ConfigError

    data: Any = settings.model_dump(exclude_none=False)
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            raise ConfigError(_("unknown setting '{key}'").format(key=key),
                              _("see `chatcli config list`"))
        data = data[part]
    return data


def set_value(path: Path, key: str, raw: str) -> Any:
    """Set dotted ``key`` to ``raw`` in the TOML file at ``path`` (validated, atomic); returns
    the value stored.

    ``raw`` is read as a TOML value (``9``, ``true``, ``["a"]``, ``"text"``) when the setting
    accepts that type, and as plain text otherwise. A value the setting does not take is blamed
    on the value; a file that cannot be read (bad syntax) is left as it is, naming the line.
    Only the key's line changes, so comments stay.
    """
    from chatcli import validate_setting

    data = _read_for_edit(path)
    value = validate_setting(data, key, raw, str(path))
    _write(path, _edited(path, key.split("."), value, data))
    return value


def unset_value(path: Path, key: str) -> bool:
    """Remove dotted ``key`` from the TOML file at ``path``; returns False if it was not set."""
    data = _read_for_edit(path)
    parts = key.split(".")
    cursor: Any = data
    for part in parts[:-1]:
        cursor = cursor.get(part) if isinstance(cursor, dict) else None
    if not isinstance(cursor, dict) or parts[-1] not in cursor:
        return False
    del cursor[parts[-1]]
    _write(path, _edited(path, parts, None, data))
    return True


def _read_for_edit(path: Path) -> dict[str, Any]:
    """The file ``config set``/``unset`` edits; one it cannot read is left exactly as it is."""
    from chatcli import ConfigError, read_toml

    try:
        return read_toml(path)
    except ConfigError as err:
        raise ConfigError(err.message, _("{hint}, then run the command again (the file was not "
                                         "changed)").format(hint=err.hint)) from None


def _write(path: Path, text: str) -> None:
    """Write a config file atomically; an unwritable place is a ConfigError, not a crash."""
    from chatcli import ConfigError, atomic_write

    try:
        atomic_write(path, text)
    except OSError as err:
        raise ConfigError(
            _("{path}: cannot write ({reason})").format(path=path, reason=err.strerror),
            _("check the permissions of its folder, or point CHATCLI_CONFIG_DIR elsewhere"),
        ) from None


_HEADER = re.compile(r"\s*\[([^\[\]'\"]+)\]\s*(?:#.*)?$")
_KEY_LINE = re.compile(r"(\s*)([A-Za-z0-9_-]+)\s*=")
_COMMENT = re.compile(r"\s+#[^\"']*$")


def _edit_line(text: str, parts: list[str], value: Any) -> str | None:
    """``text`` with only the line of the key at ``parts`` changed (set to ``value``, removed
    when None) or added, so the file's comments and layout stay; None when it cannot tell."""
    import tomli_w

    table, key = parts[:-1], parts[-1]
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    section: list[str] | None = []
    found = last = None  # the key's line; the last line of its table
    for index, line in enumerate(lines):
        header = _HEADER.match(line)
        if header or line.lstrip().startswith("["):
            section = [p.strip() for p in header.group(1).split(".")] if header else None
            if section == table:
                last = index
            continue
        match = _KEY_LINE.match(line)
        if section == table and match:
            last = index
            if match.group(2) == key:
                found = index
    if value is None:
        return None if found is None else "".join(lines[:found] + lines[found + 1:])
    dumped = tomli_w.dumps({key: value})
    if not dumped.startswith(f"{key} = ") or dumped.count("\n") != 1:
        return None  # a table, or a value over several lines: rewrite the whole file
    if found is not None:
        old = lines[found].rstrip("\n")
        comment = _COMMENT.search(old)
        indent = _KEY_LINE.match(old).group(1)  # type: ignore[union-attr]
        lines[found] = indent + dumped.rstrip("\n") + (comment.group(0) if comment else "") + "\n"
    elif last is not None:
        lines.insert(last + 1, dumped)
    elif not table:
        first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")),
                     len(lines))
        lines.insert(first, dumped)
    else:
        lines.append(("\n" if lines else "") + f"[{'.'.join(table)}]\n" + dumped)
    return "".join(lines)


def _edited(path: Path, parts: list[str], value: Any, expected: dict[str, Any]) -> str:
    """The new text of the config file at ``path``: one line edited when that gives exactly
    ``expected`` (the file's other lines and comments kept), else ``expected`` written anew."""
    import tomllib

    import tomli_w

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    new = _edit_line(text, parts, value)
    try:
        if new is not None and tomllib.loads(new) == expected:
            return new
    except tomllib.TOMLDecodeError:
        pass
    return tomli_w.dumps(expected)
