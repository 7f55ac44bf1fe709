"""The words of ``chatcli serve``'s web page (web/index.html and web/app.js), in the server's
language: ``GET /words.json`` gives the page ``{english: translated}`` and the page shows the
translation of each English text it knows (the English itself when one is missing).

Keep this list equal to the page's texts: the English keys are what index.html's
``data-words…`` attributes and app.js's ``t("…")`` calls say, ``{name}`` placeholders included.
"""

from __future__ import annotations

from chatcli import translation

__all__ = ["page_language", "web_words"]

_, ngettext = translation(__name__)


def page_language() -> str:
    """The language tag (BCP 47: ``en``, ``pt-BR``) of the page's words, sent as
    ``Content-Language``: the page puts it in ``<html lang>`` and chooses plural forms by it."""
    # not a word of the page: this translation's own language tag (BCP 47, e.g. pt-BR)
    return _("en")


def web_words() -> dict[str, str]:
    """Every user-facing text of the page: its English → the server's language (made at call
    time, so a language read again is seen)."""
    return {
        # index.html
        "Forget token": _("Forget token"),
        "Server token": _("Server token"),
        "Made with {command}. Kept in this tab only (sessionStorage), sent as {header}.":
            _("Made with {command}. Kept in this tab only (sessionStorage), sent as {header}."),
        "Connect": _("Connect"),
        "Sessions": _("Sessions"),
        "New session": _("New session"),
        "Refresh": _("Refresh"),
        "No session open": _("No session open"),
        "Message, or /command — Enter sends, Shift+Enter is a new line":
            _("Message, or /command — Enter sends, Shift+Enter is a new line"),
        "Send": _("Send"),
        "Cancel": _("Cancel"),
        # app.js: the server and the token
        "The server refused the token (expired or revoked?).":
            _("The server refused the token (expired or revoked?)."),
        "Cannot reach the server: {error}": _("Cannot reach the server: {error}"),
        "connected": _("connected"),
        "reconnecting…": _("reconnecting…"),
        # app.js: sessions and turns
        "This session is gone.": _("This session is gone."),
        # a count's two forms (English and Portuguese have two; the page picks one with
        # Intl.PluralRules for the Content-Language)
        "{count} message": ngettext("{count} message", "{count} messages", 1),
        "{count} messages": ngettext("{count} message", "{count} messages", 2),
        "running": _("running"),
        "live": _("live"),
        "working…": _("working…"),
        "done": _("done"),
        "retrying in {delay}s: {reason}": _("retrying in {delay}s: {reason}"),
        "history changed: {reason}": _("history changed: {reason}"),
        "the history could not be reloaded: {error}":
            _("the history could not be reloaded: {error}"),
        "{input} in, {output} out": _("{input} in, {output} out"),
        # app.js: tools
        "arguments": _("arguments"),
        "result": _("result"),
        "failed": _("failed"),
        # app.js: approvals and menus
        "allow {tool}?": _("allow {tool}?"),
        "{label}: allow {tool}?": _("{label}: allow {tool}?"),
        "Allow once": _("Allow once"),
        "This session": _("This session"),
        "Always": _("Always"),
        "No": _("No"),
        "choose": _("choose"),
        "answered": _("answered"),
        "allowed": _("allowed"),
        "denied": _("denied"),
        "dismissed": _("dismissed"),
        "chosen": _("chosen"),
        "{what} by {name}": _("{what} by {name}"),
    }
