"""Settings shown to a person with their secrets masked (``mask_secrets``).

``chatcli config list``/``get`` (chatcli-admin) and the REPL's ``/config`` show ``***`` for a
string under a name that looks like a secret — at any depth (``api_key``, ``token``,
``password``, ``secret``, ``credential``, ``auth``/``Authorization``, ``X-Api-Key``,
``GITHUB_TOKEN`` in an MCP server's ``env``…; a table under such a name is masked whole) — and
redact key-shaped text and URL passwords anywhere (``chatcli.redact``). Names of
things rather than secrets (``api_key_env``, ``…_file``, ``…_path``, ``…_command``) and numbers
(``max_tokens``) are shown.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MASK", "looks_secret", "mask_secrets"]

#: What a value is shown as when its name looks like a secret.
MASK = "***"

#: Names that look like they hold a secret (the rule chatcli-workspace applies to variables,
#: for TOML keys too: ``-`` and ``.`` separate words as ``_`` does) ...
_SECRET_NAME = (
    r"(?:^|[_\-.])(?:keys?|tokens?|secrets?|passwords?|pass|pat)$"
    r"|password|passwd|passphrase|secret|credential|cookie"
    r"|api[_\-]?key|access[_\-]?key|private[_\-]?key|auth(?!ors?(?:[_\-.]|$))"
)
#: ... unless they name where a secret is rather than hold it.
_NAMES_A_PLACE = r"[_\-.](?:env|var|variable|file|path|command|cmd|helper|url|names?)$"


def looks_secret(name: str) -> bool:
    """Whether a setting called ``name`` (one segment of a dotted key) holds a secret."""
    import re

    return bool(re.search(_SECRET_NAME, name, re.IGNORECASE)) and not re.search(
        _NAMES_A_PLACE, name, re.IGNORECASE)


def mask_secrets(value: Any, secret: bool = False) -> Any:
    """``value`` (a setting, a table of them, a list) with every string under a secret-looking
    name — ``api_key``, ``token``, ``password``, ``Authorization``, ``GITHUB_TOKEN``…, at any
    depth; all of it when ``secret`` — replaced by ``***``, and key-shaped text elsewhere
    redacted (``chatcli.redact``); numbers and booleans stay. For showing settings to a
    person."""
    from chatcli import redact

    if isinstance(value, dict):
        return {k: mask_secrets(v, secret or looks_secret(str(k))) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_secrets(v, secret) for v in value]
    if isinstance(value, str):
        return MASK if secret and value else redact(value)
    return value
