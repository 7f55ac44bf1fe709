"""Looking through wrappers: the command that really runs in ``sudo -u x timeout 5 npm test``.

:func:`expand` turns a parsed :class:`Script` into the commands that actually run: each wrapper
(``sudo``, ``doas``, ``env VAR=x``, ``nohup``, ``timeout 5``, ``nice``, ``xargs``, ``stdbuf``,
``time``, ``command``, ``exec``, ``flock``, ``watch``…) is replaced by the command it starts, which
remembers the wrappers it went through (``via``) and the command as written (``outer``); the
code strings of ``sh -c '…'``, ``bash -c``, ``su -c``, ``eval`` (static words), ``trap`` and a
static here-document fed to a shell are parsed in turn, and ``find … -exec CMD {} ;`` adds
``CMD``. A wrapper whose command is only known when it runs stays as it is, for the policy to
judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from chatcli import translation

from chatcli_agent._shell.parse import Redirect, Script, SimpleCommand, Word, parse

__all__ = ["SHELLS", "WRAPPERS", "Expanded", "expand", "shell_code"]

_, ngettext = translation(__name__)

#: Shells whose ``-c`` string (or static here-document) is parsed as a command line.
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "busybox"})

#: How deep ``sh -c "sh -c '…'"`` is followed (deeper asks).
MAX_NESTING = 8


@dataclass
class Expanded:
    """The commands a script really runs (wrappers looked through) and its redirections."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    functions: dict[str, list[SimpleCommand]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _skip_options(args: list[Word], with_value: set[str],
                  long_with_value: set[str] | frozenset[str] = frozenset(),
                  stop_at_first: bool = True) -> int:
    """Index of the first argument that is not an option (or its value)."""
    index = 0
    while index < len(args):
        word = args[index]
        text = word.value
        if text == "--":
            return index + 1
        if not text.startswith("-") or text == "-" or word.dynamic:
            return index
        if text.startswith("--"):
            name = text.split("=", 1)[0]
            index += 2 if (name in long_with_value and "=" not in text) else 1
            continue
        letters = text[1:]
        consumed = 1
        for position, letter in enumerate(letters):
            if f"-{letter}" in with_value:
                if position == len(letters) - 1:
                    consumed = 2  # the value is the next word
                break
        index += consumed
    return index


