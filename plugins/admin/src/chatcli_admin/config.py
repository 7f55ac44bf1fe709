"""``chatcli config get|set|unset|path|list``: read and edit the TOML configuration.

Secrets are never printed unasked: ``config list``, ``config get`` and the echo of ``config set``
show ``***`` for a string under a name that looks like a secret — at any depth (``api_key``,
``token``, ``password``, ``secret``, ``credential``, ``auth``/``Authorization``, ``X-Api-Key``,
``GITHUB_TOKEN`` in an MCP server's ``env``…; a table under such a name is masked whole) — and
for key-shaped text and URL passwords anywhere (:func:`chatcli_workspace.mask_secrets`). Names
of things rather than secrets (``api_key_env``, ``…_file``, ``…_path``, ``…_command``) and
numbers (``max_tokens``) are shown. ``config get --reveal KEY`` prints a value as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from chatcli import load_settings, translation
from chatcli_workspace import mask_secrets

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["config_group", "format_value"]

_, ngettext = translation(__name__)

#: Setting names that would put a secret into config.toml (readable, often committed).
_SECRET_NAMES = frozenset({"api_key", "apikey", "token", "secret", "password"})


def _secret_key(key: str) -> bool:
    """Whether a part of the dotted ``key`` is a name that holds a secret."""
    return any(mask_secrets({part: "x"}) == {part: "***"} for part in key.split("."))


@click.group("config", help=_("Read and change settings (user file, or the project's "
                              ".chatcli/config.toml)."))
def config_group() -> None:
    """Read and change settings (user file, or the project's .chatcli/config.toml)."""


def format_value(value: Any) -> str:
    """A setting's value as the user would write it in TOML (strings bare, for scripts)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _target(project: bool) -> Path:
    from chatcli import project_config_path, user_config_path

    if not project:
        return user_config_path()
    from pathlib import Path

    return project_config_path() or Path.cwd() / ".chatcli" / "config.toml"


def _check_key(key: str) -> None:
    """Reject typos of top-level settings; dotted keys may name plugin tables."""
    from chatcli import ConfigError, Settings, unknown_setting

    if not key or any(not part for part in key.split(".")):
        raise ConfigError(
            _("invalid setting name '{key}'").format(key=key),
            _("use dotted names like providers.openai.model"),
        )
    top, last = key.split(".")[0], key.split(".")[-1].lower()
    if last in _SECRET_NAMES:
        provider = key.split(".")[1] if top == "providers" and key.count(".") >= 2 else "NAME"
        raise ConfigError(
            _("'{key}' would store a secret in plain text in the config file").format(key=key),
            _("store API keys with `chatcli keys set {provider}` (a 0600 file), or name the "
              "variable holding it: chatcli config set providers.{provider}.api_key_env VAR"
              ).format(provider=provider),
        )
    if "." not in key and top not in Settings.model_fields:
        raise unknown_setting(key)
    if top == "providers" and len(key.split(".")) < 3:
        raise ConfigError(_("'{key}' is a table").format(key=key),
                          _("set a key inside it, e.g. providers.openai.model"))


@config_group.command("get", help=_(
    "Print the effective value of KEY (e.g. model, providers.openai.base_url).\n\n"
    "A value whose name looks like a secret (api_key, token, password…) prints as *** unless "
    "--reveal is given."))
@click.argument("key")
@click.option("--reveal", is_flag=True,
              help=_("Print a secret as it is (by default it shows as ***)."))
def config_get(key: str, reveal: bool) -> int:
    """Print the effective value of KEY (e.g. model, providers.openai.base_url).

    A value whose name looks like a secret (api_key, token, password…) prints as *** unless
    --reveal is given.
    """
    from chatcli_config_edit import get_value

    value = get_value(load_settings(), key)
    click.echo(format_value(value if reveal else mask_secrets(value, _secret_key(key))))
    return 0


@config_group.command("set", context_settings={"ignore_unknown_options": True}, help=_(
    "Set KEY to VALUE (validated; numbers and true/false are read as TOML)."))
@click.argument("key")
@click.argument("value")
@click.option("--project", is_flag=True, help=_("Write the project's .chatcli/config.toml."))
def config_set(key: str, value: str, project: bool) -> int:
    """Set KEY to VALUE (validated; numbers and true/false are read as TOML)."""
    from chatcli_config_edit import set_value

    _check_key(key)
    path = _target(project)
    _check_managed(key, value, path)
    stored = set_value(path, key, value)
    click.echo(f"{key} = {format_value(mask_secrets(stored, _secret_key(key)))}  ({path})")
    if key == "language":
        from chatcli_admin.language import language_note

        note = language_note(str(stored), project)
        if note:
            click.echo(note)
    return 0


@config_group.command("unset", help=_(
    "Remove KEY from the configuration file (the default applies again)."))
@click.argument("key")
@click.option("--project", is_flag=True, help=_("Edit the project's .chatcli/config.toml."))
def config_unset(key: str, project: bool) -> int:
    """Remove KEY from the configuration file (the default applies again)."""
    from chatcli_config_edit import unset_value

    path = _target(project)
    if unset_value(path, key):
        click.echo(_("unset {key}  ({path})").format(key=key, path=path))
    else:
        click.echo(_("{key} was not set in {path}").format(key=key, path=path), err=True)
    return 0


@config_group.command("path", help=_("Print where the configuration file is."))
@click.option("--project", is_flag=True, help=_("Print the project file's path instead."))
def config_path(project: bool) -> int:
    """Print where the configuration file is."""
    click.echo(str(_target(project)))
    return 0


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            items.extend(_flatten(value, name + "."))
        elif not isinstance(value, dict):
            items.append((name, value))
    return items


def _check_managed(key: str, raw: str, path: Path) -> None:
    """Refuse (one line naming the managed file) a value that loosens a managed one."""
    from chatcli import check_managed, managed_policy

    if managed_policy() is None:
        return
    import tomllib

    try:  # as `config set` reads it: a TOML value, else text
        value: Any = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    data: dict[str, Any] = {}
    parts = key.split(".")
    cursor = data
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = value
    check_managed(_("chatcli config set {key} (for {path})").format(key=key, path=path), data)


def _managed_keys() -> tuple[str, list[str]] | None:
    """The managed file and the dotted keys it sets, or None."""
    from chatcli import managed_policy

    policy = managed_policy()
    return (policy[0], [key for key, _ in _flatten(policy[1])]) if policy else None


@config_group.command("list", help=_(
    "Print every effective setting as KEY = VALUE (unset ones are left out); a value the "
    "managed policy sets is marked `# managed (FILE)`.\n\n"
    "Secrets show as *** (names like api_key, token, password at any depth, and key-shaped "
    "values); `chatcli config get --reveal KEY` prints one."))
def config_list() -> int:
    """Print every effective setting as KEY = VALUE (unset ones are left out); a value the
    managed policy sets is marked `# managed (FILE)`.

    Secrets show as *** (names like api_key, token, password at any depth, and key-shaped
    values); `chatcli config get --reveal KEY` prints one.
    """
    settings = load_settings()
    managed = _managed_keys()
    for key, value in _flatten(mask_secrets(settings.model_dump(exclude_none=True))):
        mark = ""
        if managed and any(key == m or key.startswith(m + ".") for m in managed[1]):
            mark = _("  # managed ({file})").format(file=managed[0])
        click.echo(f"{key} = {format_value(value)}{mark}")
    return 0
