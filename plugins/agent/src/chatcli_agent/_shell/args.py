"""Reading a simple command's arguments: options, operands, git's subcommand.

Options are recognised the way getopt reads them: short letters alone or bundled (``-rf``),
long names with or without ``=`` (and GNU's unambiguous prefixes where asked), ``--`` ending
the options.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chatcli_agent._shell.parse import SimpleCommand, Word

__all__ = ["flag", "git_subcommand", "operands", "option_values", "positional", "short_or_long"]


def _before_dashdash(args: list[Word]) -> list[Word]:
    for index, word in enumerate(args):
        if word.value == "--":
            return args[:index]
    return args


def flag(command: SimpleCommand, short: str = "", long: Iterable[str] = (),
         args: list[Word] | None = None) -> bool:
    """Whether the command has one of the short option letters in ``short`` (alone or combined:
    ``-rf``) or one of the ``long`` options (``--force``, ``--force=…``)."""
    words = _before_dashdash(command.args if args is None else args)
    longs = tuple(long)
    for word in words:
        text = word.value
        if text.startswith("--"):
            if any(text == name or text.startswith(name + "=") for name in longs):
                return True
        elif text.startswith("-") and len(text) > 1 and short:
            letters = text[1:]
            if re.fullmatch(r"[A-Za-z]+", letters) and any(c in letters for c in short):
                return True
    return False


def positional(command: SimpleCommand, args: list[Word] | None = None) -> list[Word]:
    """The arguments that are not options (everything after ``--`` counts)."""
    words = command.args if args is None else args
    out: list[Word] = []
    rest = False
    for word in words:
        if rest:
            out.append(word)
        elif word.value == "--":
            rest = True
        elif word.value.startswith("-") and word.value != "-" and not word.dynamic:
            continue
        else:
            out.append(word)
    return out


#: git's options that come before the subcommand and take a value.
_GIT_VALUE_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                      "--super-prefix", "--config-env"}


def git_subcommand(command: SimpleCommand) -> tuple[str, list[Word]]:
    """``git -C x push -f`` → ``("push", [-f])``."""
    args = command.args
    index = 0
    while index < len(args):
        text = args[index].value
        if text in _GIT_VALUE_OPTIONS:
            index += 2
            continue
        if text.startswith("-"):
            index += 1
            continue
        return text, args[index + 1:]
    return "", []


def short_or_long(command: SimpleCommand, letters: str, longs: tuple[str, ...],
                   value_letters: str) -> bool:
    """Whether the command has one of the short option ``letters`` (alone or in a bundle, up to
    a letter that takes a value: ``-nrokeep.txt`` has ``o``) or one of ``longs`` (``--x``,
    ``--x=…``, or a prefix GNU getopt accepts, ``--out``)."""
    for word in command.args:
        text = word.value
        if text == "--":
            break
        if text.startswith("--"):
            name = text.split("=", 1)[0]
            if len(name) > 2 and any(option.startswith(name) for option in longs):
                return True
        elif text.startswith("-") and len(text) > 1:
            for char in text[1:]:
                if char in letters:
                    return True
                if char in value_letters or not char.isalnum():
                    break
    return False


def operands(command: SimpleCommand, value_options: tuple[str, ...]) -> list[Word]:
    """The command's operands, skipping the values of ``value_options``."""
    out: list[Word] = []
    skip = False
    rest = False
    for word in command.args:
        text = word.value
        if skip:
            skip = False
        elif rest or text == "-" or not text.startswith("-") or word.dynamic:
            out.append(word)
        elif text == "--":
            rest = True
        elif text in value_options:
            skip = True
    return out


def option_values(command: SimpleCommand, short: str, long: tuple[str, ...],
                   takes_value: str, long_values: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The values given with the options ``short``/``long`` (``-e X``, ``-eX``, ``--x=X``) and
    the positional arguments (options in ``takes_value``/``long_values`` skip their value)."""
    values: list[str] = []
    rest: list[str] = []
    words = [w.value for w in command.args]
    index = 0
    while index < len(words):
        text = words[index]
        if text == "--":
            rest.extend(words[index + 1:])
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if name in long:
                if eq:
                    values.append(value)
                elif index + 1 < len(words):
                    values.append(words[index + 1])
                    index += 1
            elif name in long_values and not eq:
                index += 1
        elif text.startswith("-") and len(text) > 1:
            for position, letter in enumerate(text[1:], 1):
                if letter in short or letter in takes_value:
                    value = text[position + 1:]
                    if not value and index + 1 < len(words):
                        value = words[index + 1]
                        index += 1
                    if letter in short:
                        values.append(value)
                    break
        else:
            rest.append(text)
        index += 1
    return values, rest
