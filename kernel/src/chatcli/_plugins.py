"""The plugin host: stevedore finds plugins, pluggy holds the contract and calls them.

Plugins are modules named by entry points in the group ``chatcli.plugins``
(:mod:`chatcli._discovery`). A plugin whose hooks are known from an earlier start-up is imported
when one of its hooks is first called, and registered in the place it would have had, so the
order pluggy calls plugins in never depends on what was imported when. ``CHATCLI_PLUGINS=a,b``
loads only those names;
``CHATCLI_DISABLE_PLUGINS=x,y`` blocks some. A plugin that fails to import, declares an unknown
hook, raises inside a hook or returns the wrong type is recorded as a :class:`PluginFailure`,
reported in one line on stderr, and skipped: everything else keeps working. At import that
covers every ``BaseException`` (``SystemExit``, a ``KeyboardInterrupt`` the plugin raised itself);
only the user's Ctrl+C (a real SIGINT, :class:`chatcli._discovery.CtrlC`) ends chatcli. A plugin
whose import takes a second or more (:data:`SLOW_IMPORT_SECONDS`) is named with its time and
the ``CHATCLI_DISABLE_PLUGINS`` setting that skips it.

Every hook call goes through pluggy, by way of the typed methods of :attr:`PluginHost.hooks`
(:class:`HookCalls`): ``host.hooks.prompt_sections(...)`` is where the kernel asks for prompt
sections, and ``grep hooks.prompt_sections`` finds every place that does.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from time import perf_counter
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import pluggy

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

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from chatcli._calls import (
        Approval,
        ChatRequest,
        PromptSection,
        Tool,
        ToolContext,
        ToolSpec,
        Verdict,
    )
    from chatcli._compaction import CompactionStrategy
    from chatcli._config import Settings
    from chatcli._conversation import Checkpoint, Conversation
    from chatcli._errors import ChatcliError
    from chatcli._memory import MemoryBackendSpec
    from chatcli._session import Session, SessionOptions
    from chatcli._specs import (
        Author,
        Decision,
        PersonaSource,
        ProviderSpec,
        PullKind,
        RestorePoint,
        SkillSource,
        SlashCommand,
    )
    from chatcli._trust import SettingRule
    from chatcli._types import Message, ToolCallPart, ToolResultPart

__all__ = [
    "ENTRY_POINT_GROUP",
    "HookCalls",
    "PluginFailure",
    "PluginHost",
    "PluginInfo",
    "hookimpl",
]

hookimpl = pluggy.HookimplMarker("chatcli")
T = TypeVar("T")

#: An import that takes longer is named on stderr (once: a plugin is imported once a run).
SLOW_IMPORT_SECONDS = 1.0

#: Hooks whose contract lets a :class:`~chatcli.ChatcliError` through (it ends the command).
_RAISING_HOOKS = frozenset({"open_conversation", "interactive_main"})


class PluginFailure(NamedTuple):
    """A plugin that misbehaved: which one, during what, and why (one line).

    ``fatal`` is False when the plugin still works (it printed while importing, say).
    """

    name: str
    stage: str
    reason: str
    fatal: bool = True

    def __str__(self) -> str:
        verb = "failed" if self.fatal else "misbehaved"
        return f"plugin {self.name!r} {verb} {self.stage}: {self.reason}"


class PluginInfo:
    """One entry of ``chatcli plugins list``: its status is "loaded", "misbehaving", "failed"
    or "disabled", and ``reason`` says why when it is not loaded."""

    def __init__(self, name: str, module: str, distribution: str | None = None,
                 version: str | None = None) -> None:
        self.name, self.module = name, module
        self.distribution, self.version = distribution, version
        self.hooks: list[str] = []
        self.status = "loaded"
        self.reason = ""


def _names_from_env(variable: str) -> set[str] | None:
    raw = os.environ.get(variable)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def _trace_from_env() -> bool:
    return os.environ.get("CHATCLI_TRACE_HOOKS", "") not in ("", "0", "false", "no")


def _type_namespace() -> dict[str, Any]:
    """What the hookspecs' return annotations name."""
    from chatcli._calls import PromptSection, Verdict
    from chatcli._conversation import Conversation
    from chatcli._specs import Author, Decision, RestorePoint

    return {"Author": Author, "Conversation": Conversation, "Decision": Decision,
            "PromptSection": PromptSection, "RestorePoint": RestorePoint, "Verdict": Verdict}


