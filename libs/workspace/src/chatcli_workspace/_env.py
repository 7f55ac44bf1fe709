"""The environment of the programs chatcli starts for the model or the user's configuration
(shell commands, tests, user hooks, MCP stdio servers): chatcli's own, without secrets.

A variable is a secret when its name says so — it ends in ``_KEY``, ``_TOKEN``, ``_SECRET``,
``_PASSWORD``, ``_PASS`` or ``_PAT`` (or their plurals), or holds ``PASSWORD``, ``PASSWD``,
``SECRET``, ``CREDENTIAL``, ``API_KEY``/``APIKEY``, ``ACCESS_KEY``, ``PRIVATE_KEY`` or ``AUTH``
(``OAUTH``, ``AUTHORIZATION``, ``SSH_AUTH_SOCK``; not ``AUTHOR``) — when it is one of the
providers' and clouds' own variables (:data:`KNOWN_SECRETS`), when the caller names it
(the ``[providers.X] api_key_env`` variables), or when its value looks like one: a URL with a
password in it (``postgres://user:pw@host``) or a token in a well-known format (``sk-…``,
``ghp_…``, ``AKIA…``, ``xoxb-…``). The names the user passes (``[coder] pass_env``) are kept
whatever they look like.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from chatcli import translation

__all__ = ["KNOWN_SECRETS", "is_secret_variable", "pass_env_names", "scrubbed_env",
           "secret_names_in_settings"]
_, ngettext = translation(__name__)

#: Variables that hold keys or credentials though their names may not say so.
KNOWN_SECRETS = frozenset({
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY",
    "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY", "XAI_API_KEY", "ZAI_API_KEY", "MINIMAX_API_KEY",
    "MOONSHOT_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "GROQ_API_KEY",
    "MISTRAL_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY", "CEREBRAS_API_KEY",
    "PERPLEXITY_API_KEY", "PPLX_API_KEY", "VLLM_API_KEY", "OLLAMA_API_KEY", "CODEX_API_KEY",
    "COHERE_API_KEY", "CO_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
    "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITLAB_TOKEN", "NPM_TOKEN",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
    "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH",
    "ARM_CLIENT_SECRET", "DIGITALOCEAN_ACCESS_TOKEN", "CLOUDFLARE_API_TOKEN",
    "DATABASE_URL", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KRB5CCNAME",
})

_NAME = (
    r"(?:^|_)(?:KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASS|PAT)$"
    r"|PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY"
    r"|AUTH(?!ORS?(?:_|$))")

_VALUE = (
    r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"  # a URL with a password
    r"|^(?:sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}"
    r"|hf_[A-Za-z0-9]{30,})")


@functools.cache
def _compiled() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The secret name and value patterns and a valid variable name, compiled on first use: a
    ``-p`` run imports this module (through the package) and starts no command."""
    return (re.compile(_NAME, re.IGNORECASE), re.compile(_VALUE, re.IGNORECASE),
            re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z"))


def is_secret_variable(name: str, value: str = "", extra_names: Iterable[str] = ()) -> bool:
    """Whether the environment variable ``name`` (with ``value``) looks like it holds a
    secret; ``extra_names``: more names that do."""
    upper = name.upper()
    if upper in KNOWN_SECRETS or upper in {n.upper() for n in extra_names}:
        return True
    secret_name, secret_value, _valid = _compiled()
    return bool(secret_name.search(name)) or bool(value and secret_value.search(value))


def scrubbed_env(environ: Mapping[str, str] | None = None, *,
                 extra_secret_names: Iterable[str] = (),
                 pass_env: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` (default: chatcli's own environment) without the variables that look like
    secrets (see the module's docstring), except those named in ``pass_env``."""
    source = os.environ if environ is None else environ
    keep = set(pass_env)
    extra = tuple(extra_secret_names)
    return {name: value for name, value in source.items()
            if name in keep or not is_secret_variable(name, value, extra)}


def pass_env_names(value: Any, where: str = "[coder] pass_env") -> tuple[str, ...]:
    """``value`` checked as a list of environment variable names; ValueError naming
    ``where`` otherwise."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(_("{where} must be a list of environment variable names, such as "
                           "[\"NPM_TOKEN\"]").format(where=where))
    for name in value:
        if not _compiled()[2].match(name):
            raise ValueError(_("{where}: {name!r} is not an environment variable name (letters, "
                               "digits and '_', not starting with a digit)").format(
                where=where, name=name))
    return tuple(value)


def secret_names_in_settings(settings: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """From chatcli's settings: the variables the user named as API keys (every
    ``[providers.X] api_key_env``) and those passed to commands anyway (``[coder] pass_env``;
    a wrong value passes nothing). Duck-typed: ``settings.providers`` and
    ``settings.plugin_table``."""
    names: list[str] = []
    providers = getattr(settings, "providers", None) or {}
    for entry in (providers.values() if isinstance(providers, Mapping) else ()):
        name = getattr(entry, "api_key_env", None)
        if name is None and isinstance(entry, Mapping):
            name = entry.get("api_key_env")
        if isinstance(name, str) and name:
            names.append(name)
    passed: tuple[str, ...] = ()
    table = getattr(settings, "plugin_table", None)
    if callable(table):
        try:
            passed = pass_env_names(table("coder").get("pass_env"))
        except (ValueError, AttributeError, TypeError):
            passed = ()
    return tuple(names), passed
