"""Shell command lines as data, for the permission policy and user-hook matching.

``parse(text)`` reads a command line with tree-sitter-bash into a :class:`Script`: every simple
command it runs (inside lists, pipelines, subshells, loops, functions, substitutions and
here-documents), with quote-removed words and redirections; ``expand(script)`` looks through
wrappers (``sudo``, ``env``, ``timeout``, ``xargs``, ``sh -c '…'`` …) to the commands that really
run. Neither ever raises: a command that cannot be read completely has ``errors``.
"""

from chatcli_agent._shell.args import (
    flag,
    git_subcommand,
    operands,
    option_values,
    positional,
    short_or_long,
)
from chatcli_agent._shell.parse import Redirect, Script, SimpleCommand, Word, expand_braces, parse
from chatcli_agent._shell.wrappers import SHELLS, WRAPPERS, Expanded, expand, shell_code

__all__ = [
    "SHELLS",
    "WRAPPERS",
    "Expanded",
    "Redirect",
    "Script",
    "SimpleCommand",
    "Word",
    "analyse",
    "expand",
    "expand_braces",
    "flag",
    "git_subcommand",
    "operands",
    "option_values",
    "parse",
    "positional",
    "shell_code",
    "short_or_long",
]


def analyse(text: str, home: str | None = None) -> Expanded:
    """``expand(parse(text))``: the commands ``text`` really runs."""
    return expand(parse(text, home), home)
