"""A shell command as data: every simple command it runs, with its words and redirections.

The text is parsed with tree-sitter-bash into a syntax tree, and the tree is walked whole, so
that nothing a command runs is missed: lists (``&&``, ``||``, ``;``, ``&``), pipelines,
subshells, groups, ``if``/``for``/``while``/``case`` bodies, function bodies, command and
process substitution (also inside strings and ``${…}``), and here-documents. Words come back
with their quotes removed the way the shell removes them (``\\rm``, ``"r"m`` and ``$'\\x72m'``
are all ``rm``); a word whose value is only known when the command runs (``$VAR``, ``$(…)``)
is marked ``dynamic``.

Nothing here judges a command; :mod:`chatcli_agent.permissions` does.
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from chatcli import translation

__all__ = ["Redirect", "Script", "SimpleCommand", "Word", "expand_braces", "parse"]

_, ngettext = translation(__name__)

#: Longer commands are not parsed (the policy asks instead).
MAX_LENGTH = 100_000
#: Deeper nesting is not walked (the policy asks instead).
MAX_DEPTH = 120

_local = threading.local()


def _parser() -> Any:
    """One tree-sitter parser per thread (a parser is not thread-safe)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter
        import tree_sitter_bash

        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        _local.parser = parser
    return parser


@dataclass(frozen=True)
class Word:
    """One shell word.

    ``value`` is the word as the command receives it (quotes removed, escapes applied,
    ``$HOME``/``${HOME}`` replaced by ``home`` when given); a dynamic part stays as written.
    ``dynamic``: part of it is only known when the command runs. ``glob``: it holds unquoted
    ``*``, ``?`` or ``[`` (the shell expands it to matching file names). ``brace``: it holds an
    unquoted ``{a,b}`` or ``{1..3}``.
    """

    value: str
    raw: str
    dynamic: bool = False
    glob: bool = False
    brace: bool = False

    @property
    def static(self) -> bool:
        return not self.dynamic


@dataclass(frozen=True)
class Redirect:
    """A redirection: ``op`` (``>``, ``>>``, ``<``, ``&>``, ``>|``, ``>&``, ``<<``, ``<<<`` …)
    and its target (None for a here-document)."""

    op: str
    target: Word | None
    fd: str | None = None

    @property
    def writes(self) -> bool:
        return ">" in self.op and not (self.target is not None and self.op in (">&", "<&")
                                       and re.fullmatch(r"\d+|-", self.target.value))

    @property
    def reads(self) -> bool:
        return self.op in ("<", "<&") and not (
            self.target is not None and re.fullmatch(r"\d+|-", self.target.value))


