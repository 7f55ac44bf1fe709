"""The plugin host: stevedore finds plugins, pluggy holds the contract and calls them.

Plugins are modules named by entry points in the group ``chatcli.plugins``
(:mod:`chatcli._discovery`). A plugin whose hooks are known from an earlier start-up is imported
when one of its hooks is first called, and registered in the place it would have had, so the order
pluggy calls plugins in never depends on what was imported when. ``CHATCLI_PLUGINS=a,b`` loads only
those names; ``CHATCLI_DISABLE_PLUGINS=x,y`` blocks some. A plugin that fails to import, declares an
unknown hook, raises inside a hook or returns the wrong type is recorded as a
:class:`PluginFailure`, reported in one line on stderr, and skipped: everything else keeps working.
At import that covers every ``BaseException`` (``SystemExit``, a ``KeyboardInterrupt`` the plugin
raised itself); only the user's Ctrl+C (a real SIGINT, :class:`chatcli._discovery.CtrlC`) ends
chatcli. A plugin whose import takes a second or more (:data:`SLOW_IMPORT_SECONDS`) is named with
its time and the ``CHATCLI_DISABLE_PLUGINS`` setting that skips it.

Every hook call goes through pluggy, by way of :attr:`PluginHost.hooks` (:class:`HookCalls`) for
the kernel's hooks: ``host.hooks.prompt_sections(...)`` is where the kernel asks for prompt
sections, and ``grep hooks.prompt_sections`` finds every place that does. Plugins declare hooks
of their own through the historic ``add_hookspecs`` hook; ``host.hook.<name>(...)`` calls any
hook. Historic hooks (``add_hookspecs``, ``configure``) reach a plugin registered after they
were called as it registers: the host replays them itself, guarded, once per plugin.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from time import perf_counter
from types import FunctionType, MethodType, ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy
from chatcli_records_lite import NamedTuple

from chatcli import hookspecs
from chatcli._discovery import (
    ENTRY_POINT_GROUP,
    CtrlC,
    EntryPoint,
    find_entry_points,
    is_known,
    load_entry_point,
    module_file,
    remember_hooks,
)
from chatcli._guard import ResultCheck, current_plugin, describe, guard
from chatcli._i18n import translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli._calls import PromptSection, Tool
    from chatcli._config import Settings
    from chatcli._conversation import Conversation
    from chatcli._specs import ProviderSpec, SlashCommand
    from chatcli._types import Message

__all__ = ["ENTRY_POINT_GROUP", "HookCalls", "PluginFailure", "PluginHost", "hookimpl"]

hookimpl = pluggy.HookimplMarker("chatcli")
_, ngettext = translation(__name__)
T = TypeVar("T")

#: An import that takes longer is named on stderr (once: a plugin is imported once a run).
SLOW_IMPORT_SECONDS = 1.0

#: Hooks whose contract lets a :class:`~chatcli.ChatcliError` through (it ends the command);
#: ``cmdline_main`` runs the command: anything it raises is the command's failure.
_RAISING_HOOKS = frozenset({"open_conversation"})


def _kind(kind: str) -> str:
    """A registry's kind in the user's language (a plugin's own kinds as they are)."""
    return {"provider": _("provider"), "tool": _("tool"),
            "slash command": _("slash command")}.get(kind, kind)


class PluginFailure(NamedTuple):
    """A plugin that misbehaved: which one, during what, and why (one line).

    ``fatal`` is False when the plugin still works (it printed while importing, say).
    """

    name: str
    stage: str
    reason: str
    fatal: bool = True

    def __str__(self) -> str:
        text = (_("plugin {name!r} failed {stage}: {reason}") if self.fatal else
                _("plugin {name!r} misbehaved {stage}: {reason}"))
        return text.format(name=self.name, stage=self.stage, reason=self.reason)


def _names_from_env(variable: str) -> set[str] | None:
    raw = os.environ.get(variable)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def _env_flag(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0", "false", "no")


def _type_namespace() -> dict[str, Any]:
    """What the hookspecs' return annotations name."""
    from chatcli._calls import PromptSection, Verdict
    from chatcli._conversation import Conversation
    from chatcli._specs import Author, Decision

    return {"Author": Author, "Conversation": Conversation, "Decision": Decision,
            "PromptSection": PromptSection, "Verdict": Verdict}


#: What pluggy can take a hook from: anything else in a namespace holds no marker.
_HOOKABLE = (FunctionType, staticmethod, classmethod, MethodType)


def _quick_marker(namespace: object, name: str, marker: str) -> Any:
    """The pluggy ``marker`` options of ``namespace.name`` told from the raw value, without
    ``inspect.getattr_static`` (pluggy's own look, about 30 µs an attribute, for every name
    ``dir()`` gives: the imports of a module plugin included): None when it surely has none,
    the options of a module's plain function, else False (unsure: pluggy looks as usual)."""
    if name.startswith("__") and name.endswith("__"):
        return None  # no hook is a dunder name
    module = isinstance(namespace, ModuleType)
    if module:
        value = namespace.__dict__.get(name)
    elif not isinstance(namespace, type) and name not in _own_dict(namespace, name):
        value = next((vars(cls)[name] for cls in type(namespace).__mro__ if name in vars(cls)),
                     None)
    else:
        return False
    if not isinstance(value, _HOOKABLE):
        return None if value is not None or module else False
    function = value.__func__ if isinstance(value, MethodType) else value  # (a bound ``_``)
    options = getattr(function, marker, None) if isinstance(function, FunctionType) else False
    if options is None or (module and isinstance(value, FunctionType)):
        return options if isinstance(options, dict) else None
    return False


def _own_dict(namespace: object, name: str) -> Any:
    """``namespace``'s own ``__dict__`` (read as pluggy does, running no ``__getattr__``), or
    a stand-in holding ``name`` when it has none (slots: pluggy must look)."""
    try:
        own = object.__getattribute__(namespace, "__dict__")
    except AttributeError:
        return (name,)
    return own if isinstance(own, dict) else (name,)


class _PluginManager(pluggy.PluginManager):
    """pluggy's manager, skipping at once the attributes that surely are no hook, and reading
    a module function's marker straight from it; it keeps the hooks each registered plugin
    implements (:attr:`callers_of`), which pluggy finds by scanning every hook's every
    implementation (``get_hookcallers``)."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        #: id of a registered plugin → (the plugin, the hooks it implements)
        self.callers_of: dict[int, tuple[object, list[pluggy.HookCaller]]] = {}
        self._implemented: list[str] | None = None

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        options = _quick_marker(plugin, name, "chatcli_impl")
        if options is False:
            options = super().parse_hookimpl_opts(plugin, name)
        if options is not None and self._implemented is not None:
            self._implemented.append(options.get("specname") or name)
        return options

    def register(self, plugin: object, name: str | None = None) -> str | None:
        outer, self._implemented = self._implemented, []  # (a hook replayed may register)
        try:
            registered = super().register(plugin, name)
            hooks = dict.fromkeys(self._implemented)
        finally:
            self._implemented = outer
        if registered is not None:
            self.callers_of[id(plugin)] = (plugin, [getattr(self.hook, hook) for hook in hooks])
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        removed = super().unregister(plugin, name)
        if removed is not None:
            self.callers_of.pop(id(removed), None)
        return removed

    def parse_hookspec_opts(self, module_or_class: Any, name: str) -> Any:
        found = _quick_marker(module_or_class, name, "chatcli_spec")
        return super().parse_hookspec_opts(module_or_class, name) if found is False else found


class PluginHost:
    """The kernel's plugin manager: loads plugins, calls hooks with failures isolated, and keeps
    what plugins registered.

    :param warn: where one-line reports go (default: ``chatcli: warning: …`` on stderr).
    :param trace: print every hook call and its result on stderr (default:
        ``CHATCLI_TRACE_HOOKS``).
    """

    def __init__(self, *, warn: Callable[[str], None] | None = None,
                 trace: bool | None = None) -> None:
        self.pm = _PluginManager("chatcli")
        self.pm.add_hookspecs(hookspecs)
        #: the historic hooks (the kernel's, then those plugins declare), for the replays
        self._historic: list[pluggy.HookCaller] = [
            caller for caller in vars(self.pm.hook).values()
            if isinstance(caller, pluggy.HookCaller) and caller.is_historic()]
        #: The typed, greppable way to call the kernel's hooks.
        self.hooks = HookCalls(self.pm, self._need, self._call_historic)
        #: Any hook, the ones plugins declare included (``host.hook.<name>(**kwargs)``), with
        #: pluggy's results; the plugins implementing it are imported first.
        self.hook: Any = _Hooks(self.pm.hook, self._need)
        #: hook declared by a plugin → that plugin
        self._declared: dict[str, str] = {}
        self.failures: list[PluginFailure] = []
        #: plugin name → entry-point value, for every plugin found (loaded or not)
        self.entry_points: dict[str, str] = {}
        self.skipped: list[str] = []
        self._skipped_entry_points: list[EntryPoint] = []
        #: The run's settings and workspace, once :meth:`configure` ran.
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        self._warn = warn or (lambda line: print(_("chatcli: warning: {message}").format(
            message=line), file=sys.stderr))
        self._reported: set[tuple[str, str]] = set()
        self._registries: dict[str, dict[str, Any]] = {}
        #: the hook each registry comes from, by kind
        self._registry_hooks: dict[str, str] = {}
        self._checks: dict[str, ResultCheck] = {}
        self._lock = threading.RLock()
        #: installed plugins not imported yet (their hooks are known), by name
        self._pending: dict[str, EntryPoint] = {}
        #: what the entry-point cache knows of each selected plugin (updated as they import)
        self._known: dict[str, EntryPoint] = {}
        #: where each plugin stands in the registration order (entry points by name, then the
        #: plugins registered by hand, in the order they came)
        self._positions: dict[str, int] = {}
        #: (plugin, historic hook) → how many of the hook's historic calls the plugin had
        self._seen: dict[tuple[str, str], int] = {}
        self._tracing = False
        if _env_flag("CHATCLI_TRACE_HOOKS") if trace is None else trace:
            self.enable_tracing()
        self._call_historic("add_hookspecs", {"add": self._add_hookspecs})

    # ------------------------------------------------------------------ loading

    def load_entry_points(self) -> None:
        """Find the installed plugins (honouring the env selection); import and register those
        whose hooks are not known yet, and leave the others for the first call of one of their
        hooks (every plugin at once with ``CHATCLI_EAGER_PLUGINS=1``)."""
        allowed = _names_from_env("CHATCLI_PLUGINS")
        blocked = _names_from_env("CHATCLI_DISABLE_PLUGINS") or set()
        from chatcli._managed import managed_error, managed_list

        only = managed_list("policy.plugins")  # the managed policy's: nothing loosens them
        refused = managed_list("policy.refused_plugins")
        for chosen, loose in ((only, (allowed or set()) - set(only[1] if only else allowed or ())),
                              (refused, (allowed or set()) & set(refused[1] if refused else ()))):
            if chosen is not None and loose:
                raise managed_error("policy." + ("plugins" if chosen is only else
                                                 "refused_plugins"),
                                    f"CHATCLI_PLUGINS ({', '.join(sorted(loose))})", chosen[0])
        refusing = blocked | set(refused[1] if refused else ())
        eager = _env_flag("CHATCLI_EAGER_PLUGINS")
        found = find_entry_points()
        installed = {ep.name for ep in found}
        now = []
        for position, entry_point in enumerate(found):
            if (allowed is not None and entry_point.name not in allowed) or (
                    entry_point.name in refusing) or (only and entry_point.name not in only[1]):
                self.skipped.append(entry_point.name)
                self._skipped_entry_points.append(entry_point)
                continue
            self.entry_points[entry_point.name] = entry_point.value
            self._positions[entry_point.name] = position
            self._known[entry_point.name] = entry_point
            if not eager and is_known(entry_point):
                self._pending[entry_point.name] = entry_point
            else:
                now.append(entry_point)
        learned = self._import(now, learn=True)
        if learned:
            remember_hooks(learned)
        for variable, wanted in (("CHATCLI_PLUGINS", allowed),
                                 ("CHATCLI_DISABLE_PLUGINS", blocked)):
            for name in sorted((wanted or set()) - installed):
                self._warn(_("{variable} names '{name}', which is not installed (installed: "
                             "{names})").format(variable=variable, name=name,
                                                names=", ".join(sorted(installed)) or _("none")))

    def load_all(self) -> None:
        """Import every plugin still waiting for one of its hooks (``plugins list`` does)."""
        with self._lock:
            waiting = list(self._pending.values())
            self._pending.clear()
            self._import(waiting)

    def _need(self, hook: str) -> None:
        """Before ``hook`` is called: import the plugins that implement it and wait."""
        if not self._pending:
            return
        with self._lock:
            wanted = [ep for ep in self._pending.values()
                      if (ep.hooks and hook in ep.hooks) or hook in ep.declares]
            for entry_point in wanted:
                del self._pending[entry_point.name]
            self._import(wanted)

    def _import(self, entry_points: list[EntryPoint], learn: bool = False
                ) -> dict[str, EntryPoint]:
        """Import and register ``entry_points``; with ``learn``, returns what was learned of each
        that loaded cleanly (its hooks and entry module), for the cache (the plugins imported
        for a hook are known already)."""
        imported: list[tuple[EntryPoint, object]] = []
        for entry_point in entry_points:

            def printed(text: str, name: str = entry_point.name) -> None:
                self._fail(name, _("while importing"), ngettext(
                    "wrote {count:,} character to stdout (kept out of chatcli's output; report "
                    "it to the plugin's authors)", "wrote {count:,} characters to stdout (kept out "
                    "of chatcli's output; report it to the plugin's authors)", len(text)).format(
                    count=len(text)), fatal=False)

            with CtrlC() as ctrl_c:
                started = perf_counter()
                try:
                    imported.append((entry_point, load_entry_point(entry_point, printed)))
                except BaseException as err:  # a plugin must not end chatcli, sys.exit() included
                    if isinstance(err, KeyboardInterrupt) and ctrl_c.pressed:
                        raise  # the user's Ctrl+C
                    self._fail(entry_point.name, _("to import"), _one_line(err))
                    continue
                finally:
                    seconds = perf_counter() - started
            if seconds >= SLOW_IMPORT_SECONDS:
                self._warn(_("plugin {name!r} took {seconds:.1f} s to import; "
                             "CHATCLI_DISABLE_PLUGINS={name} skips it").format(
                    name=entry_point.name, seconds=seconds))
        if not imported:
            return {}
        registered = self._register_in_order(
            [(entry_point.name, plugin) for entry_point, plugin in imported])
        if not learn:
            return {}
        failed = {failure.name for failure in self.failures}
        learned = {}
        for entry_point, plugin in imported:
            if entry_point.name in registered and entry_point.name not in failed:
                file, mtime = module_file(plugin)
                hooks = frozenset(caller.name for caller in self._callers(plugin))
                declares = frozenset(hook for hook, owner in self._declared.items()
                                     if owner == entry_point.name)
                same = (file, mtime) == (entry_point.file, entry_point.mtime)
                learned[entry_point.name] = entry_point._replace(
                    hooks=hooks, file=file, mtime=mtime, declares=declares,
                    commands=entry_point.commands if same else None)
        self._known.update(learned)
        return learned

    def add_commands(self, cli: Any, name: str | None = None) -> Callable[[], None] | None:
        """Let plugins add their sub-commands to the click group ``cli`` (``register_commands``).

        With ``name`` (``chatcli NAME``), of the plugins not imported yet only those known to add
        ``NAME`` (or whose commands are not known) are imported and asked, when some plugin is
        known to add it; then the returned function asks every plugin, as a call without
        ``name`` does (for a command looking up another plugin's). Which commands each plugin
        added is kept in the entry-point cache for the next start-up.
        """
        added: dict[str, set[str]] = {}
        add_command = cli.add_command

        def recorded(command: Any, command_name: str | None = None) -> None:
            add_command(command, command_name)
            added.setdefault(current_plugin.get() or "", set()).add(command_name or command.name)

        with self._lock:
            known = [ep.commands for ep in self._known.values()]
            partial = name is not None and any(name in names for names in known if names)
            # the plugins left out wait aside while the hook imports the others
            held = {ep.name: ep for ep in self._pending.values() if partial and ep.hooks
                    and "register_commands" in ep.hooks and ep.commands is not None
                    and name not in ep.commands}
            for left_out in held:
                del self._pending[left_out]
            cli.add_command = recorded
            try:
                self.hooks.register_commands(cli=cli)
            finally:
                del cli.add_command
                self._pending.update(held)
        self._remember_commands(added)
        if not partial:
            return None

        def everything() -> None:
            cli.commands.clear()
            self.add_commands(cli)

        return everything

    def _remember_commands(self, added: dict[str, set[str]]) -> None:
        """Keep in the cache the commands each plugin just asked added (when that changed)."""
        failed = {failure.name for failure in self.failures}
        learned = {}
        for impl in self.pm.hook.register_commands.get_hookimpls():
            entry_point = self._known.get(impl.plugin_name)
            names = frozenset(added.get(impl.plugin_name, ()))
            if entry_point is None or entry_point.hooks is None or impl.plugin_name in failed:
                continue
            # a name the cache file cannot hold: the commands are not known
            kept = None if any(c in text for text in names for c in "\t\n,") else names
            if entry_point.commands != kept:
                learned[impl.plugin_name] = entry_point._replace(commands=kept)
        if learned:
            self._known.update(learned)
            remember_hooks(learned)

    def register(self, plugin: object, name: str) -> bool:
        """Register a plugin object (a module or an instance) under ``name``; pluggy calls it
        before the plugins registered earlier.

        Returns False (and records the failure) when the plugin declares hooks that do not exist
        or have wrong arguments.
        """
        with self._lock:
            self._positions.setdefault(name, 1_000_000 + len(self._positions))
            return bool(self._register_in_order([(name, plugin)]))

    def _register_in_order(self, plugins: list[tuple[str, object]]) -> set[str]:
        """Register ``plugins`` where their positions put them: plugins registered earlier but
        standing after them are taken out and registered again after them. Returns the names
        that registered."""
        with self._lock:
            first = min(self._positions[name] for name, _ in plugins)
            later = [(name, plugin) for name, plugin in self.pm.list_name_plugin()
                     if self._positions.get(name, -1) > first]
            ordered = sorted([*plugins, *later], key=lambda item: self._positions[item[0]])
            done = {name for name, plugin in sorted(plugins, key=lambda item: self._positions[
                item[0]]) if self._register_one(plugin, name)}
            # instead of taking the later plugins out and registering them again (pluggy
            # inspects every attribute of a plugin on register: that cost 30 ms a `-p` run),
            # put the implementations back in the order registering by position gives
            self._order_impls(plugin for name, plugin in plugins if name in done)
            done.update(name for name, _plugin in later)
            # the whole batch first declares its hooks, so an implementer registered before
            # the plugin declaring its hook is accepted; then the other historic calls
            ordered = [(name, plugin) for name, plugin in ordered if name in done]
            for name, plugin in ordered:
                self._replay(plugin, name, "add_hookspecs")
            for name, plugin in ordered:
                if not self.pm.is_registered(plugin) or not self._known_hooks(plugin, name):
                    done.discard(name)
            for name, plugin in ordered:
                if name in done:
                    self._replay(plugin, name)
            return done

    def _order_impls(self, plugins: Iterable[object]) -> None:
        """Sort the implementations of every hook ``plugins`` implement as registering all
        plugins by position would have: pluggy calls them from the end of its list, wrappers
        after the others, ``trylast`` first in the list (the one registered last first) and
        ``tryfirst`` last."""

        def key(impl: pluggy.HookImpl) -> tuple[bool, int, int]:
            position = self._positions.get(impl.plugin_name, 2_000_000)
            if impl.trylast:
                return (bool(impl.hookwrapper or impl.wrapper), 0, -position)
            return (bool(impl.hookwrapper or impl.wrapper), 2 if impl.tryfirst else 1, position)

        callers = {id(caller): caller for plugin in plugins
                   for caller in self._callers(plugin)}
        for caller in callers.values():
            caller._hookimpls.sort(key=key)  # pluggy's own list; stable for one plugin's impls

    def _register_one(self, plugin: object, name: str) -> bool:
        # pluggy would replay the historic hooks (configure) inside register(), before the
        # guard is in place and again for a plugin taken out and registered again: hold their
        # history back and replay it here, guarded, once per plugin (_replay)
        held = [(caller, caller._call_history) for caller in self._historic]
        for caller in self._historic:
            caller._call_history = []
        try:
            self.pm.register(plugin, name=name)
        except Exception as err:  # pluggy.PluginValidationError and friends
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            self._fail(name, _("validation"), _one_line(err))
            return False
        finally:
            for caller, history in held:
                caller._call_history = history
        self._guard(plugin)
        self._forget_registries(plugin)
        return True

    def _callers(self, plugin: object) -> list[pluggy.HookCaller]:
        """The hooks ``plugin`` implements: kept by the manager as it registers the plugin,
        instead of pluggy's ``get_hookcallers`` scan of every hook's every implementation
        (five calls for each plugin registered)."""
        known = self.pm.callers_of.get(id(plugin))
        if known is not None and known[0] is plugin:
            return known[1]
        return [caller for caller in vars(self.pm.hook).values()
                if any(impl.plugin is plugin for impl in caller._hookimpls)]

    def _forget_registries(self, plugin: object) -> None:
        """Drop what the registries of the hooks ``plugin`` implements collected (the others
        stay: a plugin imported late for another hook no longer makes every tool and provider
        be registered again, the coder's tools and their schemas included)."""
        implemented = {caller.name for caller in self._callers(plugin)}
        for kind in list(self._registries):
            hook = self._registry_hooks.get(kind)
            if hook is None or hook in implemented:
                del self._registries[kind]

    def _known_hooks(self, plugin: object, name: str) -> bool:
        """Whether every hook ``plugin`` implements is declared — by the kernel, by a registered
        plugin, or by an installed plugin not imported yet (known from the entry-point cache);
        a plugin implementing a hook nobody declares (a typo) is unregistered and reported."""
        elsewhere = {hook for ep in [*self._pending.values(), *self._skipped_entry_points]
                     for hook in ep.declares}
        if any(ep.hooks is None for ep in self._skipped_entry_points):
            return True  # a disabled plugin never imported may declare it: cannot tell
        for caller in self._callers(plugin):
            if caller.spec is not None or caller.name in elsewhere:
                continue
            if all(impl.optionalhook for impl in caller.get_hookimpls() if impl.plugin is plugin):
                continue
            self.pm.unregister(plugin)
            self._fail(name, _("validation"), _(
                "unknown hook {hook!r}: neither chatcli nor an installed plugin declares it "
                "(misspelt, or the plugin offering it is not installed)").format(hook=caller.name))
            return False
        return True

    def _add_hookspecs(self, namespace: object) -> None:
        """``add`` of the ``add_hookspecs`` hook: declare the hooks of ``namespace``."""
        plugin = current_plugin.get() or "?"
        if not isinstance(namespace, ModuleType | type):
            raise TypeError(f"{describe(namespace)} is not a module or class of "
                            "@chatcli.hookspec functions")
        names = [name for name in dir(namespace)
                 if self.pm.parse_hookspec_opts(namespace, name) is not None]
        if not names:
            raise TypeError(f"{describe(namespace)} holds no @chatcli.hookspec function")
        with self._lock:
            for hook in names:
                caller = getattr(self.pm.hook, hook, None)
                if caller is not None and caller.spec is not None:
                    if caller.spec.namespace is namespace:
                        return  # the same declarations again (one more instance): nothing new
                    owner = self._declared.get(hook, "chatcli")
                    raise ValueError(f"hook {hook!r} is already declared by {owner!r}")
            for hook in names:  # implementers registered earlier, with arguments it lacks
                self._refuse_misfits(getattr(namespace, hook), hook, plugin)
            self.pm.add_hookspecs(namespace)
            for hook in names:
                self._declared[hook] = plugin
                caller = getattr(self.pm.hook, hook)
                if caller.is_historic() and caller not in self._historic:
                    self._historic.append(caller)
                for impl_plugin in {impl.plugin for impl in caller.get_hookimpls()}:
                    self._guard(impl_plugin, hook)
            self._registries.clear()

    def _refuse_misfits(self, spec: Callable[..., Any], hook: str, declarer: str) -> None:
        import inspect

        caller = getattr(self.pm.hook, hook, None)
        accepted = set(inspect.signature(spec).parameters)
        for impl in list(caller.get_hookimpls() if caller is not None else []):
            extra = sorted(set(impl.argnames) - accepted)
            if extra:
                self.pm.unregister(impl.plugin)
                self._fail(impl.plugin_name, _("validation"), _(
                    "hook {hook!r} (declared by plugin {plugin!r}) has no argument {names}").format(
                    hook=hook, plugin=declarer, names=", ".join(extra)))

    def _replay(self, plugin: object, name: str, only: str | None = None) -> None:
        """Call ``plugin``'s implementations of historic hooks with the calls it has not seen."""
        # only the historic hooks called so far (a few), not pluggy's get_hookcallers (every
        # hook's every implementation, for each plugin of each batch registered)
        for caller in list(self._historic):
            if not caller._call_history or (only is not None and caller.name != only):
                continue
            history = caller._call_history
            seen = self._seen.get((name, caller.name), 0)
            impls = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
            if not impls or seen >= len(history):
                continue
            self._seen[(name, caller.name)] = len(history)
            for kwargs, _callback in history[seen:]:
                self.pm._hookexec(caller.name, impls, kwargs, False)

    def _call_historic(self, hook: str, kwargs: dict[str, Any]) -> None:
        """Call the historic ``hook`` now, and for every plugin registered later."""
        self._need(hook)
        caller = getattr(self.pm.hook, hook)
        with self._lock:
            for impl in caller.get_hookimpls():
                self._seen[(impl.plugin_name, hook)] = len(caller._call_history) + 1
        caller.call_historic(kwargs=kwargs)

    def unregister(self, name: str) -> None:
        """Remove the plugin registered under ``name``."""
        with self._lock:
            self._pending.pop(name, None)
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                self.pm.unregister(plugin)
            self._registries.clear()
            for key in [key for key in self._seen if key[0] == name]:
                del self._seen[key]

    def _guard(self, plugin: object, hook: str | None = None) -> None:
        """Guard ``plugin``'s implementations (of ``hook`` only, when given) of declared hooks;
        one of a hook not declared yet is guarded when its declaration arrives."""
        from chatcli._errors import ChatcliError, ConfigError

        for caller in self._callers(plugin):
            if caller.spec is None or hook not in (None, caller.name):
                continue
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))
                    guard(impl, caller.name, self._check(caller), self._report,
                          (Exception,) if caller.name == "cmdline_main" else
                          (ChatcliError,) if caller.name in _RAISING_HOOKS else
                          (ConfigError,) if caller.name in ("session_start", "before_request")
                          else (), firstresult)

    def _check(self, caller: pluggy.HookCaller) -> ResultCheck:
        check = self._checks.get(caller.name)
        if check is None:
            assert caller.spec is not None  # check_pending() refused impls without a spec
            function = caller.spec.function
            module = sys.modules.get(getattr(function, "__module__", ""))
            check = ResultCheck(function, _type_namespace if module is hookspecs else
                                lambda: {**_type_namespace(), **vars(module or hookspecs)})
            self._checks[caller.name] = check
        return check

    def _report(self, plugin: str, hook: str, reason: str) -> None:
        self._fail(plugin, _("in hook {hook}").format(hook=hook), reason)

    def _fail(self, name: str, stage: str, reason: str, fatal: bool = True) -> None:
        failure = PluginFailure(name, stage, reason, fatal)
        self.failures.append(failure)
        if (name, stage) not in self._reported:
            self._reported.add((name, stage))
            self._warn(_("{failure} (disable it with CHATCLI_DISABLE_PLUGINS={name})").format(
                failure=failure, name=name))

    def enable_tracing(self, write: Callable[[str], None] | None = None) -> None:
        """Print every hook call, its arguments and its results (pluggy's tracing)."""
        if self._tracing:
            return
        self._tracing = True
        self.pm.trace.root.setwriter(write or (lambda text: sys.stderr.write(f"[hooks] {text}")))
        self.pm.enable_tracing()

    # ------------------------------------------------------------------ the run

    def configure(self, settings: Settings, workspace: Path) -> None:
        """Hand every plugin the host, the settings and the workspace (the first call only)."""
        with self._lock:
            if self.settings is not None:
                return
            self.settings, self.workspace = settings, workspace
            self._registries.pop("tool", None)  # made for the settings before
        self._call_historic("configure", {"host": self, "settings": settings,
                                          "workspace": workspace})

    # ------------------------------------------------------------------ what plugins registered

    def _collect(self, kind: str, hook: str, expected: type,
                 call: Callable[[Callable[[Any], None]], None],
                 key: Callable[[Any], str] = lambda item: item.name) -> dict[str, Any]:
        with self._lock:
            self._registry_hooks[kind] = hook
            found = self._registries.get(kind)
            if found is not None:
                return found
            found = {}
            owner: dict[str, str] = {}

            def register(item: Any) -> None:
                plugin = current_plugin.get() or "?"
                if not isinstance(item, expected):
                    self._fail(plugin, _("registering a {kind}").format(kind=_kind(kind)), _(
                        "got {value}, expected {kind}").format(value=describe(item),
                                                               kind=expected.__name__))
                    return
                name = key(item)
                if name in found and owner[name] != plugin:
                    # pluggy calls the later-registered (or tryfirst) plugin first: it wins
                    self._warn(_("{kind} {name!r} from plugin {winner!r} replaces the one from "
                                 "plugin {plugin!r}").format(kind=_kind(kind), name=name,
                                                             winner=owner[name], plugin=plugin))
                    return
                found[name], owner[name] = item, plugin

            call(register)
            self._registries[kind] = found
            return found

    def providers(self) -> dict[str, ProviderSpec]:
        """The registered :class:`~chatcli.ProviderSpec` objects, by name."""
        from chatcli._specs import ProviderSpec

        return self._collect("provider", "register_providers", ProviderSpec,
                             lambda register: self.hooks.register_providers(register=register))

    def tools(self) -> dict[str, Tool]:
        """The registered :class:`~chatcli.Tool` objects, by name (for the configured run)."""
        from pathlib import Path

        from chatcli._calls import Tool
        from chatcli._config import Settings

        settings = self.settings if self.settings is not None else Settings()
        workspace = self.workspace if self.workspace is not None else Path.cwd()
        return self._collect("tool", "register_tools", Tool,
                             lambda register: self.hooks.register_tools(
                                 register=register, settings=settings, workspace=workspace))

    def tools_changed(self) -> None:
        """Announce that a plugin's tools changed: the next model call asks for them again."""
        with self._lock:
            self._registries.pop("tool", None)

    def slash_commands_changed(self) -> None:
        """Announce that a plugin's slash commands changed (``/skills trust``): asked again."""
        with self._lock:
            self._registries.pop("slash command", None)

    def slash_commands(self) -> dict[str, SlashCommand]:
        """The registered :class:`~chatcli.SlashCommand` objects, by name."""
        from chatcli._specs import SlashCommand

        return self._collect("slash command", "register_slash_commands", SlashCommand,
                             lambda register: self.hooks.register_slash_commands(register=register))

    @property
    def declared_hooks(self) -> dict[str, str]:
        """The hooks plugins declared (``add_hookspecs``), each with the plugin declaring it."""
        return dict(self._declared)

    def collect(self, hook: str, expected: type[T], kind: str,
                key: Callable[[T], str] = lambda item: item.name) -> dict[str, T]:  # type: ignore[attr-defined]
        """What plugins register through registration ``hook`` — a kernel's or one a plugin
        declares (``register_skill_sources``) — called as ``hook(register=...)``, by ``key``.

        Anything but an ``expected`` is reported ("registering a KIND") and ignored; of two
        items with one key, the one pluggy calls first (registered later, or ``tryfirst``)
        wins and the other is reported. Kept until a plugin is registered or unregistered.
        """
        def call(register: Callable[[Any], None]) -> None:
            caller = getattr(self.hook, hook, None)  # None: nobody declares or implements it
            if caller is not None:
                caller(register=register)

        return self._collect(kind, hook, expected, call, key)

    def warn(self, line: str) -> None:
        """Report ``line`` where this host's one-line warnings go."""
        self._warn(line)


def _one_line(err: BaseException) -> str:
    from chatcli._errors import redact

    text = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if isinstance(err, pluggy.PluginValidationError):  # the reason is on the later lines
        return redact("; ".join(lines))
    return redact(lines[0] if lines else type(err).__name__)


class _HookCalls:
    """Every kernel hook, called through pluggy: ``host.hooks.<name>(**kwargs)``.

    The methods are the hooks of :mod:`chatcli.hookspecs` (whose signatures and docstrings are
    the contract; mypy reads them from there too). Results are pluggy's: a list of the non-None
    results, or the first one for first-result hooks; ``prompt_sections`` flattens its lists;
    a historic hook (``configure``) is recorded for the plugins registered later. Hooks that
    plugins declare are called with ``host.hook.<name>`` instead.
    """

    def __init__(self, pm: pluggy.PluginManager, need: Callable[[str], None] | None = None,
                 historic: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self._hook = _Hooks(pm.hook, need) if need is not None else pm.hook
        self._historic = historic

    def __getattr__(self, name: str) -> Any:
        # pluggy's options of the kernel's hookspec of that name (None: no such kernel hook)
        options: dict[str, Any] | None = getattr(getattr(hookspecs, name, None),
                                                 "chatcli_spec", None)
        if name.startswith("_") or options is None:
            raise AttributeError(f"{name!r} is not a kernel hook (a hook a plugin declares is "
                                 f"called with host.hook.{name})")
        if options.get("historic"):
            historic = self._historic
            assert historic is not None, "historic hooks are called by the host"
            return lambda **kwargs: historic(name, kwargs)
        if name == "prompt_sections":
            return lambda **kwargs: [section for group in self._hook.prompt_sections(**kwargs)
                                     for section in group]
        return getattr(self._hook, name)

    def __dir__(self) -> list[str]:  # the kernel's hooks
        return sorted(name for name, value in vars(hookspecs).items()
                      if hasattr(value, "chatcli_spec"))


if TYPE_CHECKING:
    _hs = hookspecs

    class HookCalls(_HookCalls):
        """What mypy sees: each kernel hook with its hookspec's own signature (no copy of it;
        ``test_the_typed_hook_calls_name_every_kernel_hook`` keeps this list complete). One
        result differs from what one implementation returns: ``prompt_sections`` gives the
        flattened sections."""

        add_hookspecs = staticmethod(_hs.add_hookspecs)
        configure = staticmethod(_hs.configure)
        register_providers = staticmethod(_hs.register_providers)
        register_tools = staticmethod(_hs.register_tools)
        compact_view = staticmethod(_hs.compact_view)
        register_setting_rules = staticmethod(_hs.register_setting_rules)
        register_cli_options = staticmethod(_hs.register_cli_options)
        register_commands = staticmethod(_hs.register_commands)
        register_slash_commands = staticmethod(_hs.register_slash_commands)
        cmdline_main = staticmethod(_hs.cmdline_main)
        open_conversation = staticmethod(_hs.open_conversation)
        session_start = staticmethod(_hs.session_start)
        session_end = staticmethod(_hs.session_end)
        user_prompt_submitted = staticmethod(_hs.user_prompt_submitted)
        before_request = staticmethod(_hs.before_request)
        after_response = staticmethod(_hs.after_response)
        answer_author = staticmethod(_hs.answer_author)
        authorize_tool_call = staticmethod(_hs.authorize_tool_call)
        tool_call_decided = staticmethod(_hs.tool_call_decided)
        after_tool_call = staticmethod(_hs.after_tool_call)
        message_appended = staticmethod(_hs.message_appended)
        checkpoint_created = staticmethod(_hs.checkpoint_created)
        head_moved = staticmethod(_hs.head_moved)
        view_changed = staticmethod(_hs.view_changed)

        def prompt_sections(self, *, settings: Settings, workspace: Path,
                            messages: list[Message], provider: str, model: str,
                            conversation: Conversation | None) -> list[PromptSection]: ...

else:
    HookCalls = _HookCalls


class _Hooks:
    """``pm.hook`` that first lets the host import the plugins implementing the hook asked for."""

    def __init__(self, hook: Any, need: Callable[[str], None]) -> None:
        self._hook, self._need = hook, need

    def __getattr__(self, name: str) -> Any:
        self._need(name)
        return getattr(self._hook, name)
