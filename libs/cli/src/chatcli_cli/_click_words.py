"""click's own words (``Usage:``, ``Options``, ``Error: …``, ``No such command …``) in the
user's language.

click marks its messages for gettext (each of its modules does ``from gettext import gettext
as _``) but reads them from the process-wide default domain, which chatcli does not own and whose
language comes from the locale only. :func:`install` gives click's modules chatcli-cli's catalog
instead (in English too: its messages as written, where gettext's lookup looked for catalogs of
the locale's language on every message and imported :mod:`locale` for the first); :func:`messages`
lists click's messages so they are extracted into that catalog (tests/i18n holds the list to what
the installed click marks).
"""

from __future__ import annotations

import sys

from chatcli import translation

__all__ = ["install", "messages"]

_, ngettext = translation(__name__)

#: The click modules whose messages are shown to the user (its Windows console and editor
#: helpers are left out: chatcli never uses them).
_MODULES = ("core", "decorators", "exceptions", "formatting", "parser", "shell_completion",
            "termui", "types", "utils")


def install() -> None:
    """Make click's modules loaded so far read their messages from chatcli-cli's catalog, in
    the language chatcli speaks when a message is shown (so the language may still change)."""
    for name in _MODULES:
        module = sys.modules.get(f"click.{name}")
        if module is not None:
            module._ = _  # type: ignore[attr-defined]
            if hasattr(module, "ngettext"):
                module.ngettext = ngettext  # type: ignore[attr-defined]


def messages() -> list[str]:
    """click's messages, as click writes them (for extraction; never called at run time)."""
    return [
        _('Aborted!'),
        _('deprecated'),
        _('Options'),
        _('Positional arguments'),
        ngettext('Got unexpected extra argument ({args})',
                 'Got unexpected extra arguments ({args})', 2),
        _('DeprecationWarning: The command {name!r} is deprecated.{extra_message}'),
        _('Commands'),
        _('Missing command.'),
        _('Value must be an iterable.'),
        ngettext('Takes {nargs} values but 1 was given.',
                 'Takes {nargs} values but {len} were given.', 2),
        _('DeprecationWarning: The {param_type} {name!r} is deprecated.{extra_message}'),
        _("Name '{name}' defined twice"),
        _('Boolean option {decl!r} cannot use the same flag for true/false.'),
        _('Could not determine name for option with declarations {decls!r}'),
        _("No options defined but a name was passed ({name}). Did you mean to declare an "
          "argument instead? Did you mean to pass '--{name}'?"),
        _('env var: {var}'),
        _('default: {default}'),
        _('(dynamic)'),
        _('Arguments take exactly one parameter declaration, got {length}: {decls}.'),
        _('Do you want to continue?'),
        _('Confirm the action without prompting.'),
        _('%(prog)s, version %(version)s'),
        _('Show the version and exit.'),
        _('Show this message and exit.'),
        ngettext('Did you mean {possibility}?',
                 '(Did you mean one of: {possibilities}?)', 2),
        _('Error: {message}'),
        _("Try '{command} {option}' for help."),
        _('Invalid value: {message}'),
        _('Invalid value for {param_hint}: {message}'),
        _('Missing argument'),
        _('Missing option'),
        _('Missing parameter'),
        _('Missing {param_type}'),
        _('Missing parameter: {param_name}'),
        _('No such option {name!r}.'),
        _('No such command {name!r}.'),
        _('unknown error'),
        _('Could not open file {filename!r}: {message}'),
        _('Usage:'),
        _('Invalid start character for option ({option})'),
        _('Argument {name!r} takes {nargs} values.'),
        _('Option {name!r} does not take a value.'),
        ngettext('Option {name!r} requires an argument.',
                 'Option {name!r} requires {nargs} arguments.', 2),
        _('Shell completion is not supported for Bash versions older than 4.4.'),
        _("Couldn't detect Bash version, shell completion is not supported."),
        _('Repeat for confirmation'),
        _('Error: The two entered values do not match.'),
        _('Error: invalid input'),
        _('Unknown color {colour!r}'),
        _('Press any key to continue...'),
        _('Choose from:\n\t{choices}'),
        ngettext('{value!r} is not {choice}.',
                 '{value!r} is not one of {choices}.', 2),
        _('Choice({choices})'),
        ngettext('{value!r} does not match the format {format}.',
                 '{value!r} does not match the formats {formats}.', 2),
        _('{value!r} is not a valid {number_type}.'),
        _('{value} is not in the range {range}.'),
        _('{value!r} is not a valid boolean. Recognized values: {states}'),
        _('{value!r} is not a valid UUID.'),
        _('file'),
        _('directory'),
        _('path'),
        _('{name} {filename!r} does not exist.'),
        _('{name} {filename!r} is a file.'),
        _('{name} {filename!r} is a directory.'),
        _('{name} {filename!r} is not readable.'),
        _('{name} {filename!r} is not writable.'),
        _('{name} {filename!r} is not executable.'),
        ngettext('{len_type} values are required, but {len_value} was given.',
                 '{len_type} values are required, but {len_value} were given.', 2),
        _("Unknown standard stream '{name}'"),
    ]
