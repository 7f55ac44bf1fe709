"""Reading chatcli's TOML files: the user's configuration file and any TOML file as data, every
failure a :class:`~chatcli.ConfigError` naming the file and the fix. Below both the settings
layers (:mod:`chatcli._layers`) and workspace trust (:mod:`chatcli._trust`), which read the
same files."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from chatcli._errors import ConfigError
from chatcli._i18n import translation
from chatcli._paths import directory

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MAX_DEPTH", "read_toml", "toml_value", "user_config_path", "user_file"]

_, ngettext = translation(__name__)


def user_config_path() -> Path:
    """The user configuration file."""
    from pathlib import Path

    return Path(user_file())


def user_file() -> str:
    """The user configuration file, as text (no :mod:`pathlib` needed)."""
    return os.path.join(directory("config"), "config.toml")


#: Tables and arrays nested deeper than this are refused when read: no setting needs a tenth of
#: it, and deeper data would overflow the recursion of every reader and writer after it.
MAX_DEPTH = 64


def _too_deep(data: Any) -> bool:
    """Whether ``data`` nests tables or arrays more than :data:`MAX_DEPTH` levels (iterative)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items if isinstance(item, dict | list))
    return False


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file as data ({} when it does not exist); every failure is a ConfigError. A
    path that is not a regular file (a FIFO a repository planted would block the read) is one."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ConfigError(_("{path}: not a regular file").format(path=path),
                              _("replace it with a TOML file, or remove it"))
    except FileNotFoundError:
        return {}
    except OSError:
        pass  # open() below names the problem
    import tomllib  # (not at start-up: a run with no TOML file to read never needs it)

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as err:  # named by the file, line and column to fix
        text = str(err)
        where = re.search(r" \(at line (\d+), column (\d+)\)$", text)
        if where is None:
            raise ConfigError(_("{path}: invalid TOML ({reason})").format(path=path, reason=text),
                              _("fix it in an editor")) from None
        line, column = where.groups()
        raise ConfigError(_("{path}, line {line}, column {column}: invalid TOML: {reason}").format(
            path=path, line=line, column=column, reason=text[: where.start()]),
            _("fix line {line} of the file in an editor").format(line=line)) from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        data = None
    except UnicodeDecodeError as err:
        raise ConfigError(_("{path}: not UTF-8 text (byte 0x{byte:02x} at offset {offset})").format(
            path=path, byte=err.object[err.start], offset=err.start),
            _("save the file as UTF-8, or remove it")) from None
    except OSError as err:
        raise ConfigError(_("{path}: cannot read ({reason})").format(
            path=path, reason=err.strerror),
            _("make it a readable file (e.g. chmod 644 it), or remove it")) from None
    if data is None or _too_deep(data):
        raise ConfigError(_("{path}: tables or arrays nested more than {depth} levels deep").format(
            path=path, depth=MAX_DEPTH), _("flatten them in an editor"))
    return data


def toml_value(raw: str) -> Any:
    """Read ``raw`` as a TOML value when it is one (numbers, booleans, arrays), else a string."""
    import tomllib  # (not at start-up: a run that edits no setting never needs it)

    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
