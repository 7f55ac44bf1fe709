"""One TLS context per process for every SDK client.

An SDK client builds its HTTP client, and that builds an ``ssl.SSLContext`` loading the whole CA
bundle: some 40 ms of CPU and several hundred KiB each time. chatcli makes a provider per session
(and per subagent worker), so ``chatcli serve`` paid it for every session it opened — the
largest part of an idle session's memory and of opening one. An ``SSLContext`` is safe to share
between threads and clients; the certificates it trusts depend only on the environment
(``SSL_CERT_FILE``/``SSL_CERT_DIR``), which is part of the key.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

__all__ = ["shared_tls_context"]

_lock = threading.Lock()
_contexts: dict[tuple[str, str | None, str | None], ssl.SSLContext] = {}


def shared_tls_context(make: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
    """The context ``make()`` returns, made once per process, ``make`` and CA environment.

    :param make: builds the context the way the SDK's HTTP library would (for httpx:
        ``lambda: httpx.create_ssl_context()``, so ``SSL_CERT_FILE`` and friends are honoured);
        the kit imports no HTTP library itself.
    :return: the same context for every call with the same ``make`` (by qualified name) while
        ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` are unchanged; a new one when they change.
    """
    key = (f"{make.__module__}.{make.__qualname__}", os.environ.get("SSL_CERT_FILE"),
           os.environ.get("SSL_CERT_DIR"))
    with _lock:
        context = _contexts.get(key)
        if context is None:
            context = _contexts[key] = make()
        return context
