"""What the kernel keeps of the command line, whose front end is chatcli-cli (``chatcli_cli``):
the helpers plugins' commands use (:mod:`chatcli._cli.common`) and, here without importing click,
the plugin host of the running command line."""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: chatcli._trust imports this module
if TYPE_CHECKING:
    from chatcli._plugins import PluginHost

#: The plugin host of the running command line: whose ``ControlFile`` registrations and
#: ``register_setting_rules`` settings read without a host consult (see :mod:`chatcli._trust`).
_running: PluginHost | None = None


def set_running_host(host: PluginHost | None) -> None:
    """Make ``host`` the running command line's plugin host (the front end calls this once it
    has its host, before a command runs)."""
    global _running
    _running = host


def running_host() -> PluginHost | None:
    """The plugin host of the running command line (None outside one)."""
    return _running