class PluginHost:
    """The kernel's plugin manager: loads plugins, calls hooks with failures isolated, and keeps
    what plugins registered.

    :param warn: where one-line reports go (default: ``chatcli: warning: …`` on stderr).
    :param trace: print every hook call and its result on stderr (default:
        ``CHATCLI_TRACE_HOOKS``).
    """

    def __init__(self, *, warn: Callable[[str], None] | None = None,
                 trace: bool | None = None) -> None:
        self.pm = pluggy.PluginManager("chatcli")
        self.pm.add_hookspecs(hookspecs)
        #: The typed, greppable way to call every hook.
        self.hooks = HookCalls(self.pm, self._need)
        self.failures: list[PluginFailure] = []
        #: plugin name → entry-point value, for every plugin found (loaded or not)
        self.entry_points: dict[str, str] = {}
        self.skipped: list[str] = []
        #: The run's settings and workspace, once :meth:`configure` ran.
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        self._warn = warn or (lambda line: print(f"chatcli: warning: {line}", file=sys.stderr))
        self._reported: set[tuple[str, str]] = set()
        self._registries: dict[str, dict[str, Any]] = {}
        self._checks: dict[str, ResultCheck] = {}
        self._lock = threading.RLock()
        #: installed plugins not imported yet (their hooks are known), by name
        self._pending: dict[str, EntryPoint] = {}
        #: where each plugin stands in the registration order (entry points by name, then the
        #: plugins registered by hand, in the order they came)
        self._positions: dict[str, int] = {}
        #: (plugin, historic hook) → how many of the hook's historic calls the plugin had
        self._seen: dict[tuple[str, str], int] = {}
        self._tracing = False
        if _trace_from_env() if trace is None else trace:
            self.enable_tracing()

    # ------------------------------------------------------------------ loading

    def load_entry_points(self) -> None:
        """Find the installed plugins (honouring the env selection); import and register those
        whose hooks are not known yet, and leave the others for the first call of one of their
        hooks (every plugin at once with ``CHATCLI_EAGER_PLUGINS=1``)."""
        allowed = _names_from_env("CHATCLI_PLUGINS")
        blocked = _names_from_env("CHATCLI_DISABLE_PLUGINS") or set()
        eager = os.environ.get("CHATCLI_EAGER_PLUGINS", "") not in ("", "0", "false", "no")
        found = find_entry_points()
        installed = {ep.name for ep in found}
        now = []
        for position, entry_point in enumerate(found):
            if (allowed is not None and entry_point.name not in allowed) or (
                    entry_point.name in blocked):
                self.skipped.append(entry_point.name)
                continue
            self.entry_points[entry_point.name] = entry_point.value
            self._positions[entry_point.name] = position
            if not eager and is_known(entry_point):
                self._pending[entry_point.name] = entry_point
            else:
                now.append(entry_point)
        learned = self._import(now)
        if learned:
            remember_hooks(learned)
        for variable, wanted in (("CHATCLI_PLUGINS", allowed),
                                 ("CHATCLI_DISABLE_PLUGINS", blocked)):
            for name in sorted((wanted or set()) - installed):
                self._warn(f"{variable} names '{name}', which is not installed "
                           f"(installed: {', '.join(sorted(installed)) or 'none'})")

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
            wanted = [ep for ep in self._pending.values() if ep.hooks and hook in ep.hooks]
            for entry_point in wanted:
                del self._pending[entry_point.name]
            self._import(wanted)

    def _import(self, entry_points: list[EntryPoint]) -> dict[str, EntryPoint]:
        """Import and register ``entry_points``; returns what was learned of each that loaded
        cleanly (its hooks and entry module), for the cache."""
        imported: list[tuple[EntryPoint, object]] = []
        for entry_point in entry_points:

            def printed(text: str, name: str = entry_point.name) -> None:
                self._fail(name, "while importing",
                           f"wrote {len(text):,} characters to stdout (kept out of chatcli's "
                           "output; report it to the plugin's authors)", fatal=False)

            with CtrlC() as ctrl_c:
                started = perf_counter()
                try:
                    imported.append((entry_point, load_entry_point(entry_point, printed)))
                except BaseException as err:  # a plugin must not end chatcli, sys.exit() included
                    if isinstance(err, KeyboardInterrupt) and ctrl_c.pressed:
                        raise  # the user's Ctrl+C
                    self._fail(entry_point.name, "to import", _one_line(err))
                    continue
                finally:
                    seconds = perf_counter() - started
            if seconds >= SLOW_IMPORT_SECONDS:
                self._warn(f"plugin {entry_point.name!r} took {seconds:.1f} s to import; "
                           f"CHATCLI_DISABLE_PLUGINS={entry_point.name} skips it")
        if not imported:
            return {}
        registered = self._register_in_order(
            [(entry_point.name, plugin) for entry_point, plugin in imported])
        failed = {failure.name for failure in self.failures}
        learned = {}
        for entry_point, plugin in imported:
            if entry_point.name in registered and entry_point.name not in failed:
                file, mtime = module_file(plugin)
                hooks = frozenset(caller.name for caller in self.pm.get_hookcallers(plugin) or [])
                learned[entry_point.name] = entry_point._replace(hooks=hooks, file=file,
                                                                 mtime=mtime)
        return learned

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
            for _name, plugin in later:
                self.pm.unregister(plugin)
            done = set()
            for name, plugin in sorted([*plugins, *later],
                                       key=lambda item: self._positions[item[0]]):
                if self._register_one(plugin, name):
                    done.add(name)
            return done

    def _register_one(self, plugin: object, name: str) -> bool:
        # pluggy would replay the historic hooks (configure) inside register(), before the
        # guard is in place and again for a plugin taken out and registered again: hold their
        # history back and replay it here, guarded, once per plugin (_replay)
        historic = [caller for caller in vars(self.pm.hook).values()
                    if isinstance(caller, pluggy.HookCaller) and caller.is_historic()]
        held = [(caller, caller._call_history) for caller in historic]
        for caller in historic:
            caller._call_history = []
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()
        except Exception as err:  # pluggy.PluginValidationError and friends
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            self._fail(name, "validation", _one_line(err))
            return False
        finally:
            for caller, history in held:
                caller._call_history = history
        self._guard(plugin)
        self._registries.clear()
        self._replay(plugin, name)
        return True

    def _replay(self, plugin: object, name: str) -> None:
        """Call ``plugin``'s implementations of historic hooks with the calls it has not seen."""
        for caller in self.pm.get_hookcallers(plugin) or []:
            history = caller._call_history if caller.is_historic() else None
            seen = self._seen.get((name, caller.name), 0)
            if not history or seen >= len(history):
                continue
            self._seen[(name, caller.name)] = len(history)
            impls = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
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

    def _guard(self, plugin: object) -> None:
        from chatcli._errors import ChatcliError, ConfigError

        for caller in self.pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))
                    guard(impl, caller.name, self._check(caller), self._report,
                          (ChatcliError,) if caller.name in _RAISING_HOOKS else
                          (ConfigError,) if caller.name == "session_start" else (), firstresult)

    def _check(self, caller: pluggy.HookCaller) -> ResultCheck:
        check = self._checks.get(caller.name)
        if check is None:
            assert caller.spec is not None  # check_pending() refused impls without a spec
            check = ResultCheck(caller.spec.function, _type_namespace)
            self._checks[caller.name] = check
        return check

    def _report(self, plugin: str, hook: str, reason: str) -> None:
        self._fail(plugin, f"in hook {hook}", reason)

    def _fail(self, name: str, stage: str, reason: str, fatal: bool = True) -> None:
        failure = PluginFailure(name, stage, reason, fatal)
        self.failures.append(failure)
        if (name, stage) not in self._reported:
            self._reported.add((name, stage))
            self._warn(f"{failure} (disable it with CHATCLI_DISABLE_PLUGINS={name})")

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
            self._registries.pop("tools", None)
        self._call_historic("configure", {"host": self, "settings": settings,
                                          "workspace": workspace})

    # ------------------------------------------------------------------ what plugins registered

    def _collect(self, kind: str, expected: type, key: Callable[[Any], str],
                 call: Callable[[Callable[[Any], None]], None]) -> dict[str, Any]:
        with self._lock:
            found = self._registries.get(kind)
            if found is not None:
                return found
            found, owner = {}, {}

            def register(item: Any) -> None:
                plugin = current_plugin.get() or "?"
                if not isinstance(item, expected):
                    self._fail(plugin, f"registering a {kind}",
                               f"got {describe(item)}, expected {expected.__name__}")
                    return
                name = key(item)
                if name in found and owner[name] != plugin:
                    # pluggy calls the later-registered (or tryfirst) plugin first: it wins
                    self._warn(f"{kind} {name!r} from plugin {owner[name]!r} replaces the one "
                               f"from plugin {plugin!r}")
                    return
                found[name], owner[name] = item, plugin

            call(register)
            self._registries[kind] = found
            return found

    def providers(self) -> dict[str, ProviderSpec]:
        """The registered :class:`~chatcli.ProviderSpec` objects, by name."""
        from chatcli._specs import ProviderSpec

        return self._collect("provider", ProviderSpec, lambda spec: spec.name,
                             lambda register: self.hooks.register_providers(register=register))

    def tools(self) -> dict[str, Tool]:
        """The registered :class:`~chatcli.Tool` objects, by name (for the configured run)."""
        from pathlib import Path

        from chatcli._calls import Tool
        from chatcli._config import Settings

        settings = self.settings if self.settings is not None else Settings()
        workspace = self.workspace if self.workspace is not None else Path.cwd()
        return self._collect("tool", Tool, lambda tool: tool.name,
                             lambda register: self.hooks.register_tools(
                                 register=register, settings=settings, workspace=workspace))

    def tools_changed(self) -> None:
        """Announce that a plugin's tools changed: the next model call asks for them again."""
        with self._lock:
            self._registries.pop("tool", None)

    def slash_commands(self) -> dict[str, SlashCommand]:
        """The registered :class:`~chatcli.SlashCommand` objects, by name."""
        from chatcli._specs import SlashCommand

        return self._collect("slash command", SlashCommand, lambda command: command.name,
                             lambda register: self.hooks.register_slash_commands(
                                 register=register))

    def skill_sources(self) -> dict[str, SkillSource]:
        """The registered :class:`~chatcli.SkillSource` objects, by name."""
        from chatcli._specs import SkillSource

        return self._collect("skill source", SkillSource, lambda source: source.name,
                             lambda register: self.hooks.register_skill_sources(
                                 register=register))

    def persona_sources(self) -> dict[str, PersonaSource]:
        """The registered :class:`~chatcli.PersonaSource` objects, by name."""
        from chatcli._specs import PersonaSource

        return self._collect("persona source", PersonaSource, lambda source: source.name,
                             lambda register: self.hooks.register_persona_sources(
                                 register=register))

    def memory_backends(self) -> dict[str, MemoryBackendSpec]:
        """The registered :class:`~chatcli.MemoryBackendSpec` objects, by name."""
        from chatcli._memory import MemoryBackendSpec

        return self._collect("memory backend", MemoryBackendSpec, lambda spec: spec.name,
                             lambda register: self.hooks.register_memory_backends(
                                 register=register))

    def warn(self, line: str) -> None:
        """Report ``line`` where this host's one-line warnings go."""
        self._warn(line)

    def strategies(self) -> dict[str, CompactionStrategy]:
        """The registered :class:`~chatcli.CompactionStrategy` objects, by name."""
        from chatcli._compaction import CompactionStrategy

        return self._collect("compaction strategy", CompactionStrategy, lambda s: s.name,
                             lambda register: self.hooks.register_compaction_strategies(
                                 register=register))

    def pull_kinds(self) -> dict[str, PullKind]:
        """The registered :class:`~chatcli.PullKind` objects (what ``context_pull`` brings
        back), by name."""
        from chatcli._specs import PullKind

        return self._collect("pull kind", PullKind, lambda kind: kind.name,
                             lambda register: self.hooks.register_pull_kinds(
                                 register=register))

    # ------------------------------------------------------------------ introspection

    def plugin_infos(self) -> list[PluginInfo]:
        """What is installed, loaded and failed, for ``chatcli plugins list``."""
        from importlib.metadata import entry_points

        self.load_all()
        dists = {
            ep.name: (ep.dist.name, ep.dist.version)
            for ep in entry_points(group=ENTRY_POINT_GROUP)
            if ep.dist is not None
        }
        infos: dict[str, PluginInfo] = {}
        for name, module in self.entry_points.items():
            dist, version = dists.get(name, (None, None))
            infos[name] = PluginInfo(name=name, module=module, distribution=dist, version=version)
        for name, plugin in self.pm.list_name_plugin():
            info = infos.setdefault(
                name, PluginInfo(name=name, module=getattr(plugin, "__name__", repr(plugin))))
            info.hooks = sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or [])
        for failure in self.failures:
            info = infos.setdefault(failure.name, PluginInfo(name=failure.name, module="?"))
            if failure.fatal:
                info.status = "failed"
            elif info.status == "loaded":
                info.status = "misbehaving"
            info.reason = info.reason or f"{failure.stage}: {failure.reason}"
        for name in self.skipped:
            infos.setdefault(name, PluginInfo(name=name, module="?")).status = "disabled"
        return sorted(infos.values(), key=lambda i: i.name)


