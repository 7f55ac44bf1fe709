"""The permission policy's command-line options: ``--allow`` and ``--permission-mode``.

The kernel's ``register_cli_options`` hook adds them to ``chatcli`` and ``chatcli -p``; their
values reach the session as :attr:`chatcli.SessionOptions.allow` and
:attr:`~chatcli.SessionOptions.permission_mode`. Light on purpose: ``chatcli --help`` calls the
hook, so this module imports only click (already loaded by then), and the policy module takes
:data:`MODES` from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    import click

__all__ = ["EFFECTS", "MODES", "RISK_CLASSES", "parse_allow", "register_cli_options"]

_, ngettext = translation(__name__)

#: The permission modes, mildest first.
MODES = ("default", "accept-edits", "plan", "auto")

#: What a permission rule does (``[permissions] deny/ask/allow``), the strongest first (here, not
#: in the rules module, so that a session without rules never imports that).
EFFECTS = ("deny", "ask", "allow")

#: What ``--allow`` accepts besides ``all`` and rules: the kernel's risk classes.
RISK_CLASSES = ("read", "write", "execute", "network")

#: ``--allow mcp__server`` / ``mcp__server__tool``: every tool of an MCP server, or one (the
#: bare tool names a rule may hold without a specifier on the command line).
#: Compiled (by ``re``'s cache) when an option names one, not at import.
_MCP_NAME = r"^mcp__[A-Za-z0-9_-]{1,59}$"


def _split_outside_parentheses(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth <= 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def parse_allow(_ctx: click.Context | None, _param: click.Parameter | None,
                values: tuple[str, ...] | None) -> frozenset[str]:
    """``--allow`` risk classes (``write,execute``, ``all``) and permission rules
    (``exec(npm test:*)``, ``edit(src/**)``, ``mcp__server``), comma-separated or repeated;
    anything else is a ``click.BadParameter``."""
    import click

    found: set[str] = set()
    for value in values or ():
        for part in _split_outside_parentheses(value):
            item = part.strip()
            if not item:
                continue
            if item.lower() == "all":
                found.update(RISK_CLASSES)
            elif item.lower() in RISK_CLASSES:
                found.add(item.lower())
            elif (("(" in item and item.endswith(")") and item.index("(") > 0)
                  or re.match(_MCP_NAME, item)):  # a rule; a bare mcp__server names its tools
                found.add(item)
            else:
                raise click.BadParameter(
                    _("'{item}' is neither a risk class ({classes}, all) nor a rule such as "
                      "'exec(npm test:*)' or 'mcp__server'").format(
                          item=item, classes=",".join(RISK_CLASSES)))
    return frozenset(found)


@hookimpl
def register_cli_options(register: Callable[[click.Option], None]) -> None:
    """``--allow WHAT`` and ``--permission-mode MODE``."""
    import click

    register(click.Option(
        ["--allow"], metavar="WHAT", multiple=True, callback=parse_allow,
        help=_("Pre-approve tool risk classes (read,write,execute,network or all) or rules "
               "such as 'exec(npm test:*)' or 'mcp__server'; repeatable.")))
    register(click.Option(
        ["--permission-mode"], type=click.Choice(MODES),
        help=_("How tool calls are allowed (with chatcli-agent): default, accept-edits, plan "
               "(read-only) or auto.")))
