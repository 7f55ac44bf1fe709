"""API keys: the environment first, then a 0600 file (``keys.toml`` in the config directory).

Keys are never printed back, logged, or stored anywhere else. A key found is checked before a
provider uses it (:func:`check_key`): bytes the system could not decode, spaces, line breaks,
control or non-ASCII characters cannot go in an HTTP header, so they are a configuration error
naming the variable (or the key file), not a provider's failure.
"""

from __future__ import annotations

import os
import stat

from chatcli._errors import ConfigError, register_secret
from chatcli._i18n import translation
from chatcli._paths import directory

__all__ = ["KEY_FILE", "check_key", "lookup_key", "stored_keys"]

#: The key file's name in :func:`chatcli.config_dir` (chatcli-admin writes it, 0600).
KEY_FILE = "keys.toml"
_, ngettext = translation(__name__)


def _key_path() -> str:
    return os.path.join(directory("config"), KEY_FILE)


def stored_keys() -> dict[str, str]:
    """The key file's keys by provider name (empty when there is none); a file others may read
    is made 0600 first. Raises :class:`~chatcli.ConfigError` naming the file (never quoting
    it) when it cannot be read. chatcli-admin's ``chatcli keys`` writes the file."""
    path = _key_path()  # text, not Path: looking a key up must not pay for pathlib
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return {}
    except OSError as err:  # e.g. CHATCLI_CONFIG_DIR names a file
        raise ConfigError(_("{path}: cannot read the key file ({reason})").format(
            path=path, reason=err.strerror), _("check CHATCLI_CONFIG_DIR and the folder's "
                                                "permissions")) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        os.chmod(path, 0o600)  # repair permissions before reading secrets
    import tomllib  # (not at start-up: most runs find no key file)

    try:
        with open(path, encoding="utf-8") as handle:
            data = tomllib.loads(handle.read())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as err:
        why = (_("nested too deeply") if isinstance(err, RecursionError) else
               _("not UTF-8") if isinstance(err, UnicodeDecodeError) else str(err))
        raise ConfigError(  # never quote the file: it holds secrets
            _("{path}: the key file is not valid TOML ({reason})").format(path=path, reason=why),
            _("fix it in an editor, or remove it and store the keys again with "
              "`chatcli keys set`")) from None
    except OSError as err:
        raise ConfigError(_("{path}: cannot read the key file ({reason})").format(
            path=path, reason=err.strerror),
            _("check its owner and permissions (it should be 0600 and yours)")) from None
    return {k: v for k, v in data.items() if isinstance(v, str)}


def lookup_key(provider: str, env_names: list[str]) -> tuple[str | None, str | None]:
    """Find ``provider``'s key: the first set variable in ``env_names``, else the key file.

    Returns ``(key, where)``; ``where`` is the variable's name or ``"keys.toml"``.
    """
    for name in env_names:
        value = os.environ.get(name)
        if value:
            register_secret(value)
            return value, name
    stored = stored_keys().get(provider)
    if stored:
        register_secret(stored)
        return stored, "keys.toml"
    return None, None


def check_key(key: str, where: str, provider: str) -> str:
    """``key`` (found in ``where``: a variable's name or ``keys.toml``) without the whitespace
    around it, once it is a key a provider can send: printable ASCII, no spaces inside.

    Raises :class:`ConfigError` naming ``where`` (never the key) otherwise.
    """
    stripped = key.strip()
    if stripped.isascii() and stripped.isprintable() and not any(c.isspace() for c in stripped):
        if stripped != key:
            register_secret(stripped)
        return stripped
    undecodable = any("\udc80" <= c <= "\udcff" for c in key)  # os.environ's surrogateescape
    what = (_("holds bytes that are not valid UTF-8") if undecodable else
            _("contains spaces, line breaks, control or non-ASCII characters"))
    if where == "keys.toml":
        raise ConfigError(_("{path}: the key of '{provider}' {problem}").format(
            path=_key_path(), provider=provider, problem=what),
            _("store it again with `chatcli keys set {provider}`").format(provider=provider))
    raise ConfigError(_("the API key in {where} {problem}").format(where=where, problem=what),
                      _("set {where} to the key alone, or unset it and run "
                        "`chatcli keys set {provider}`").format(where=where, provider=provider))
