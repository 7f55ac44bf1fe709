"""Plugin discovery and hook calls: stevedore finds and loads, pluggy holds the contract and calls.

Plugins are modules named by entry points in the group ``chatcli.plugins``. ``CHATCLI_PLUGINS=a,b``
loads only those names; ``CHATCLI_DISABLE_PLUGINS=x,y`` blocks some. A plugin that fails to import,
declares an unknown hook, or raises inside a hook is recorded as a :class:`PluginFailure`,
reported in one line on stderr, and skipped: everything else keeps working.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pluggy

from chatcli import hookspecs
from chatcli._errors import redact

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGIN_ERRORS",
    "PluginFailure",
    "PluginHost",
    "PluginImportError",
    "PluginInfo",
    "hookimpl",
]

ENTRY_POINT_GROUP = "chatcli.plugins"
hookimpl = pluggy.HookimplMarker("chatcli")
T = TypeVar("T")

#: What a misbehaving plugin may raise and still be isolated. ``SystemExit`` counts: a plugin
#: calling ``sys.exit()`` (argparse does on bad input) must not end chatcli. KeyboardInterrupt
#: is never caught: it is the user's Ctrl+C.
PLUGIN_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit)


class PluginImportError(Exception):
    """A plugin's import raised something stevedore would let through (SystemExit, an assert)."""

    def __init__(self, err: BaseException) -> None:
        super().__init__(str(err))
        self.original = err


@dataclass
class PluginFailure:
    """A plugin that could not be used: which one, during what, and why (one line)."""

    name: str
    stage: str
    reason: str

    def __str__(self) -> str:
        return f"plugin {self.name!r} failed {self.stage}: {self.reason}"


@dataclass
class PluginInfo:
    """One entry of ``chatcli plugins list``."""

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    status: str = "loaded"
    reason: str = ""


def _one_line(err: BaseException) -> str:
    text = [line.strip() for line in f"{type(err).__name__}: {err}".strip().splitlines()]
    if isinstance(err, pluggy.PluginValidationError):  # the reason is on the later lines
        return redact("; ".join(line for line in text if line))
    return redact(text[0] if text else type(err).__name__)


def _names_from_env(variable: str) -> set[str] | None:
    raw = os.environ.get(variable)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


class _AllowedNames:
    """A stand-in for stevedore's ``names`` list that decides by predicate, before import."""

    def __init__(self, allowed: set[str] | None, blocked: set[str]) -> None:
        self.allowed, self.blocked = allowed, blocked
        self.skipped: list[str] = []

    def __contains__(self, name: object) -> bool:
        ok = (self.allowed is None or name in self.allowed) and name not in self.blocked
        if not ok:
            self.skipped.append(str(name))
        return ok

    def __iter__(self):  # stevedore builds a set of missing names from this
        return iter(self.allowed or ())


