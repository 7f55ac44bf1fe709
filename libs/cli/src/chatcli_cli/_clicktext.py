"""click's own words in the user's language: ``Usage:``, ``Options``, ``Commands``, the help
and version options' help, the usage errors it finds.

click marks them with the standard library's :mod:`gettext`, which knows no catalog of
chatcli's; :func:`speak_the_user_language` points each click module's ``_`` and ``ngettext``
at this distribution's catalog, which holds the messages of :data:`CLICK_MESSAGES` (any other
stays as click wrote it). Every ``chatcli`` command's page, a plugin's too, uses them.
"""

from __future__ import annotations

import sys

from chatcli import translation

__all__ = ["CLICK_MESSAGES", "speak_the_user_language"]

_, ngettext = translation(__name__)


def N_(message: str) -> str:
    """Mark ``message`` (click's) for the catalog; click translates it when it shows it."""
    return message


#: The messages of click's that the catalog translates, as click writes them.
CLICK_MESSAGES = (
    N_("Usage:"), N_("Options"), N_("Commands"), N_("Show this message and exit."),
    N_("Show the version and exit."), N_("Missing command."), N_("Aborted!"),
    N_("No such command {name!r}."), N_("No such option {name!r}."),
    N_("Missing argument"), N_("Missing option"), N_("Missing parameter: {param_name}"),
    N_("Invalid value for {param_hint}: {message}"), N_("Invalid value: {message}"),
    N_("Option {name!r} does not take a value."), N_("Try '{command} {option}' for help."),
    N_("Error: {message}"), N_("default: {default}"), N_("env var: {var}"),
)


def _plural_marks() -> None:  # (never called: marks click's plural messages for the catalog)
    ngettext("Option {name!r} requires an argument.",
             "Option {name!r} requires {nargs} arguments.", 1)
    ngettext("Got unexpected extra argument ({args})",
             "Got unexpected extra arguments ({args})", 1)


def speak_the_user_language() -> None:
    """Point click's modules at this distribution's catalog (once; English stays as it is)."""
    for name in ("core", "decorators", "exceptions", "formatting", "parser", "types"):
        module = sys.modules.get(f"click.{name}")
        if module is None:
            continue
        if getattr(module, "_", None) is not None:
            module._ = _  # type: ignore[attr-defined]
        if getattr(module, "ngettext", None) is not None:
            module.ngettext = ngettext  # type: ignore[attr-defined]
