"""``chatcli --remote URL``: the chat and ``chatcli -p`` against a ``chatcli serve`` server.

``--remote`` (chatcli-remote's option) makes a :class:`RemoteTarget`; chatcli-repl and
chatcli-print find it in ``options.extra["remote"]`` and open their session through
:meth:`RemoteTarget.session` instead of ``chatcli.Session``. The :class:`RemoteSession` it gives
answers what they use of a session, while the model, the tools and the conversation are the
server's (:mod:`chatcli_remote.client_session`).

The token comes from ``CHATCLI_REMOTE_TOKEN``, else from chatcli's key file under the name
``remote`` (``chatcli keys set remote --force``). It travels in the ``Authorization`` header,
so plain ``http://`` is accepted only to this machine (a loopback address); anywhere else the
URL must be ``https://``.
"""

from __future__ import annotations

import ipaddress
import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from chatcli import ConfigError, UsageError, register_secret, translation

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import PluginHost, Retrying, SessionOptions, Settings

    from chatcli_remote.client_session import RemoteSession

__all__ = ["TOKEN_ENV", "TOKEN_KEY", "RemoteTarget", "check_url"]

_, ngettext = translation(__name__)

#: The variable holding the token, and the key file's name for it.
TOKEN_ENV = "CHATCLI_REMOTE_TOKEN"
TOKEN_KEY = "remote"


def _loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> str:
    """``url`` without a trailing slash, once it is one a token may be sent to: ``https://``
    anywhere, ``http://`` only to a loopback address. Raises :class:`chatcli.UsageError`."""
    text = url.strip()
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(_("--remote needs a server's URL, such as http://127.0.0.1:8765 or "
                           "https://chat.example.com (got {url!r})").format(url=text[:80]))
    if parts.username or parts.password:
        raise UsageError(_("--remote takes no user or password in the URL"),
                         _("the token comes from {variable} or `chatcli keys set remote --force`"
                           ).format(variable=TOKEN_ENV))
    if parts.query or parts.fragment:
        raise UsageError(_("--remote takes the server's address without ?query or #fragment"))
    if scheme == "http" and not _loopback(parts.hostname):
        raise UsageError(
            _("--remote {url}: plain http would send the token unencrypted to another machine"
              ).format(url=text[:80]),
            _("use https:// (chatcli serve --cert FILE --key FILE), or an SSH tunnel to "
              "127.0.0.1"))
    return text.rstrip("/")


def _token(url: str) -> str:
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        from chatcli import stored_keys

        token = (stored_keys().get(TOKEN_KEY) or "").strip()
    if not token:
        raise ConfigError(_("no token for the chatcli server at {url}").format(url=url),
                          _("set {variable}, or store it with `chatcli keys set remote --force` "
                            "(`chatcli serve token create` on the server makes one)"
                            ).format(variable=TOKEN_ENV))
    if not (token.isascii() and token.isprintable()) or any(c.isspace() for c in token):
        raise ConfigError(_("the chatcli server's token contains spaces, line breaks or "
                            "characters that cannot go in an HTTP header"),
                          _("set {variable} (or the key `remote`) to the token alone"
                            ).format(variable=TOKEN_ENV))
    register_secret(token)
    return token


class RemoteTarget:
    """A ``chatcli serve`` server and the token to use with it (``--remote URL``)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = check_url(url)
        self.token = token

    def __repr__(self) -> str:  # never the token
        return f"RemoteTarget({self.url!r})"

    @classmethod
    def from_option(cls, url: str) -> RemoteTarget:
        """The target ``--remote URL`` names, with the token from ``CHATCLI_REMOTE_TOKEN`` or
        the stored key ``remote``. Raises :class:`chatcli.UsageError` for a URL a token must
        not be sent to, :class:`chatcli.ConfigError` when there is no token."""
        checked = check_url(url)
        return cls(checked, _token(checked))

    def session(self, host: PluginHost, settings: Settings,
                options: SessionOptions | None = None, *, interactive: bool = False,
                approver: Callable[..., Any] | None = None,
                on_tool_output: Callable[[str], None] | None = None,
                on_retry: Callable[[Retrying], None] | None = None,
                **_ignored: Any) -> RemoteSession:
        """A session on the server, offered as the front ends use ``chatcli.Session`` (the
        arguments are that class's: ``-c``/``--resume ID`` in ``options`` pick the server's
        session). Nothing is sent before :meth:`RemoteSession.open`."""
        from chatcli_remote.client_session import RemoteSession

        return RemoteSession(self.url, self.token, host, settings, options,
                             interactive=interactive, approver=approver,
                             on_tool_output=on_tool_output, on_retry=on_retry)
