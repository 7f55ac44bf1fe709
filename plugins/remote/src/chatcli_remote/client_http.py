"""The client's HTTP: one ``httpx.Client`` per remote session, the token on every request, the
server's errors (``{"error": {"type", "message"}}``) as :class:`RemoteError` lines, and the
SSE streams of messages, commands and events read as :class:`~chatcli_remote.client_sse.SseEvent`.

The token is only ever sent in the ``Authorization`` header: no error, log or line printed here
holds it (it is registered as a secret, so :func:`chatcli.redact` hides it anywhere else too).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
from chatcli import ChatcliError, translation

from chatcli_remote.client_sse import SseEvent, decode, split_lines

__all__ = ["Connection", "RemoteAuthError", "RemoteBusy", "RemoteError", "RemoteUnreachable"]

_, ngettext = translation(__name__)

EXIT_USAGE = 2

#: Seconds to connect, and to wait for a JSON answer (an SSE stream waits as long as a turn).
CONNECT_TIMEOUT = 10.0
ANSWER_TIMEOUT = 60.0


class RemoteError(ChatcliError):
    """The server answered with an error: its one line (``status`` is the HTTP status). Usage
    errors (400, 404, 413: a bad request, an unknown session) exit with 2 like local ones."""

    def __init__(self, message: str, hint: str | None = None, *, status: int = 0,
                 kind: str = "") -> None:
        super().__init__(message, hint)
        self.status = status
        self.kind = kind
        if status in (400, 404, 413):
            self.exit_code = EXIT_USAGE


class RemoteAuthError(RemoteError):
    """The server refused the token (401/403): a configuration error, exit code 2."""

    exit_code = EXIT_USAGE


class RemoteBusy(RemoteError):
    """409: a turn already runs in the session (another client's), or a question was answered
    already."""


class RemoteUnreachable(ChatcliError):
    """The server could not be reached, or the connection broke."""


class Connection:
    """Requests to one ``chatcli serve`` server with one token."""

    def __init__(self, url: str, token: str, *, transport: httpx.BaseTransport | None = None
                 ) -> None:
        self.url = url.rstrip("/")
        self._client = httpx.Client(
            base_url=self.url, transport=transport,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=httpx.Timeout(ANSWER_TIMEOUT, connect=CONNECT_TIMEOUT),
            follow_redirects=False)

    def close(self) -> None:
        """Close the connections (the server's sessions go on)."""
        self._client.close()

    def request(self, method: str, path: str, body: dict[str, Any] | None = None,
                params: dict[str, str] | None = None) -> Any:
        """One request; returns the decoded JSON answer (None for 204). Raises
        :class:`RemoteError` for an error answer, :class:`RemoteUnreachable` when the server
        cannot be reached."""
        try:
            response = self._client.request(method, path, json=body, params=params)
        except httpx.HTTPError as err:
            raise self._unreachable(err) from None
        if response.status_code >= 400:
            raise self._error(response)
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise RemoteError(_("{url} answered {path} with something that is not JSON").format(
                url=self.url, path=path), _("is it a chatcli server (chatcli serve)?")) from None

    def stream(self, method: str, path: str, body: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None,
               params: dict[str, str] | None = None) -> Iterator[SseEvent]:
        """The events of an SSE answer, as they arrive (no read timeout: a turn waits for the
        model and for approvals). Errors as :meth:`request`; a stream the connection cut
        raises :class:`RemoteUnreachable` (its events so far were yielded)."""
        timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT)
        try:
            with self._client.stream(method, path, json=body, params=params,
                                     headers={"Accept": "text/event-stream", **(headers or {})},
                                     timeout=timeout) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._error(response)
                yield from decode(split_lines(response.iter_text()))
        except httpx.HTTPError as err:
            raise self._unreachable(err) from None

    def _unreachable(self, err: httpx.HTTPError) -> RemoteUnreachable:
        reason = " ".join(str(err).split())[:160] or type(err).__name__
        if "CERTIFICATE_VERIFY_FAILED" in reason:
            return RemoteUnreachable(
                _("the chatcli server at {url} has a certificate this machine does not trust "
                  "({reason})").format(url=self.url, reason=reason),
                _("for a self-signed one, set SSL_CERT_FILE to its PEM file"))
        if isinstance(err, httpx.ConnectError):
            return RemoteUnreachable(
                _("cannot reach the chatcli server at {url} ({reason})").format(url=self.url,
                                                                                reason=reason),
                _("is `chatcli serve` running there?"))
        return RemoteUnreachable(
            _("the connection to the chatcli server at {url} broke ({error}: {reason})").format(
                url=self.url, error=type(err).__name__, reason=reason))

    def _error(self, response: httpx.Response) -> RemoteError:
        status = response.status_code
        kind, message = "", ""
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            error = None
        if isinstance(error, dict):
            kind = str(error.get("type") or "")
            message = str(error.get("message") or "")
        elif isinstance(error, str):
            message = error
        if status in (401, 403):
            refused = (_("the chatcli server at {url} refused the token ({status}: {message})")
                       if message else
                       _("the chatcli server at {url} refused the token ({status})"))
            return RemoteAuthError(
                refused.format(url=self.url, status=status, message=message),
                _("set CHATCLI_REMOTE_TOKEN or `chatcli keys set remote --force` to a token of "
                  "that server (`chatcli serve token create` there makes one)"),
                status=status, kind=kind)
        line = " ".join(message.split()) or _("the chatcli server answered {status}").format(
            status=status)
        if status == 409:
            return RemoteBusy(line, status=status, kind=kind)
        return RemoteError(line, status=status, kind=kind)
