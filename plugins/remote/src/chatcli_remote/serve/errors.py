"""The server's error bodies: ``{"error": {"type": …, "message": …}}``, one line naming the
cause and the fix, with known and key-shaped secrets redacted (``chatcli.redact``)."""

from __future__ import annotations

from chatcli import ChatcliError, redact
from starlette.responses import JSONResponse

__all__ = ["ApiError", "error_response", "one_line"]


def one_line(text: str) -> str:
    """``text`` on one line (as ``chatcli.error_line`` prints it), secrets redacted."""
    return redact(" ".join(str(text).split()))


class ApiError(Exception):
    """An answer other than success: its HTTP ``status``, a ``type`` name and a one-line
    ``message`` (cause — fix). Extra ``headers`` (``Retry-After``) go with the response."""

    def __init__(self, status: int, kind: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers or {}

    @classmethod
    def from_chatcli(cls, status: int, err: ChatcliError) -> ApiError:
        """A chatcli error (its ``str`` is the CLI's one line) answered with ``status``."""
        return cls(status, type(err).__name__, str(err))

    def response(self) -> JSONResponse:
        """The JSON response."""
        return error_response(self.status, self.kind, self.message, self.headers)


def error_response(status: int, kind: str, message: str,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": {"type": kind, "message": message}}`` with ``status`` (never cached)."""
    return JSONResponse({"error": {"type": kind, "message": one_line(message)}},
                        status_code=status,
                        headers={"Cache-Control": "no-store", **(headers or {})})
