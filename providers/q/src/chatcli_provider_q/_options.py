"""The ``[providers.q]`` settings, resolved once per provider."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from chatcli import ConfigError, ProviderConfig, translation

__all__ = ["DEFAULT_MODEL", "KERNEL_TIMEOUT", "QOptions", "daemon_wanted"]

_, ngettext = translation(__name__)

#: The model name that means "whatever q is configured to use" (no ``--model`` flag).
DEFAULT_MODEL = "default"

#: ``[providers.NAME] timeout``'s default in the kernel: when the table keeps it, the Q
#: provider's own defaults apply.
KERNEL_TIMEOUT = 120.0

#: The daemon's wait for an answer to start, unless ``timeout`` is set.
DAEMON_TIMEOUT = 30.0

class QOptions(NamedTuple):
    """What the Q providers read from the config."""

    command: str | None
    context: str
    trust_all_tools: bool
    extra_args: tuple[str, ...]
    model: str
    timeout: float
    idle_end: float
    settle: float
    system_prompt: bool

    @classmethod
    def from_config(cls, config: ProviderConfig, *, daemon: bool) -> QOptions:
        """Read ``config.options``; a wrong value is a :class:`ConfigError`."""
        options: Mapping[str, Any] = config.options
        context = options.get("context", "transcript")
        if context not in ("transcript", "resume"):
            raise ConfigError(_("providers.q.context must be \"transcript\" or \"resume\", not "
                                "{value!r:.40}").format(value=context),
                              "`chatcli config set providers.q.context transcript`")
        timeout = float(config.timeout)
        if timeout == KERNEL_TIMEOUT and daemon:
            timeout = DAEMON_TIMEOUT
        idle_end = float(options.get("idle_end", 10.0))
        settle = float(options.get("settle", 0.3))
        for name, value in (("idle_end", idle_end), ("settle", settle)):
            if value < 0:
                raise ConfigError(_("providers.q.{name} must be 0 or more seconds, not "
                                    "{value:g}").format(name=name, value=value),
                                  f"`chatcli config unset providers.q.{name}`")
        return cls(
            command=options.get("command"),
            context=context,
            trust_all_tools=bool(options.get("trust_all_tools", False)),
            extra_args=tuple(options.get("args", ())),
            model=config.model or DEFAULT_MODEL,
            timeout=timeout,
            idle_end=idle_end,
            settle=settle,
            system_prompt=bool(options.get("system_prompt", False)),
        )

    def flags(self) -> list[str]:
        """The ``q chat`` flags these options ask for (tools, model, extra arguments)."""
        flags = ["--trust-all-tools"] if self.trust_all_tools else []
        if self.model and self.model != DEFAULT_MODEL:
            flags += ["--model", self.model]
        return flags + list(self.extra_args)


def daemon_wanted(options: Mapping[str, Any]) -> bool:
    """Whether the persistent ``q chat`` process is used: yes, unless ``CHATCLI_Q_DAEMON`` is
    false or ``[providers.q] daemon = false`` (the variable wins when it is set)."""
    from chatcli import parse_bool

    value = os.environ.get("CHATCLI_Q_DAEMON", "").strip()
    chosen = parse_bool(value)
    if chosen is not None:
        return chosen
    if value:
        raise ConfigError(_("CHATCLI_Q_DAEMON must be true or false, not {value!r:.20}").format(
                              value=value),
                          _("export CHATCLI_Q_DAEMON=false (plain q chat per message) or unset "
                            "it"))
    return bool(options.get("daemon", True))
