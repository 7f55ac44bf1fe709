"""The error taxonomy.

Every failure a user can meet is a :class:`ChatcliError`: a one-line ``message`` naming the cause,
a ``hint`` naming the fix, and the process ``exit_code``. Providers translate their SDK's
exceptions into the :class:`ProviderError` subclasses so the rest of chatcli never sees an SDK type.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from chatcli._i18n import translation

if TYPE_CHECKING:
    from collections.abc import Iterable

    from chatcli._calls import FailedAttempt

__all__ = ["AuthError", "BadRequestError", "ChatcliError", "ConfigError", "ContextTooLongError",
           "ModelNotFoundError", "NetworkError", "ProviderError", "ProviderTimeoutError",
           "RateLimitError", "ServerError", "StreamCutError", "UsageError", "redact"]

_, ngettext = translation(__name__)

EXIT_PROVIDER = 1
EXIT_USAGE = 2


class ChatcliError(Exception):
    """Base of chatcli's errors: ``str(err)`` is one line with the cause and, if known, the fix."""

    exit_code: int = EXIT_PROVIDER

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = redact(message)
        self.hint = redact(hint) if hint else None

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


class ConfigError(ChatcliError):
    """A configuration file, variable or flag is invalid."""

    exit_code = EXIT_USAGE


class UsageError(ChatcliError):
    """The command line asks for something impossible (unknown provider, missing prompt…)."""

    exit_code = EXIT_USAGE


class ProviderError(ChatcliError):
    """A model service failed. ``retryable`` errors are retried with backoff before surfacing,
    after ``retry_after`` seconds when the server asked for a wait (429, 503)."""

    retryable: bool = False
    retry_after: float | None = None
    #: the entries a fallback chain or pool tried (or skipped) before this error ended the
    #: call: :class:`chatcli.FailedAttempt` records (empty for a provider that answers itself)
    failed: tuple[FailedAttempt, ...] = ()

    def __init__(self, message: str, hint: str | None = None, *, provider: str | None = None,
                 status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, hint)
        self.provider = provider
        self.status = status
        self.retry_after = retry_after

    @classmethod
    def unexpected(cls, what: str, err: BaseException, hint: str, provider: str
                   ) -> ProviderError:
        """A provider plugin's unexpected exception (a bug, an SDK error it does not map) as one
        line: ``WHAT: ErrorType: its message``, the message flattened and cut to 200 characters."""
        detail = " ".join(str(err).split())[:200]
        return cls(f"{what}: {type(err).__name__}" + (f": {detail}" if detail else ""), hint,
                   provider=provider)


class AuthError(ProviderError):
    """The API key is missing, wrong or lacks permission (401/403)."""


class RateLimitError(ProviderError):
    """Too many requests (429); ``retry_after`` is the server's requested wait in seconds."""

    retryable = True


class ServerError(ProviderError):
    """The service failed on its side (5xx, overloaded)."""

    retryable = True


class ProviderTimeoutError(ProviderError):
    """The service did not answer in time."""

    retryable = True


class NetworkError(ProviderError):
    """The service could not be reached (refused, DNS, TLS)."""

    retryable = True


class StreamCutError(ProviderError):
    """The answer stream ended early or carried data that could not be read."""


class ContextTooLongError(ProviderError):
    """The request exceeds the model's context window."""


class ModelNotFoundError(ProviderError):
    """The service does not know the requested model: a usage error (2), the user named it."""

    exit_code = EXIT_USAGE


class BadRequestError(ProviderError):
    """The service rejected the request as malformed (400/422)."""


def did_you_mean(word: str, choices: Iterable[str], otherwise: str) -> str:
    """The hint for an unknown ``word``: the closest of ``choices``, else ``otherwise``."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1)
    return _("did you mean '{name}'?").format(name=close[0]) if close else otherwise


# ------------------------------------------------------------------------------ Secret redaction

#: Key-shaped strings (compiled on first use, by ``re``'s cache: not at start-up).
_KEY_PATTERNS = (
    r"(sk-[A-Za-z0-9_\-]{8,}|xai-[A-Za-z0-9_\-]{8,}|gsk_[A-Za-z0-9_\-]{8,}"
    r"|AIza[A-Za-z0-9_\-]{20,}|(?i:bearer)\s+[A-Za-z0-9._\-]{8,})"
)
_secrets: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember ``value`` (an API key in use) so :func:`redact` hides it everywhere."""
    if value and len(value) >= 6:
        _secrets.add(value)


#: (the environment as last seen, the secret values it holds): redact runs for every streamed
#: event of a served session, and decoding every variable each time cost 0.2 ms a call
_env_seen: tuple[object, tuple[str, ...]] = ((), ())


def _env_secrets() -> tuple[str, ...]:
    """The values of the environment's ``*KEY*``, ``*TOKEN*`` and ``*SECRET*`` variables (8
    characters or more), read again whenever the environment changed."""
    global _env_seen
    raw = getattr(os.environ, "_data", None)  # CPython's encoded copy: a cheap exact snapshot
    snapshot: object = tuple(raw.items()) if isinstance(raw, dict) else None
    if snapshot is not None and snapshot == _env_seen[0]:
        return _env_seen[1]
    found = tuple(value for name, value in os.environ.items()
                  if value and len(value) >= 8
                  and ("KEY" in name or "TOKEN" in name or "SECRET" in name))
    if snapshot is not None:
        _env_seen = (snapshot, found)
    return found


def redact(text: str) -> str:
    """Return ``text`` with known API keys, key-shaped strings and the passwords of URLs
    (``http://user:***@host``) replaced by ``***``."""
    if len(text) < 6:  # shorter than anything redacted (a streamed token, mostly)
        return text
    for secret in _secrets:
        text = text.replace(secret, "***")
    for value in _env_secrets():
        text = text.replace(value, "***")
    # the password of a URL's userinfo (scheme://user:PASSWORD@host), up to its last "@"
    text = re.sub(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@\[\]]*:)[^\s/?#]+@", r"\1***@", text)
    return re.sub(_KEY_PATTERNS, "***", text)
