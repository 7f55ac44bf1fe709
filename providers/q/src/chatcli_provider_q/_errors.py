"""The Q provider's failures as chatcli errors: one line each, naming the cause and the fix.

The CLI's own words come from what it wrote on stderr (cleaned of colours and spinners):
:func:`meaningful_line` picks the line that says what went wrong, :func:`exit_error` maps it
onto chatcli's taxonomy (so that a fallback chain knows whether to move on).
"""

from __future__ import annotations

import re

from chatcli import (
    AuthError,
    BadRequestError,
    ModelNotFoundError,
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StreamCutError,
    translation,
)

__all__ = [
    "INSTALL_URL",
    "QCrashError",
    "QEmptyAnswerError",
    "QExitError",
    "QNotInstalledError",
    "QTimeoutError",
    "QToolApprovalError",
    "exit_error",
    "meaningful_line",
]

#: Where Amazon's installation guide for the CLI is.
INSTALL_URL = "https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/command-line-installing.html"

_PROVIDER = "q"

_, ngettext = translation(__name__)


class QNotInstalledError(ProviderError):
    """The ``q`` executable is not on PATH (or the configured command does not exist)."""


class QExitError(ProviderError):
    """``q`` ended with a non-zero exit code for a reason chatcli does not know better."""


class QCrashError(StreamCutError):
    """``q`` died (signal, broken pipe) while it was answering."""


class QEmptyAnswerError(StreamCutError):
    """``q`` ended without an answer once its output was cleaned."""


class QTimeoutError(ProviderTimeoutError):
    """``q`` said nothing for the configured time; it was stopped (not retried: it was slow
    already)."""

    retryable = False


class QToolApprovalError(BadRequestError):
    """``q`` wanted to run a tool and waited for an approval nobody can give through chatcli."""


class _QuotaError(RateLimitError):
    """A monthly limit: waiting seconds does not help, so it is not retried."""

    retryable = False


_ERROR_WORDS = re.compile(r"\b(error|failed|failure|unable|cannot|can't|denied|invalid|expired)\b",
                          re.IGNORECASE)


def meaningful_line(stderr: str) -> str:
    """The stderr line that says what went wrong: the last one with an error word, else the
    last non-empty one; without ``error:`` prefixes, cut to 200 characters."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    chosen = next((line for line in reversed(lines) if _ERROR_WORDS.search(line)), lines[-1])
    chosen = re.sub(r"^(error|Error|ERROR)\s*:\s*", "", chosen)
    return chosen[:200]


def _has(text: str, *words: str) -> bool:
    low = text.lower()
    return any(word in low for word in words)


def exit_error(code: int, stderr: str, command: str = "q") -> ProviderError:
    """The error for ``q`` ending with exit ``code`` after writing ``stderr`` (cleaned)."""
    line = meaningful_line(stderr)
    said = f": {line}" if line else ""
    if code < 0:
        return QCrashError(_("q was killed by signal {signal}{detail}").format(
                               signal=-code, detail=said),
                           _("try again; if it keeps happening run `q doctor`"),
                           provider=_PROVIDER)
    if _has(stderr, "not logged in", "log in with", "please login", "login required",
            "token has expired", "sso session", "refresh token"):
        return AuthError(_("Amazon Q: you are not logged in"),
                         _("run `{command} login` in a terminal, then try again").format(
                             command=command),
                         provider=_PROVIDER)
    if _has(stderr, "tool approval required", "use --trust-all-tools"):
        return QToolApprovalError(
            _("Amazon Q wants to run a tool and needs an approval chatcli cannot give"),
            _("set `chatcli config set providers.q.trust_all_tools true` to let it run tools, "
              "or ask for an answer without tools"), provider=_PROVIDER)
    if _has(stderr, "monthly request limit", "monthly limit"):
        return _QuotaError(_("Amazon Q: the monthly request limit is reached{detail}").format(
                               detail=said),
                           _("wait until the limit resets, or upgrade the subscription "
                             "(`q chat`, then /subscribe)"), provider=_PROVIDER)
    if _has(stderr, "quota exceeded", "too many requests", "throttl", "rate limit"):
        return RateLimitError(_("Amazon Q is rate limited{detail}").format(detail=said),
                              _("wait a moment and try again"), provider=_PROVIDER)
    if re.search(r"model '.*' does not exist|unknown model|invalid model", stderr, re.IGNORECASE):
        return ModelNotFoundError(_("Amazon Q does not know that model{detail}").format(
                                      detail=said),
                                  _("pick one of q's models (`q chat`, then /model) or unset "
                                    "providers.q.model"), provider=_PROVIDER)
    if _has(stderr, "dispatch failure", "connection refused", "dns error", "network",
            "timed out connecting", "could not connect"):
        return NetworkError(_("Amazon Q cannot reach its service{detail}").format(detail=said),
                            _("check the network connection, then try again"),
                            provider=_PROVIDER)
    if _has(stderr, "trouble responding", "service unavailable", "internal server error",
            "temporarily unavailable", "overloaded"):
        return ServerError(_("Amazon Q's service failed{detail}").format(detail=said),
                           _("try again in a moment"), provider=_PROVIDER)
    return QExitError(_("q exited with code {code}{detail}").format(code=code, detail=said),
                      _("run `q chat` in a terminal to see what it needs, or `q doctor`"),
                      provider=_PROVIDER)
