"""The hook chatcli-memory offers other plugins (declared through ``add_hookspecs``).

A storage backend for long-term memory implements it without importing this plugin::

    @chatcli.hookimpl
    def register_memory_backends(register):
        register(chatcli_memory_api.MemoryBackendSpec("mine", factory))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_memory_api import MemoryBackendSpec


@hookspec
def register_memory_backends(register: Callable[[MemoryBackendSpec], None]) -> None:
    """Register storage backends for long-term memory.

    Called once per process by chatcli-memory, when a session starts with memory on (or a
    ``chatcli memory`` command runs), through ``host.collect``.

    :param register: call ``register(MemoryBackendSpec(name, factory))``; ``factory(settings)``
        opens a :class:`chatcli_memory_api.MemoryBackend` (import its driver there, not at
        start-up). The backend named by the ``memory.backend`` setting is used; one that is
        missing or fails to open is reported in one line and chatcli goes on without memory.
        Two backends with one name: the one pluggy calls first wins and the other is reported.

    The return value is ignored.
    """
