"""``chatcli config set language CODE``: the note that says when a variable decides chatcli's
language instead (the order is the kernel's: CHATCLI_LANG, LC_ALL, LC_MESSAGES, LANG, then the
``language`` setting)."""

from __future__ import annotations

import os
import re

from chatcli import translation

__all__ = ["deciding_variable", "language_note"]

_, ngettext = translation(__name__)

#: The variables that decide the language before the setting, in the kernel's order.
VARIABLES = ("CHATCLI_LANG", "LC_ALL", "LC_MESSAGES", "LANG")
#: A language code as the kernel reads one (``pt_BR``, ``pt-br``, ``de``); C and POSIX are none.
_CODE = re.compile(r"[a-zA-Z]{2,3}(?:[_-](?:[a-zA-Z]{2}|[0-9]{3}))?")


def _code(value: str) -> str:
    """``pt_BR.UTF-8`` → ``pt_br``; ``""`` for nothing, ``C`` and ``POSIX`` (which name none)."""
    code = value.split(".")[0].split("@")[0].strip()
    return code.replace("-", "_").lower() if _CODE.fullmatch(code) else ""


def deciding_variable() -> tuple[str, str] | None:
    """The variable (name, value) that decides the language before the setting, or None."""
    for name in VARIABLES:
        value = os.environ.get(name, "")
        if _code(value):
            return name, value
    return None


def language_note(code: str, project: bool = False) -> str | None:
    """One line when the ``language`` just set to ``code`` has no effect now: the variable that
    decides instead, and the fix; None when the setting decides (or the variable agrees). A
    project's file never decides it (chatcli's language is read before any project's
    settings, from the user's file alone)."""
    if project:
        return _("note: chatcli reads its language from the user settings only; run `chatcli "
                 "config set language {code}` without --project").format(code=code)
    found = deciding_variable()
    if found is None or _code(found[1]) == _code(code):
        return None
    name, value = found
    if name == "CHATCLI_LANG":
        return _("note: CHATCLI_LANG={value} decides chatcli's language; unset it to use the "
                 "setting").format(value=value)
    return _("note: {name}={value} decides chatcli's language; unset it or set "
             "CHATCLI_LANG={code}").format(name=name, value=value, code=code)
