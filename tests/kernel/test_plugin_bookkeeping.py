"""The host's bookkeeping of registered plugins: which hooks each implements is kept as it
registers (the same as pluggy's ``get_hookcallers`` finds by scanning every hook), and the
historic replays look only at the historic hooks — so registering a plugin costs the same
whatever the number of hooks and plugins."""

from __future__ import annotations

import types

import pluggy
from chatcli import PluginHost, hookimpl, hookspec


def _declared(historic: bool) -> types.ModuleType:
    module = types.ModuleType("bookkeeping_specs")

    @hookspec(historic=historic)
    def announce(what: str) -> None:
        """Announce ``what``."""

    module.announce = announce  # type: ignore[attr-defined]
    return module


class Declarer:
    def __init__(self, historic: bool) -> None:
        self.module = _declared(historic)

    @hookimpl
    def add_hookspecs(self, add):
        add(self.module)


class Listener:
    def __init__(self) -> None:
        self.heard: list[str] = []

    @hookimpl
    def announce(self, what):
        self.heard.append(what)

    @hookimpl(specname="configure")
    def set_up(self, host, settings, workspace):
        self.heard.append("configured")

    @hookimpl
    def register_tools(self, register, settings, workspace):
        """Registers nothing."""


def _scanned(host: PluginHost, plugin: object) -> set[str]:
    """What pluggy itself finds (a scan of every hook)."""
    return {caller.name for caller in vars(host.pm.hook).values()
            if isinstance(caller, pluggy.HookCaller)
            and any(impl.plugin is plugin for impl in caller.get_hookimpls())}


def test_the_hooks_a_plugin_implements_are_kept_as_it_registers() -> None:
    host, listener, declarer = PluginHost(warn=print), Listener(), Declarer(historic=False)
    assert host.register(declarer, "declarer") and host.register(listener, "listener")
    kept = {caller.name for caller in host.pm.callers_of[id(listener)][1]}
    assert kept == _scanned(host, listener) == {"announce", "configure", "register_tools"}
    assert {c.name for c in host._callers(declarer)} == _scanned(host, declarer)
    host.hook.announce(what="hi")
    assert listener.heard == ["hi"]
    host.unregister("listener")
    assert id(listener) not in host.pm.callers_of
    host.hook.announce(what="again")
    assert listener.heard == ["hi"]


def test_a_declared_historic_hook_is_replayed_to_plugins_registered_later() -> None:
    host, listener = PluginHost(warn=print), Listener()
    host.register(Declarer(historic=True), "declarer")
    historic = {caller.name for caller in host._historic}
    assert historic == {"add_hookspecs", "configure", "announce"}
    host.hook.announce.call_historic(kwargs={"what": "before"})
    host.register(listener, "listener")
    assert listener.heard == ["before"]
