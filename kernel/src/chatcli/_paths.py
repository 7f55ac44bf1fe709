"""Where chatcli keeps its files (XDG base directories), and atomic writes.

``CHATCLI_CONFIG_DIR`` / ``CHATCLI_DATA_DIR`` / ``CHATCLI_CACHE_DIR`` override the locations
(tests use them); otherwise ``$XDG_CONFIG_HOME/chatcli``, ``$XDG_DATA_HOME/chatcli`` and
``$XDG_CACHE_HOME/chatcli``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import ...`: `chatcli --help` reads its cache here
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

__all__ = ["atomic_write", "cache_dir", "config_dir", "data_dir", "project_directory"]

#: kind → (override variable, XDG variable, fallback under the home folder)
_PLACES = {
    "config": ("CHATCLI_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
    "data": ("CHATCLI_DATA_DIR", "XDG_DATA_HOME", ".local/share"),
    "cache": ("CHATCLI_CACHE_DIR", "XDG_CACHE_HOME", ".cache"),
}


def directory(kind: str) -> str:
    """The folder of ``kind`` ("config", "data", "cache") as text (no pathlib: the start-up
    path uses it)."""
    override, xdg, fallback = _PLACES[kind]
    if os.environ.get(override):
        return os.path.expanduser(os.environ[override])
    root = os.environ.get(xdg) or os.path.join(os.path.expanduser("~"), fallback)
    return os.path.join(os.path.expanduser(root), "chatcli")


def config_dir() -> Path:
    """The user's chatcli configuration directory (may not exist yet)."""
    from pathlib import Path

    return Path(directory("config"))


def data_dir() -> Path:
    """The user's chatcli data directory: sessions, history, memory (may not exist yet)."""
    from pathlib import Path

    return Path(directory("data"))


def cache_dir() -> Path:
    """Where chatcli keeps files it can rebuild (the plugin list); may not exist yet."""
    from pathlib import Path

    return Path(directory("cache"))


def project_directory(start: str | None = None, marks: str = ".chatcli",
                      test: Callable[[str], bool] = os.path.isdir) -> str | None:
    """The nearest folder at or above ``start`` that holds a ``.chatcli`` folder (``marks``
    passing ``test``: ``".git", os.path.exists`` finds a repository), as text (no pathlib: the
    start-up path uses it). The home folder itself never counts: its ``.chatcli`` would be
    nobody's project."""
    folder = os.path.realpath(start or os.getcwd())
    home = os.path.realpath(os.path.expanduser("~"))
    while True:
        if folder != home and test(os.path.join(folder, marks)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def atomic_write(path: Path, data: str | bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so readers see the old or the new file, never a mix.

    The file is written next to its destination, flushed to disk, given ``mode`` (e.g. 0o600
    before any secret is written), then renamed over the target.
    """
    import contextlib
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
