"""chatcli-cli: chatcli's command line, the front end of the kernel (a library).

- :mod:`chatcli_cli.main`: the ``chatcli`` console script (``python -m chatcli_cli`` too):
  ``--version`` and a cached ``--help`` before click loads, else :func:`chatcli_cli.root.run`.
- :mod:`chatcli_cli.root`: the root command (``-p``, ``--json``…), the sub-commands plugins add,
  and every failure as one line on stderr and an exit code.
- :class:`LazyGroup` and :class:`LazyCommand`: sub-commands whose code is imported only when they
  run, so ``chatcli --help`` lists them without importing them.
- :func:`one_line_errors`: a sub-command's chatcli errors as click's one-line ``Error: …``.
- :mod:`chatcli_cli.help_cache`: the root help page kept with the files it was made from,
  printed again without importing click while none of them changed.

Importing this package imports nothing (click included) until a name is used: the console script
and the help cache run before click is loaded.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: the help cache imports this package first
if TYPE_CHECKING:
    from chatcli_cli._errors import one_line_errors
    from chatcli_cli._lazy import LazyCommand, LazyGroup

__all__ = ["LazyCommand", "LazyGroup", "one_line_errors"]
__version__ = "2.1.0"


def __getattr__(name: str) -> object:
    if name == "one_line_errors":
        from chatcli_cli import _errors

        return _errors.one_line_errors
    if name in __all__:
        from chatcli_cli import _lazy

        return getattr(_lazy, name)
    raise AttributeError(f"module 'chatcli_cli' has no attribute {name!r}")