def _manager_class() -> type:
    """stevedore's ``NamedExtensionManager``, made to report every import failure.

    stevedore re-raises ``AssertionError`` (and ``SystemExit`` is no ``Exception``), so one
    plugin with a failing ``assert`` or a ``sys.exit()`` at import would end every command.
    Imported lazily: ``chatcli --version`` must not pay for stevedore.
    """
    from stevedore import NamedExtensionManager

    class _IsolatingManager(NamedExtensionManager):  # type: ignore[misc]
        def _load_one_plugin(self, ep: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return super()._load_one_plugin(ep, *args, **kwargs)
            except (AssertionError, SystemExit) as err:
                raise PluginImportError(err) from err

    return _IsolatingManager


class PluginHost:
    """The kernel's plugin manager: loads plugins and calls hooks with failures isolated."""

    def __init__(self, *, warn: Callable[[str], None] | None = None) -> None:
        self.pm = pluggy.PluginManager("chatcli")
        self.pm.add_hookspecs(hookspecs)
        self.failures: list[PluginFailure] = []
        self.entry_points: dict[str, str] = {}  # plugin name -> module
        self.skipped: list[str] = []
        self._warn = warn or (lambda line: print(f"chatcli: warning: {line}", file=sys.stderr))
        self._reported: set[tuple[str, str]] = set()
        self._cache: dict[str, Any] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ loading

    def load_entry_points(self) -> None:
        """Find, import and register the installed plugins (honouring the env selection)."""
        names = _AllowedNames(
            _names_from_env("CHATCLI_PLUGINS"), _names_from_env("CHATCLI_DISABLE_PLUGINS") or set()
        )

        def on_failure(_manager: Any, entry_point: Any, err: BaseException) -> None:
            self.entry_points[entry_point.name] = entry_point.value
            original = err.original if isinstance(err, PluginImportError) else err
            self._fail(entry_point.name, "to import", _one_line(original))

        manager = _manager_class()(
            ENTRY_POINT_GROUP,
            names=names,  # type: ignore[arg-type]
            on_load_failure_callback=on_failure,
            on_missing_entrypoints_callback=None,
        )
        self.skipped = sorted(set(names.skipped))
        for extension in manager.extensions:
            self.entry_points[extension.name] = extension.entry_point.value
            self.register(extension.plugin, extension.name)
        installed = {ep.name for ep in manager.list_entry_points()}
        for variable, wanted in (("CHATCLI_PLUGINS", names.allowed),
                                 ("CHATCLI_DISABLE_PLUGINS", names.blocked)):
            for name in sorted((wanted or set()) - installed):
                self._warn(f"{variable} names '{name}', which is not installed "
                           f"(installed: {', '.join(sorted(installed)) or 'none'})")

    def register(self, plugin: object, name: str) -> bool:
        """Register a plugin object (a module or an instance) under ``name``.

        Returns False (and records the failure) when the plugin declares hooks that do not exist
        or have wrong arguments.
        """
        with self._lock:
            try:
                self.pm.register(plugin, name=name)
                self.pm.check_pending()
            except Exception as err:  # pluggy.PluginValidationError and friends
                if self.pm.is_registered(plugin):
                    self.pm.unregister(plugin)
                self._fail(name, "validation", _one_line(err))
                return False
            self._cache.clear()
            return True

    def unregister(self, name: str) -> None:
        """Remove the plugin registered under ``name`` (tests use this to clean up)."""
        with self._lock:
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                self.pm.unregister(plugin)
            self._cache.clear()

    def _fail(self, name: str, stage: str, reason: str) -> None:
        failure = PluginFailure(name, stage, reason)
        self.failures.append(failure)
        key = (name, stage)
        if key not in self._reported:
            self._reported.add(key)
            self._warn(f"{failure} (disable it with CHATCLI_DISABLE_PLUGINS={name})")

    # ------------------------------------------------------------------ calling

    def call(
        self, hook_name: str, *, reraise: tuple[type[BaseException], ...] = (), **kwargs: Any
    ) -> list[Any]:
        """Call every implementation of ``hook_name``, isolating failures.

        Implementations run in pluggy's order (last registered first, tryfirst/trylast
        honoured). Non-None results are returned in that order. An implementation that raises is
        reported once and skipped — unless the exception is one of ``reraise`` (e.g.
        ``ChatcliError`` from ``open_conversation``, whose contract says to raise it), which
        propagates to the caller.
        """
        caller = getattr(self.pm.hook, hook_name)
        results: list[Any] = []
        for impl in reversed(caller.get_hookimpls()):
            args = {name: kwargs[name] for name in impl.argnames if name in kwargs}
            try:
                result = impl.function(**args)
            except reraise:
                raise
            except PLUGIN_ERRORS as err:
                self._fail(impl.plugin_name, f"in hook {hook_name}", _one_line(err))
                continue
            if result is not None:
                results.append(result)
                if caller.spec and caller.spec.opts.get("firstresult"):
                    break
        return results

    def first(
        self, hook_name: str, *, reraise: tuple[type[BaseException], ...] = (), **kwargs: Any
    ) -> Any:
        """Call a first-result hook; returns the first non-None result, or None."""
        results = self.call(hook_name, reraise=reraise, **kwargs)
        return results[0] if results else None

    def collect(self, hook_name: str, kind: str, key: Callable[[T], str]) -> dict[str, T]:
        """Call a ``register_*`` hook and return what was registered, by name (cached)."""
        with self._lock:
            if hook_name in self._cache:
                return self._cache[hook_name]
            found: dict[str, T] = {}
            owner: dict[str, str] = {}
            caller = getattr(self.pm.hook, hook_name)
            # Registration order: a plugin registered later replaces an earlier one's entry.
            for impl in caller.get_hookimpls():

                def register(item: T, _plugin: str = impl.plugin_name) -> None:
                    name = key(item)
                    if name in found:
                        self._warn(
                            f"{kind} {name!r} from plugin {_plugin!r} replaces the one from "
                            f"plugin {owner[name]!r}"
                        )
                    found[name] = item
                    owner[name] = _plugin

                try:
                    impl.function(register)
                except PLUGIN_ERRORS as err:
                    self._fail(impl.plugin_name, f"in hook {hook_name}", _one_line(err))
            self._cache[hook_name] = found
            return found

    # ------------------------------------------------------------------ features

    def providers(self) -> dict[str, Any]:
        """The registered :class:`~chatcli.ProviderSpec` objects, by name."""
        return self.collect("register_providers", "provider", lambda spec: spec.name)

    def tools(self) -> dict[str, Any]:
        """The registered :class:`~chatcli.Tool` objects, by name."""
        return self.collect("register_tools", "tool", lambda tool: tool.name)

    def slash_commands(self) -> dict[str, Any]:
        """The registered :class:`~chatcli.SlashCommand` objects, by name."""
        return self.collect("register_slash_commands", "slash command", lambda cmd: cmd.name)

    def skill_sources(self) -> dict[str, Any]:
        """The registered :class:`~chatcli.SkillSource` objects, by name."""
        return self.collect("register_skill_sources", "skill source", lambda src: src.name)

    def named_factories(self, hook_name: str, kind: str) -> dict[str, Any]:
        """For ``register(name, factory)`` hooks (memory backends, compaction strategies)."""
        with self._lock:
            if hook_name in self._cache:
                return self._cache[hook_name]
            found: dict[str, Any] = {}
            caller = getattr(self.pm.hook, hook_name)
            for impl in caller.get_hookimpls():
                try:
                    impl.function(lambda name, factory: found.__setitem__(name, factory))
                except PLUGIN_ERRORS as err:
                    self._fail(impl.plugin_name, f"in hook {hook_name}", _one_line(err))
            self._cache[hook_name] = found
            return found

    # ------------------------------------------------------------------ introspection

    def plugin_infos(self) -> list[PluginInfo]:
        """What is installed, loaded and failed, for ``chatcli plugins list``."""
        from importlib.metadata import entry_points

        dists = {
            ep.name: (ep.dist.name, ep.dist.version)
            for ep in entry_points(group=ENTRY_POINT_GROUP)
            if ep.dist is not None
        }
        infos: dict[str, PluginInfo] = {}
        for name, module in self.entry_points.items():
            dist, ver = dists.get(name, (None, None))
            infos[name] = PluginInfo(name=name, module=module, distribution=dist, version=ver)
        for name, plugin in self.pm.list_name_plugin():
            info = infos.setdefault(
                name, PluginInfo(name=name, module=getattr(plugin, "__name__", repr(plugin)))
            )
            info.hooks = sorted(
                caller.name for caller in self.pm.get_hookcallers(plugin) or []
            )
        for failure in self.failures:
            info = infos.setdefault(failure.name, PluginInfo(name=failure.name, module="?"))
            info.status = "failed"
            info.reason = f"{failure.stage}: {failure.reason}"
        for name in self.skipped:
            infos.setdefault(name, PluginInfo(name=name, module="?", status="disabled"))
        return sorted(infos.values(), key=lambda i: i.name)


def iter_hook_names() -> Iterable[str]:
    """The names of every hook the kernel declares."""
    return sorted(n for n in dir(hookspecs) if hasattr(getattr(hookspecs, n), "chatcli_spec"))
