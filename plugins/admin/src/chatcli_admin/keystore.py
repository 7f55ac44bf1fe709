"""Writing the API key file (``keys.toml``, 0600) for ``chatcli keys set|list|remove``.

The kernel finds and reads keys (:func:`chatcli.stored_keys`, the environment first); only
this plugin writes them. A key is never printed back: errors say what is wrong, not what was
given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import translation

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["key_file", "list_keys", "remove_key", "set_key"]

_, ngettext = translation(__name__)


def key_file() -> Path:
    """The file API keys are stored in: ``keys.toml`` in ``chatcli.config_dir()`` (0600), the
    file ``chatcli.stored_keys`` reads (a test keeps the two in step)."""
    from chatcli import config_dir

    return config_dir() / "keys.toml"


def _save(keys: dict[str, str]) -> None:
    import tomli_w
    from chatcli import ConfigError, atomic_write

    try:
        atomic_write(key_file(), tomli_w.dumps(dict(sorted(keys.items()))), mode=0o600)
    except OSError as err:
        raise ConfigError(
            _("{path}: cannot write the key file ({reason})").format(path=key_file(),
                                                                    reason=err.strerror),
            _("check the permissions of its folder, or point CHATCLI_CONFIG_DIR elsewhere"),
        ) from None


def set_key(provider: str, key: str) -> None:
    """Store ``key`` for ``provider`` in the key file (created 0600)."""
    from chatcli import ConfigError, stored_keys

    key = key.strip()
    if not key:
        raise ConfigError(_("empty key"), _("paste the key when asked, or pipe it on stdin"))
    if not key.isascii() or not all(c.isprintable() and not c.isspace() for c in key):
        # never echo it: say what is wrong, not what was given
        raise ConfigError(_("the key contains spaces, line breaks or non-ASCII characters"),
                          _("pass only the key itself, on one line"))
    keys = stored_keys()
    keys[provider] = key
    _save(keys)


def remove_key(provider: str) -> bool:
    """Forget the stored key of ``provider``; False when none was stored."""
    from chatcli import stored_keys

    keys = stored_keys()
    if provider not in keys:
        return False
    del keys[provider]
    _save(keys)
    return True


def list_keys() -> list[str]:
    """The providers that have a stored key (names only)."""
    from chatcli import stored_keys

    return sorted(stored_keys())