def _one_line(err: BaseException) -> str:
    from chatcli._errors import redact

    text = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if isinstance(err, pluggy.PluginValidationError):  # the reason is on the later lines
        return redact("; ".join(lines))
    return redact(lines[0] if lines else type(err).__name__)


class HookCalls:
    """Every hook, called through pluggy, with its arguments spelled out.

    One method per hook of :mod:`chatcli.hookspecs` (whose docstrings are the contract). Results
    are pluggy's: a list of the non-None results, or the first one for first-result hooks;
    ``prompt_sections`` flattens its lists.
    """

    def __init__(self, pm: pluggy.PluginManager,
                 need: Callable[[str], None] | None = None) -> None:
        self._hook = _Hooks(pm.hook, need) if need is not None else pm.hook

    # set-up
    def configure(self, *, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self._hook.configure(host=host, settings=settings, workspace=workspace)

    def register_providers(self, *, register: Callable[[ProviderSpec], None]) -> None:
        self._hook.register_providers(register=register)

    def register_tools(self, *, register: Callable[[Tool], None], settings: Settings,
                       workspace: Path) -> None:
        self._hook.register_tools(register=register, settings=settings, workspace=workspace)

    def register_skill_sources(self, *, register: Callable[[SkillSource], None]) -> None:
        self._hook.register_skill_sources(register=register)

    def register_memory_backends(self, *, register: Callable[[MemoryBackendSpec], None]
                                 ) -> None:
        self._hook.register_memory_backends(register=register)

    def register_persona_sources(self, *, register: Callable[[PersonaSource], None]) -> None:
        self._hook.register_persona_sources(register=register)

    def register_compaction_strategies(
            self, *, register: Callable[[CompactionStrategy], None]) -> None:
        self._hook.register_compaction_strategies(register=register)

    def register_pull_kinds(self, *, register: Callable[[PullKind], None]) -> None:
        self._hook.register_pull_kinds(register=register)

    def project_control_files(self) -> list[list[str]]:
        return self._hook.project_control_files()

    def register_setting_rules(self, *, register: Callable[[SettingRule], None]) -> None:
        self._hook.register_setting_rules(register=register)

    def register_commands(self, *, cli: click.Group) -> None:
        self._hook.register_commands(cli=cli)

    def register_slash_commands(self, *, register: Callable[[SlashCommand], None]) -> None:
        self._hook.register_slash_commands(register=register)

    # front ends and sessions
    def interactive_main(self, *, options: SessionOptions, host: PluginHost,
                         settings: Settings) -> int | None:
        return self._hook.interactive_main(options=options, host=host, settings=settings)

    def open_conversation(self, *, settings: Settings, resume: str | None,
                          continue_last: bool) -> Conversation | None:
        return self._hook.open_conversation(settings=settings, resume=resume,
                                            continue_last=continue_last)

    def session_start(self, *, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        self._hook.session_start(session=session, conversation=conversation, settings=settings)

    def session_end(self, *, session: Session, conversation: Conversation) -> None:
        self._hook.session_end(session=session, conversation=conversation)

    # a turn
    def user_prompt_submitted(self, *, conversation: Conversation, message: Message) -> None:
        self._hook.user_prompt_submitted(conversation=conversation, message=message)

    def prompt_sections(self, *, settings: Settings, workspace: Path, messages: list[Message],
                        provider: str, model: str) -> list[PromptSection]:
        groups = self._hook.prompt_sections(settings=settings, workspace=workspace,
                                            messages=messages, provider=provider, model=model)
        return [section for group in groups for section in group]

    def before_request(self, *, request: ChatRequest, conversation: Conversation) -> None:
        self._hook.before_request(request=request, conversation=conversation)

    def after_response(self, *, message: Message | None, error: ChatcliError | None,
                       conversation: Conversation) -> None:
        self._hook.after_response(message=message, error=error, conversation=conversation)

    def answer_author(self, *, conversation: Conversation) -> Author | None:
        return self._hook.answer_author(conversation=conversation)

    def authorize_tool_call(self, *, call: ToolCallPart, tool: ToolSpec,
                            context: ToolContext) -> Decision | Verdict | None:
        return self._hook.authorize_tool_call(call=call, tool=tool, context=context)

    def tool_call_approved(self, *, call: ToolCallPart, tool: ToolSpec, approval: Approval,
                           verdict: Verdict) -> None:
        self._hook.tool_call_approved(call=call, tool=tool, approval=approval, verdict=verdict)

    def before_tool_call(self, *, call: ToolCallPart, tool: ToolSpec,
                         conversation: Conversation) -> None:
        self._hook.before_tool_call(call=call, tool=tool, conversation=conversation)

    def after_tool_call(self, *, call: ToolCallPart, result: ToolResultPart,
                        conversation: Conversation) -> None:
        self._hook.after_tool_call(call=call, result=result, conversation=conversation)

    # the workspace
    def workspace_restore_point(self, *, conversation: Conversation, checkpoint: Checkpoint
                                ) -> RestorePoint | None:
        return self._hook.workspace_restore_point(conversation=conversation, checkpoint=checkpoint)

    def workspace_undo(self, *, conversation: Conversation) -> str | None:
        return self._hook.workspace_undo(conversation=conversation)

    # the conversation log
    def message_appended(self, *, conversation: Conversation, message: Message) -> None:
        self._hook.message_appended(conversation=conversation, message=message)

    def checkpoint_created(self, *, conversation: Conversation, checkpoint: Checkpoint) -> None:
        self._hook.checkpoint_created(conversation=conversation, checkpoint=checkpoint)

    def head_moved(self, *, conversation: Conversation, head: str | None, reason: str) -> None:
        self._hook.head_moved(conversation=conversation, head=head, reason=reason)

    def view_changed(self, *, conversation: Conversation, reason: str) -> None:
        self._hook.view_changed(conversation=conversation, reason=reason)

    # compaction
    def before_compaction(self, *, conversation: Conversation, strategy: str) -> None:
        self._hook.before_compaction(conversation=conversation, strategy=strategy)

    def after_compaction(self, *, conversation: Conversation, strategy: str,
                         removed: int) -> None:
        self._hook.after_compaction(conversation=conversation, strategy=strategy,
                                    removed=removed)


class _Hooks:
    """``pm.hook`` that first lets the host import the plugins implementing the hook asked for."""

    def __init__(self, hook: Any, need: Callable[[str], None]) -> None:
        self._hook, self._need = hook, need

    def __getattr__(self, name: str) -> Any:
        self._need(name)
        return getattr(self._hook, name)
