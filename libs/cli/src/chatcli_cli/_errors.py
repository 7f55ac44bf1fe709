"""One-line errors for plugins' sub-commands."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click
from chatcli import ChatcliError

__all__ = ["one_line_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def one_line_errors(func: F) -> F:
    """Decorate a sub-command's callback: a :class:`chatcli.ChatcliError` it raises becomes
    click's one-line ``Error: …`` with the error's exit code (2 for usage errors, else 1)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ChatcliError as err:
            exc = click.ClickException(str(err))
            # click declares exit_code a ClassVar, yet reads it from the instance it catches
            exc.exit_code = getattr(err, "exit_code", 1)  # type: ignore[misc]
            raise exc from None

    return wrapper  # type: ignore[return-value]
