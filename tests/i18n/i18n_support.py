"""What tests/i18n share: the workspace's distributions and the finder of user-facing text that
is not marked for translation.

:func:`unmarked` reads a module's syntax tree and reports the string literals (and f-strings)
a user reads that no ``_()``/``ngettext()`` wraps:

- the message of an error made in the code (a call to a class named ``…Error``/``…Exception``,
  ``SystemExit`` and ``sys.exit``; Python's own ``ValueError``, ``KeyError``… are programming
  errors and left alone);
- what is printed: ``echo``, ``secho``, ``print``, ``prompt``, ``confirm``, ``ask``, ``pick``,
  a ``write`` to ``sys.stdout``/``sys.stderr``, an ``append`` to a list named ``out``,
  ``lines`` or ``output``, rich's ``Panel``, ``Table``, ``add_column``, ``Rule``, ``status``, a
  ``ProviderOption``'s description;
- the keywords ``help``, ``short_help``, ``epilog``, ``prompt``, ``description``, ``summary``,
  ``title``, ``hint`` in any call (click options, slash commands, settings' fields);
- module constants named like ``HELP``, ``USAGE``, ``HINT``, ``TITLE``, ``MESSAGE``;
- a click command's docstring used as its help (a command needs ``help=_(…)``).

Text without a word once placeholders, markup, code spans and options are taken out
(``f"{key} = {value}"``, ``"$ "``) is not a message. Text on a line holding ``# untranslated``
(with the reason after it: model-facing text, a protocol's words), or just below one, is left
alone, as is an f-string
inside ``_()`` never (it cannot be extracted: a placeholder and ``.format`` instead).
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from chatcli_catalogs import Distribution, distributions

WORKSPACE = Path(__file__).resolve().parents[2]
#: Distributions whose text no user reads: the test kit and the catalogs tool.
NOT_TRANSLATED = {"chatcli-testing", "chatcli-catalogs"}

_MARKERS = {"_", "gettext", "ngettext", "N_"}
_OUTPUT = {"echo", "secho", "print", "prompt", "confirm", "ask", "pick", "Panel", "Table",
           "add_column", "Rule", "status", "exit", "SystemExit", "ProviderOption"}
_KEYWORDS = {"help", "short_help", "epilog", "prompt", "description", "summary", "title", "hint"}
_CONSTANT = re.compile(r"(^|_)(HELP|USAGE|HINT|TITLE|MESSAGE)S?($|_)")
_BUILTIN_ERRORS = {name for name in dir(builtins) if name.endswith(("Error", "Exception"))}
_BUILTIN_ERRORS |= {"ValueError", "TypeError", "KeyError", "RuntimeError", "OSError",
                    "AssertionError", "NotImplementedError", "AttributeError", "IndexError",
                    "LookupError", "ImportError", "Exception", "BaseException"}
_NOT_WORDS = re.compile(r"\{[^{}]*\}|`[^`]*`|\[/?[a-z][^\]]*\]|(?<![\w}-])--?[a-zA-Z][\w-]*|"
                        r"https?://\S+|[A-Z_]{2,}=?\S*")


def translated_distributions() -> list[Distribution]:
    """The workspace's distributions whose users read their text."""
    return [d for d in distributions(WORKSPACE)
            if d.name not in NOT_TRANSLATED and d.root.parent.name != "plugin-template"]


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_text(node: ast.AST) -> bool:
    """A literal string, an f-string, or a sum of them, holding a word."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        words = _NOT_WORDS.sub(" ", node.value)
    elif isinstance(node, ast.JoinedStr):
        words = _NOT_WORDS.sub(" ", "".join(
            part.value if isinstance(part, ast.Constant) else " " for part in node.values))
    else:
        return False
    return re.search(r"[^\W\d_]{2,}", words) is not None


def _message_arguments(call: ast.Call) -> list[ast.expr]:
    """The arguments of ``call`` that carry a message to the user."""
    name, found = _name(call.func), []
    found.extend(k.value for k in call.keywords if k.arg in _KEYWORDS)
    error = (name.endswith(("Error", "Exception")) and name not in _BUILTIN_ERRORS)
    writes = isinstance(call.func, ast.Attribute) and (
        (name == "write" and _name(call.func.value) in ("stdout", "stderr"))
        or (name == "append" and _name(call.func.value) in ("out", "lines", "output")))
    logger = isinstance(call.func, ast.Attribute) and _name(call.func.value) in (
        "logger", "log", "logging", "_log", "_logger")
    if (error or writes or name in _OUTPUT) and not logger:
        found.extend(call.args)
        found.extend(k.value for k in call.keywords if k.arg in ("message", "fix"))
    return found


class _Finder(ast.NodeVisitor):
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.found: list[tuple[int, str]] = []

    def _report(self, node: ast.AST, why: str) -> None:
        lineno = getattr(node, "lineno", 0)
        end = getattr(node, "end_lineno", lineno) or lineno
        if not any("# untranslated" in self.lines[i - 1] for i in range(lineno - 1, end + 1)
                   if 0 < i <= len(self.lines)):
            self.found.append((lineno, why))

    def _check(self, node: ast.expr, why: str) -> None:
        if isinstance(node, ast.IfExp):
            self._check(node.body, why)
            self._check(node.orelse, why)
        elif _is_text(node):
            self._report(node, why)

    def visit_Call(self, node: ast.Call) -> None:
        name = _name(node.func)
        if name in _MARKERS and isinstance(node.func, ast.Name):
            for argument in node.args[:2 if name == "ngettext" else 1]:
                if isinstance(argument, ast.JoinedStr) or not (
                        isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
                    self._report(argument, f"{name}() of something not a plain literal")
        else:
            for argument in _message_arguments(node):
                self._check(argument, f"message of {name or 'a call'}()")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if any(_CONSTANT.search(n) for n in names):
            self._check(node.value, f"constant {names[0]}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            func = call.func if call else decorator
            if _name(func) in ("command", "group") and not (
                    call and any(k.arg == "help" for k in call.keywords)) and (
                    ast.get_docstring(node)):
                self._report(node, f"command {node.name}: help from its docstring "
                                   "(give help=_(...) instead)")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]


def unmarked(source: str) -> list[tuple[int, str]]:
    """``(line, why)`` for each user-facing text of the module ``source`` not marked."""
    finder = _Finder(source.splitlines())
    finder.visit(ast.parse(source))
    return sorted(finder.found)


def unmarked_in(dist: Distribution) -> list[str]:
    """Every unmarked user-facing text of ``dist``, as ``path:line: why``."""
    found = []
    for path in sorted(dist.package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found.extend(f"{path.relative_to(WORKSPACE)}:{line}: {why}"
                     for line, why in unmarked(text))
    return found
