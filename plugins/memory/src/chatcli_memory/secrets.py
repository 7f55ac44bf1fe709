"""Keeping secrets out of memory.

:func:`redact_secrets` hides what :func:`chatcli.redact` knows (keys in use, key-shaped
strings, URL passwords, secret-named environment values) and the common shapes of keys and
credentials it does not: OpenAI/Anthropic ``sk-…``, GitHub ``ghp_…``/``github_pat_…``, AWS
``AKIA…``, Slack ``xox?-…``, Stripe, Google ``AIza…``, JWTs, private key blocks, bearer tokens,
and ``password: …`` / ``token=…`` pairs. The conversation is redacted before the extraction
model sees it, extracted items are redacted again, and ``memory add`` refuses text holding one
(:func:`find_secret`).
"""

from __future__ import annotations

import functools
import re

from chatcli import redact, translation

__all__ = ["MASK", "find_secret", "redact_secrets"]

_, ngettext = translation(__name__)

MASK = "***"

_SHAPES = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)"
    r"|\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"
    r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"
    r"|\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|\bAIza[A-Za-z0-9_\-]{30,}"
    r"|\bhf_[A-Za-z0-9]{30,}"
    r"|\bnpm_[A-Za-z0-9]{30,}"
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
)

_BEARER = r"(?i)\b(bearer|token|basic)(\s+)([A-Za-z0-9._~+/=\-]{12,})"

#: ``password: x``, ``api_key = "x"``, ``"secret": "x"``, ``PGPASSWORD=x`` (the name, then
#: the value up to the end of the word or the closing quote)
_PAIR = (
    r"""(?ix)
    (?P<name>\b[\w.\-]*(?:password|passwd|passphrase|pwd|secret|api[_\-]?key|apikey
        |access[_\-]?key|private[_\-]?key|auth[_\-]?token|access[_\-]?token|token
        |client[_\-]?secret|credentials?)\b["']?)
    (?P<sep>\s*(?:[:=]|\bis\b|\s)\s*)
    (?P<value>"[^"\n]+"|'[^'\n]+'|[^\s"',;]+)
    """
)

#: values after a secret's name that are words, not secrets ("the password is wrong")
_HARMLESS_WORDS = """
a an the is was are be been being not wrong correct incorrect missing required needed set
unset empty expired invalid valid changed reset stored saved here there in on of for from
to with and or but this that it its field fields prompt manager managers policy policies
rotation rotated length strength hash hashed hashing file files env variable variables
"""
_HARMLESS = frozenset(_HARMLESS_WORDS.split())


@functools.cache
def _compiled() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The three patterns, compiled on first use (not at import: a session that never writes
    to memory would pay a few ms of every start-up for them)."""
    return re.compile(_SHAPES, re.DOTALL), re.compile(_BEARER), re.compile(_PAIR)


def _pair(match: re.Match[str]) -> str:
    value, sep = match.group("value"), match.group("sep").strip()
    bare = value.strip("\"'")
    assigned = sep in (":", "=")
    if (bare.lower() in _HARMLESS or bare == MASK or MASK in bare
            or (not assigned and len(bare) < 3)
            or (not sep and not re.search(r"[\d_\-]", bare))):
        return match.group(0)
    quote = value[0] if value[0] in "\"'" else ""
    return f"{match.group('name')}{match.group('sep')}{quote}{MASK}{quote}"


def redact_secrets(text: str) -> str:
    """``text`` with every secret it holds replaced by ``***``."""
    if not text:
        return text
    shapes, bearer, pair = _compiled()
    text = redact(text)
    text = shapes.sub(MASK, text)
    text = bearer.sub(lambda m: m.group(0) if m.group(3).lower() in _HARMLESS
                       else f"{m.group(1)}{m.group(2)}{MASK}", text)
    return pair.sub(_pair, text)


def find_secret(text: str) -> str | None:
    """What kind of secret ``text`` holds (for a one-line refusal), or None."""
    if redact_secrets(text) == text:
        return None
    shapes, bearer, _pair_pattern = _compiled()
    if shapes.search(text) or redact(text) != text:
        return _("an API key or token")
    if bearer.search(text):
        return _("a bearer token")
    return _("a password or secret value")