def _sudo(args: list[Word]) -> int | None:
    if any(w.value in ("-i", "-s", "--login", "--shell", "-v", "-l", "-k", "-K", "-e")
           for w in args[:1]):
        return None
    return _skip_options(args, {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"},
                         {"--user", "--group", "--chdir", "--prompt", "--role", "--type",
                          "--host", "--close-from", "--other-user", "--command-timeout"})


def _env(args: list[Word]) -> int | None:
    if any(w.value in ("-S", "--split-string") or w.value.startswith(("--split-string=", "-S"))
           or re.fullmatch(r"-[a-zA-Z]*S.*", w.value) for w in args if w.value.startswith("-")):
        return None  # `env -S 'cmd args'`: the command is one string (the policy asks)
    index = _skip_options(args, {"-u", "-C", "-S"}, {"--unset", "--chdir", "--split-string"})
    while index < len(args) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", args[index].value):
        index += 1
    return index


def _timeout(args: list[Word]) -> int | None:
    index = _skip_options(args, {"-s", "-k"}, {"--signal", "--kill-after"})
    return index + 1  # the duration


def _flock(args: list[Word]) -> int | None:
    if any(w.value in ("-c", "--command") for w in args):
        return None  # flock FILE -c 'cmd': handled as a code string
    index = _skip_options(args, {"-w", "-E", "--timeout"}, {"--timeout", "--conflict-exit-code"})
    return index + 1  # the lock file


def _xargs(args: list[Word]) -> int | None:
    return _skip_options(args, {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "-e", "-i",
                                "-l"},
                         {"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                          "--max-args", "--max-procs", "--max-chars", "--process-slot-var"})


def _command(args: list[Word]) -> int | None:
    if any(w.value in ("-v", "-V") for w in args[:2]):
        return None  # `command -v x` only looks x up
    return _skip_options(args, set())


#: wrapper name → where the wrapped command starts in its arguments (None: it runs none).
WRAPPERS: dict[str, Callable[[list[Word]], int | None]] = {
    "sudo": _sudo,
    "doas": lambda a: _skip_options(a, {"-u", "-C"}) if not any(
        w.value == "-s" for w in a[:1]) else None,
    "pkexec": lambda a: _skip_options(a, set(), {"--user"}),
    "run0": lambda a: _skip_options(a, {"-u", "-D"}, {"--user", "--chdir"}),
    "env": _env,
    "nohup": lambda a: 0,
    "setsid": lambda a: _skip_options(a, set()),
    "time": lambda a: _skip_options(a, {"-o", "-f"}, {"--output", "--format"}),
    "command": _command,
    "builtin": lambda a: 0,
    "exec": lambda a: _skip_options(a, {"-a"}),
    "stdbuf": lambda a: _skip_options(a, {"-i", "-o", "-e"}, {"--input", "--output", "--error"}),
    "unbuffer": lambda a: _skip_options(a, set()),
    "nice": lambda a: _skip_options(a, {"-n"}, {"--adjustment"}),
    "ionice": lambda a: _skip_options(a, {"-c", "-n", "-p", "-P", "-u"},
                                      {"--class", "--classdata"}),
    "chrt": lambda a: _skip_options(a, set()) + 1,
    "taskset": lambda a: _skip_options(a, set()) + (0 if any(
        w.value in ("-c", "--cpu-list") for w in a) else 1),
    "timeout": _timeout,
    "flock": _flock,
    "caffeinate": lambda a: _skip_options(a, {"-t", "-w"}),
    "xargs": _xargs,
}


def shell_code(command: SimpleCommand) -> tuple[str, Word | None] | None:
    """For a shell (``sh``/``bash``/… or ``su``, ``watch``, ``flock -c``, ``trap``, ``eval``):
    ``(label, code word)`` when it runs a code string; the word is None when the code comes from
    its standard input. None when it runs no code string (``bash script.sh``)."""
    program = command.program
    args = command.args
    if program in SHELLS:
        if program == "busybox":
            if not args or args[0].value not in SHELLS:
                return None
            args = args[1:]
        index = 0
        has_c = False
        while index < len(args):
            text = args[index].value
            if text == "--":
                index += 1
                break
            if text.startswith("--"):
                index += 1
                continue
            if (text.startswith("-") or text.startswith("+")) and len(text) > 1 and \
                    not args[index].dynamic:
                letters = text[1:]
                if "c" in letters:
                    has_c = True
                index += 2 if letters.endswith("o") else 1
                continue
            break
        if has_c:
            return (f"{program} -c", args[index] if index < len(args) else Word("", ""))
        if index >= len(args):
            return (program, None)  # reads its commands from stdin
        return None
    if program == "su":
        for position, word in enumerate(args):
            if word.value in ("-c", "--command") and position + 1 < len(args):
                return ("su -c", args[position + 1])
            if word.value.startswith("--command="):
                return ("su -c", Word(word.value.split("=", 1)[1], word.raw, word.dynamic))
        return None
    if program == "flock":
        for position, word in enumerate(args):
            if word.value in ("-c", "--command") and position + 1 < len(args):
                return ("flock -c", args[position + 1])
        return None
    if program in ("eval", "watch", "trap"):
        start = 0
        if program == "watch":
            start = _skip_options(args, {"-n", "-d", "-q"}, {"--interval", "--differences"})
            if any(w.value in ("-x", "--exec") for w in args[:start]):
                return None
        words = args[start:-1] if program == "trap" else args[start:]
        if program == "trap" and (len(args) < 2 or args[0].value.startswith("-")):
            return None
        if not words:
            return None
        joined = Word(" ".join(w.value for w in words), " ".join(w.raw for w in words),
                      any(w.dynamic for w in words))
        return (program, joined)
    return None


def _find_exec(command: SimpleCommand) -> list[list[Word]]:
    """The commands of ``find … -exec CMD … ;`` (and ``-execdir``, ``-ok``, ``-okdir``)."""
    found: list[list[Word]] = []
    args = command.args
    index = 0
    while index < len(args):
        if args[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end].value not in (";", "+"):
                end += 1
            words = [Word(w.value, w.raw, True) if "{}" in w.value else w
                     for w in args[index + 1:end]]
            if words:
                found.append(words)
            index = end
        index += 1
    return found


def expand(script: Script, home: str | None = None, depth: int = 0) -> Expanded:
    """The commands ``script`` runs, wrappers looked through (see the module docstring)."""
    out = Expanded(redirects=list(script.redirects), functions=dict(script.functions),
                   errors=list(script.errors))
    for command in script.commands:
        _add(command, out, home, depth)
    return out


def _add(command: SimpleCommand, out: Expanded, home: str | None, depth: int) -> None:
    program = command.program
    via = command.via
    outer = command.outer or command
    if program in WRAPPERS and not (program == "env" and len(command.words) == 1):
        start = WRAPPERS[program](command.args)
        if start is not None and start < len(command.args):
            inner_words = command.args[start:]
            assignments = list(command.assignments)
            if program == "env":
                for word in command.args[:start]:
                    match = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", word.value, re.S)
                    if match:
                        assignments.append((match.group(1), Word(match.group(2), word.raw,
                                                                 word.dynamic)))
            inner = replace(command, words=inner_words, assignments=assignments,
                            via=(*via, program), outer=outer)
            _add(inner, out, home, depth)
            return
    if program == "find":
        for words in _find_exec(command):
            _add(replace(command, words=words, via=(*via, "find -exec"), outer=outer,
                         redirects=[]), out, home, depth)
    code = shell_code(command)
    if code is not None:
        label, code_word = code
        text: str | None
        if code_word is None:
            text = command.heredoc if command.stdin == "heredoc" else None
        else:
            text = None if code_word.dynamic else code_word.value
        if text is not None:
            if depth >= MAX_NESTING:
                out.errors.append(_("the command nests shells too deeply to check"))
            else:
                inner_script = parse(text, home)
                for inner in inner_script.commands:
                    inner.via = (*via, label, *inner.via)
                    inner.outer = outer
                nested = expand(inner_script, home, depth + 1)
                out.commands.extend(nested.commands)
                out.redirects.extend(nested.redirects)
                out.functions.update(nested.functions)
                out.errors.extend(f"in `{label}`: {e}" for e in nested.errors)
                out.commands.append(replace(command, looked_through=True))
                return
    out.commands.append(command)