@dataclass
class SimpleCommand:
    """One command the shell runs: its words (``words[0]`` the name), the variables set for it,
    and its own redirections (those written right after it).

    ``stdin``: what feeds its standard input besides a file: ``"pipe"`` (a pipeline stage
    before it), ``"heredoc"`` or ``"herestring"``; ``heredoc`` holds the here-document's text when
    it is static (a quoted delimiter, or no expansion in it). ``pipe_from`` lists the commands
    of the pipeline stages before it.
    """

    words: list[Word]
    assignments: list[tuple[str, Word]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    text: str = ""
    stdin: str | None = None
    heredoc: str | None = None
    pipe_from: list[SimpleCommand] = field(default_factory=list)
    #: how it was reached through wrappers (``sudo``, ``sh -c`` …), outermost first
    via: tuple[str, ...] = ()
    #: the command as written, when this one was found inside a wrapper (``timeout 5 npm test``)
    outer: SimpleCommand | None = None
    #: a shell or ``eval`` whose code string was parsed: its commands are listed on their own
    looked_through: bool = False

    @property
    def name(self) -> Word | None:
        return self.words[0] if self.words else None

    @property
    def args(self) -> list[Word]:
        return self.words[1:]

    @property
    def program(self) -> str:
        """The command's name without its folder (``/bin/rm`` → ``rm``); "" when unknown."""
        name = self.name
        if name is None or name.dynamic:
            return ""
        return name.value.rsplit("/", 1)[-1]

    def argv(self) -> list[str]:
        return [w.value for w in self.words]

    def normalized(self) -> str:
        """The words joined by single spaces: what permission rules match."""
        return " ".join(w.value for w in self.words)


@dataclass
class Script:
    """A parsed command line.

    ``commands``: every simple command, in source order, including those inside substitutions,
    function bodies and here-documents. ``redirects``: every redirection (also those applying to
    whole groups or loops). ``functions``: name → the commands of its body. ``errors``: why the
    text could not be read completely (a syntax error, too long, too deep); a script with
    errors is not to be trusted.
    """

    text: str
    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    functions: dict[str, list[SimpleCommand]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


# ------------------------------------------------------------------------------------ words

_DOUBLE_QUOTE_ESCAPES = {'"', "\\", "$", "`", "\n"}


def _unescape_unquoted(text: str) -> str:
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            if text[index + 1] != "\n":  # a line continuation disappears
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _unescape_double(text: str) -> str:
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in _DOUBLE_QUOTE_ESCAPES:
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _ansi_c(text: str) -> str:
    body = text[2:-1] if text.startswith("$'") and text.endswith("'") else text
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return body


def _has_unquoted_glob(text: str) -> bool:
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char in "*?[":
            return True
        index += 1
    return False


class _WordBuilder:
    def __init__(self, home: str | None) -> None:
        self.home = home
        self.parts: list[str] = []
        self.dynamic = False
        self.glob = False
        self.brace = False

    def add(self, node: Any, quoted: bool = False) -> None:
        kind = node.type
        text = _text(node)
        if kind in ("word", "number") or (not node.is_named and not quoted):
            if not quoted:
                self.glob = self.glob or _has_unquoted_glob(text)
                self.brace = self.brace or ("{" in text or "}" in text)
                self.parts.append(_unescape_unquoted(text))
            else:
                self.parts.append(text)
        elif kind == "raw_string":
            self.parts.append(text[1:-1] if len(text) >= 2 else text)
        elif kind == "ansi_c_string":
            self.parts.append(_ansi_c(text))
        elif kind in ("string", "translated_string"):
            for child in node.children:
                if child.type in ('"', "$"):
                    continue
                if child.type == "string_content":
                    self.parts.append(_unescape_double(_text(child)))
                else:
                    self.add(child, quoted=True)
        elif kind == "concatenation":
            for child in node.children:
                self.add(child, quoted)
        elif kind == "brace_expression":
            self.brace = True
            self.parts.append(text)
        elif kind in ("simple_expansion", "expansion") and self._home(node):
            self.parts.append(self.home or "")
        elif kind == "string_content":
            self.parts.append(_unescape_double(text))
        else:  # expansions, substitutions, arithmetic, anything unknown
            self.dynamic = True
            self.parts.append(text)

    def _home(self, node: Any) -> bool:
        """``$HOME`` / ``${HOME}`` (a known value)."""
        if self.home is None:
            return False
        names = [c for c in node.children if c.type == "variable_name"]
        others = [c for c in node.children if c.type not in ("variable_name", "$", "${", "}")]
        return len(names) == 1 and not others and _text(names[0]) == "HOME"

    def word(self, raw: str) -> Word:
        return Word("".join(self.parts), raw, self.dynamic, self.glob, self.brace)


def _text(node: Any) -> str:
    """The node's text, from the command as written (the parser saw :data:`_ASCII_ONLY`'s
    stand-in bytes)."""
    source: bytes | None = getattr(_local, "source", None)
    if source is None:
        text: bytes = node.text
        return text.decode("utf-8", "surrogateescape")
    return source[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape")


#: Every byte ≥ 0x80 becomes ``a`` for the parser. The shell treats such bytes as ordinary word
#: characters, as it treats ``a``, so the syntax is the same and byte offsets are kept; and
#: tree-sitter-bash 0.25 crashes the process (SIGSEGV) on some characters outside the BMP after
#: a ``{`` (``{`` + U+E2D7B), which no exception handler can catch.
_ASCII_ONLY = bytes(range(128)) + b"a" * 128


def expand_braces(value: str, limit: int = 64) -> list[str]:
    """``a{b,c}d`` → ``abd``, ``acd``; ``x{1..3}`` → ``x1``, ``x2``, ``x3`` (at most ``limit``)."""
    match = re.search(r"\{([^{}]*)\}", value)
    if match is None:
        return [value]
    inner = match.group(1)
    head, tail = value[: match.start()], value[match.end():]
    seq = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", inner)
    if seq:
        start, end = int(seq.group(1)), int(seq.group(2))
        step = 1 if end >= start else -1
        options = [str(n) for n in range(start, end + step, step)][:limit]
    elif "," in inner:
        options = inner.split(",")
    else:
        options = ["{" + inner + "}"]
        rest = expand_braces(tail, limit)
        return [head + options[0] + r for r in rest][:limit]
    out: list[str] = []
    for option in options:
        for expanded in expand_braces(head + option + tail, limit):
            out.append(expanded)
            if len(out) >= limit:
                return out
    return out


# ------------------------------------------------------------------------------------ walking


class _Walker:
    def __init__(self, script: Script, home: str | None) -> None:
        self.script = script
        self.home = home

    def word(self, node: Any) -> Word:
        builder = _WordBuilder(self.home)
        builder.add(node)
        word = builder.word(_text(node))
        if re.match(r"~[+-]\d*(/|$)", word.value) and re.match(r"~[+-]", word.raw):
            # ~+ is $PWD and ~- is $OLDPWD: only known when it runs
            return Word(word.value, word.raw, True, word.glob, word.brace)
        return word

    def walk(self, node: Any, depth: int = 0) -> list[SimpleCommand]:
        """Record everything under ``node``; returns its top-level simple commands (for the
        pipeline that contains it)."""
        if depth > MAX_DEPTH:
            self.error(_("the command is nested too deeply to check"))
            return []
        kind = node.type
        if node.is_missing:
            self.error(_("the command is incomplete (a missing '{kind}')").format(kind=kind))
            return []
        if kind == "ERROR":
            self.error(_("the command has a syntax error near '{text}'").format(
                text=_text(node)[:40]))
            return []
        if kind == "comment":
            return []
        if kind == "command":
            return [self.command(node, depth)]
        if kind == "pipeline":
            return self.pipeline(node, depth)
        if kind == "redirected_statement":
            return self.redirected(node, depth)
        if kind == "function_definition":
            return self.function(node, depth)
        if kind in ("variable_assignment", "variable_assignments"):
            return [self.assignment_only(node, depth)]
        if kind in ("declaration_command", "unset_command"):
            return [self.declaration(node, depth)]
        if kind in ("heredoc_redirect", "herestring_redirect", "file_redirect"):
            self.redirect(node, None, depth)
            return []
        found: list[SimpleCommand] = []
        for child in node.children:
            if child.is_named or child.is_missing or child.type == "ERROR":
                found.extend(self.walk(child, depth + 1))
        return found

    def error(self, text: str) -> None:
        if text not in self.script.errors:
            self.script.errors.append(text)

    def nested(self, node: Any, depth: int) -> None:
        """Walk the commands hidden inside a word (substitutions), the word itself included."""
        if depth > MAX_DEPTH:
            self.error(_("the command is nested too deeply to check"))
            return
        if node.type in ("command_substitution", "process_substitution"):
            for inner in node.children:
                if inner.is_named or inner.is_missing or inner.type == "ERROR":
                    self.walk(inner, depth + 1)
            return
        if node.type == "ERROR" or node.is_missing:
            self.walk(node, depth + 1)
            return
        for child in node.children:
            self.nested(child, depth + 1)

    def command(self, node: Any, depth: int) -> SimpleCommand:
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        redirects: list[Redirect] = []
        for index, child in enumerate(node.children):
            name = node.field_name_for_child(index)
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirects.extend(self.redirect(child, None, depth))
                continue
            elif child.type == "command_name":
                inner = child.children[0] if child.children else child
                words.append(self.word(inner) if child.children else self.word(child))
            elif child.type == "ERROR" or child.is_missing:
                self.walk(child, depth + 1)
                continue
            elif name == "argument" or child.is_named:
                words.append(self.word(child))
            elif child.type == "$":
                continue
            else:
                continue
            self.nested(child, depth)
        command = SimpleCommand(words, assignments, redirects, _text(node))
        self.script.commands.append(command)
        return command

    def _assignment(self, node: Any) -> tuple[str, Word]:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        return (_text(name) if name is not None else "",
                self.word(value) if value is not None else Word("", ""))

    def assignment_only(self, node: Any, depth: int) -> SimpleCommand:
        items = [node] if node.type == "variable_assignment" else [
            c for c in node.children if c.type == "variable_assignment"]
        assignments = [self._assignment(item) for item in items]
        for item in items:
            self.nested(item, depth)
        command = SimpleCommand([], assignments, [], _text(node))
        self.script.commands.append(command)
        return command

    def declaration(self, node: Any, depth: int) -> SimpleCommand:
        words = [Word(node.children[0].type, node.children[0].type)] if node.children else []
        assignments = []
        for child in node.children[1:]:
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                words.append(self.word(child))
            elif child.is_named:
                words.append(self.word(child))
            self.nested(child, depth)
        command = SimpleCommand(words, assignments, [], _text(node))
        self.script.commands.append(command)
        return command

    def redirect(self, node: Any, owner: SimpleCommand | None, depth: int) -> list[Redirect]:
        found: list[Redirect] = []
        kind = node.type
        op = next((_text(c) for c in node.children if not c.is_named), "")
        fd = next((_text(c) for c in node.children if c.type == "file_descriptor"), None)
        if kind == "file_redirect":
            target = node.child_by_field_name("destination")
            if target is None:
                named = [c for c in node.children if c.is_named and c.type != "file_descriptor"]
                target = named[-1] if named else None
            if target is None:
                self.error(_("a redirection without a target"))
            else:
                found.append(Redirect(op, self.word(target), fd))
                self.nested(node, depth)
        elif kind == "herestring_redirect":
            found.append(Redirect("<<<", None, fd))
            self.nested(node, depth)
        else:  # heredoc_redirect: its own nested redirects, and the body's substitutions
            found.append(Redirect(op or "<<", None, fd))
            nested: list[Redirect] = []
            for child in node.children:
                if child.type == "file_redirect":
                    nested.extend(self.redirect(child, owner, depth + 1))
                elif child.type == "heredoc_body":
                    self.nested(child, depth)
                elif child.type in ("pipeline", "list", "command", "redirected_statement"):
                    self.walk(child, depth + 1)  # `cat <<EOF | sh`: the rest of the line
            self.script.redirects.extend(found)
            return found + nested
        self.script.redirects.extend(found)
        return found

    def redirected(self, node: Any, depth: int) -> list[SimpleCommand]:
        body = node.child_by_field_name("body")
        commands = self.walk(body, depth + 1) if body is not None else []
        redirects: list[Redirect] = []
        heredoc: str | None = None
        stdin: str | None = None
        for child in node.children:
            if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirects.extend(self.redirect(child, None, depth))
                if child.type == "heredoc_redirect":
                    stdin = "heredoc"
                    heredoc = _heredoc_text(child)
                elif child.type == "herestring_redirect":
                    stdin = "herestring"
            elif child.type == "ERROR":
                self.walk(child, depth + 1)
        if len(commands) == 1 and body is not None and body.type == "command":
            commands[0].redirects.extend(redirects)
            if stdin is not None:
                commands[0].stdin = stdin
                commands[0].heredoc = heredoc
        return commands

    def pipeline(self, node: Any, depth: int) -> list[SimpleCommand]:
        stages: list[list[SimpleCommand]] = []
        for child in node.children:
            if child.is_named or child.is_missing or child.type == "ERROR":
                stages.append(self.walk(child, depth + 1))
        before: list[SimpleCommand] = []
        for stage in stages:
            for command in stage:
                if before:
                    command.pipe_from = list(before)
                    command.stdin = command.stdin or "pipe"
            before = before + stage
        return [c for stage in stages for c in stage]

    def function(self, node: Any, depth: int) -> list[SimpleCommand]:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        start = len(self.script.commands)
        if body is not None:
            self.walk(body, depth + 1)
        if name is not None:
            self.script.functions[_text(name)] = self.script.commands[start:]
        return []


def _heredoc_text(node: Any) -> str | None:
    """A here-document's text, when it is static: a quoted delimiter, or nothing to expand."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    quoted = start is not None and any(q in _text(start) for q in ("'", '"', "\\"))
    if not quoted and any(c.is_named and c.type != "heredoc_content" for c in body.children):
        return None
    return _text(body)


def parse(text: str, home: str | None = None) -> Script:
    """Parse ``text`` (a shell command line); never raises. ``home`` is what ``$HOME`` is."""
    script = Script(text)
    if len(text) > MAX_LENGTH:
        script.errors.append(_("the command is longer than {count:,} characters").format(
            count=MAX_LENGTH))
        return script
    if "\x00" in text:
        script.errors.append(_("the command holds a NUL character"))
        return script
    source = text.encode("utf-8", "surrogateescape")
    try:
        tree = _parser().parse(source.translate(_ASCII_ONLY))
    except Exception as err:
        script.errors.append(_("the command could not be parsed ({kind})").format(
            kind=type(err).__name__))
        return script
    if tree is None:
        script.errors.append(_("the command could not be parsed"))
        return script
    _local.source = source
    try:
        _Walker(script, home).walk(tree.root_node)
    except RecursionError:
        script.errors.append(_("the command is nested too deeply to check"))
    finally:
        _local.source = None
    if tree.root_node.has_error and not script.errors:
        script.errors.append(_("the command has a syntax error"))
    return script
