"""Finding installed plugins (entry points of the group ``chatcli.plugins``) and importing them.

stevedore finds the entry points; its answer is kept in a small cache file keyed on what
decides it — the interpreter, ``sys.path``, and the modification time of every path entry — so
that a start-up with nothing installed or removed reads one file instead of importing stevedore
and ``importlib.metadata`` (about 25 ms, twice the cost of starting Python). Installing,
upgrading or removing any distribution changes those times, so the cache is never stale in
practice; a cached plugin that no longer imports is reported like any other import failure.

The cache also remembers, for each plugin that imported cleanly, which hooks it implements,
which hooks it declares for other plugins (``add_hookspecs``), the sub-commands its
``register_commands`` added (so ``chatcli NAME`` imports only the plugins adding ``NAME``) and the
modification time of its entry module. A plugin whose module is unchanged is imported only
when one of its hooks is first called (:class:`chatcli.PluginHost` does that), so
``chatcli --help`` imports the plugins that add commands and not the other twenty. A hook
implemented in a helper module the entry module imports is found too (the list comes from the
imported plugin), but editing only that helper to add a hook is not noticed until the entry
module or an installed distribution changes; ``CHATCLI_EAGER_PLUGINS=1`` imports every plugin
at start-up.

Importing a plugin is isolated: whatever it raises (``SystemExit``, failing ``assert``, any
``BaseException`` and a ``KeyboardInterrupt`` the user did not cause included — :class:`CtrlC`
tells a real Ctrl+C, which still ends chatcli, from one the plugin raised) becomes a one-line
failure, and whatever it prints to stdout is kept away from chatcli's own output (``--json``
must stay parseable) and reported.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any

from chatcli_records_lite import NamedTuple

__all__ = ["ENTRY_POINT_GROUP", "CtrlC", "EntryPoint", "find_entry_points", "is_known",
           "load_entry_point", "module_file", "remember_hooks"]

ENTRY_POINT_GROUP = "chatcli.plugins"

_CACHE_VERSION = "chatcli-entry-points 4"


class EntryPoint(NamedTuple):
    """One plugin as installed: its name and ``module`` or ``module:attribute``.

    ``hooks`` are the hooks it implemented when it was last imported (None: not known),
    ``file``/``mtime`` the entry module it was imported from and that file's modification time
    then, ``declares`` the hooks it declared for other plugins (``add_hookspecs``), and
    ``commands`` the names of the sub-commands its ``register_commands`` added (None: not known).
    """

    name: str
    value: str
    hooks: frozenset[str] | None = None
    file: str = ""
    mtime: int = 0
    declares: frozenset[str] = frozenset()
    commands: frozenset[str] | None = None


def is_known(entry_point: EntryPoint) -> bool:
    """Whether ``entry_point``'s hooks are known and its entry module is unchanged since."""
    if entry_point.hooks is None or not entry_point.file:
        return False
    try:
        return os.stat(entry_point.file).st_mtime_ns == entry_point.mtime
    except OSError:
        return False


def _fingerprint() -> str:
    """What decides the installed entry points: the interpreter, the path entries and when each
    last changed (installing, upgrading or removing a distribution adds or replaces a
    ``*.dist-info`` folder in one of them)."""
    parts = [_CACHE_VERSION, sys.executable, sys.prefix]
    for entry in sys.path:
        try:
            parts.append(f"{entry}\t{os.stat(entry or '.').st_mtime_ns}")
        except OSError:
            parts.append(f"{entry}\t-")
    return "\n".join(parts)


def _cache_file(fingerprint: str) -> str:
    """One file per fingerprint (``chatcli`` and ``python -m chatcli`` see different paths).

    The name only spreads fingerprints over files; the file itself holds the whole fingerprint
    and is used only when it matches, so a cheap checksum is enough (no hashlib at start-up).
    """
    from chatcli._paths import directory

    data = fingerprint.encode("utf-8", "surrogateescape")
    digest = (len(data) * 65_537 + sum(data) * 31 + sum(data[::7])) % 2**32
    return os.path.join(directory("cache"), f"entry-points-{digest:08x}.txt")


def _read_cache(fingerprint: str) -> list[EntryPoint] | None:
    try:
        with open(_cache_file(fingerprint), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    head, sep, body = text.partition("\n\n")
    if not sep or head != fingerprint:
        return None
    found = []
    for line in body.splitlines():
        fields = line.split("\t")
        if len(fields) != 7:
            return None
        name, value, hooks, file, mtime, declares, commands = fields
        found.append(EntryPoint(name, value, _names(hooks), file,
                                int(mtime) if mtime.isdigit() else 0,
                                frozenset(filter(None, declares.split(","))), _names(commands)))
    return found


def _names(field: str) -> frozenset[str] | None:
    return None if field == "?" else frozenset(filter(None, field.split(",")))


def _field(names: frozenset[str] | None) -> str:
    return "?" if names is None else ",".join(sorted(names))


def _write_cache(fingerprint: str, found: list[EntryPoint]) -> None:
    from pathlib import Path

    from chatcli._paths import atomic_write

    body = "".join(
        f"{ep.name}\t{ep.value}\t{_field(ep.hooks)}\t{ep.file}\t{ep.mtime}"
        f"\t{_field(ep.declares)}\t{_field(ep.commands)}\n" for ep in found)
    with contextlib.suppress(OSError):  # a read-only home still works, just uncached
        atomic_write(Path(_cache_file(fingerprint)), f"{fingerprint}\n\n{body}", mode=0o600)


def _ask_stevedore() -> list[EntryPoint]:
    from stevedore import NamedExtensionManager

    # Asked for no names, stevedore lists the group without importing any plugin.
    manager: NamedExtensionManager[Any] = NamedExtensionManager(ENTRY_POINT_GROUP, names=[])
    seen: dict[str, EntryPoint] = {}
    for ep in manager.list_entry_points():
        seen.setdefault(ep.name, EntryPoint(ep.name, ep.value))
    return sorted(seen.values(), key=lambda ep: ep.name)


def find_entry_points() -> list[EntryPoint]:
    """The installed plugins' entry points, sorted by name (from the cache when it is valid)."""
    fingerprint = _fingerprint()
    found = _read_cache(fingerprint)
    if found is None:
        found = _ask_stevedore()
        _write_cache(fingerprint, found)
    return found


def remember_hooks(learned: dict[str, EntryPoint]) -> None:
    """Record what importing some plugins taught (their hooks, entry module and its time, the
    commands they add) in the cache, for the next start-up; ``learned`` maps plugin names to
    updated entries."""
    fingerprint = _fingerprint()
    found = _read_cache(fingerprint)
    if found is None:
        return
    updated = [learned.get(ep.name, ep) if learned.get(ep.name, ep).value == ep.value else ep
               for ep in found]
    if updated != found:
        _write_cache(fingerprint, updated)


def module_file(plugin: object) -> tuple[str, int]:
    """The file a plugin (a module, or an object from one) was imported from and its
    modification time; ``("", 0)`` when it has none."""
    module: object = plugin
    if not isinstance(plugin, ModuleType):  # an attribute: a class, an instance, a function
        name = getattr(plugin, "__module__", None) or type(plugin).__module__
        module = sys.modules.get(name)
    file = getattr(module, "__file__", None) or ""
    try:
        return file, os.stat(file).st_mtime_ns
    except OSError:
        return "", 0


class CtrlC:
    """Tells the user's Ctrl+C from a plugin raising ``KeyboardInterrupt`` by itself.

    For the duration of a ``with`` block the SIGINT handler is wrapped so that it notes the
    signal (``pressed``) before doing what it did before (by default: raise
    ``KeyboardInterrupt``). A ``KeyboardInterrupt`` out of the block with ``pressed`` still
    False came from code, not from the user. Outside the main thread (signals only reach the
    main thread) or when SIGINT is ignored or left to the system, nothing is wrapped: no
    ``KeyboardInterrupt`` can come from the user there. A handler the block itself installs (a
    plugin that sets its own) is left in place.
    """

    def __init__(self) -> None:
        self.pressed = False
        self._noted: Callable[..., Any] | None = None
        self._previous: Callable[..., Any] | None = None

    def __enter__(self) -> CtrlC:
        import _signal  # the C module: ``signal`` would build its enums (about 1 ms)

        previous = _signal.getsignal(_signal.SIGINT)
        if not callable(previous):
            return self

        def noted(signum: int, frame: Any) -> Any:
            self.pressed = True
            return previous(signum, frame)

        try:
            _signal.signal(_signal.SIGINT, noted)
        except ValueError:  # not the main thread
            return self
        self._noted, self._previous = noted, previous
        return self

    def __exit__(self, *exc: object) -> None:
        if self._noted is None:
            return
        import _signal

        if _signal.getsignal(_signal.SIGINT) is self._noted:
            _signal.signal(_signal.SIGINT, self._previous)
        self._noted = self._previous = None


def load_entry_point(
    entry_point: EntryPoint, on_stdout: Callable[[str], None]
) -> object:
    """Import the plugin ``entry_point`` names and return it (a module or an attribute).

    Raises whatever the import raised (the caller isolates it, and tells the user's Ctrl+C
    from a ``KeyboardInterrupt`` the plugin raised with :class:`CtrlC`). Text the plugin
    writes to ``sys.stdout`` while importing is captured and handed to ``on_stdout`` instead
    of reaching chatcli's output.
    """
    module_name, _, attribute = entry_point.value.partition(":")
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        plugin: object = import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            plugin = getattr(plugin, part)
    if captured.getvalue():
        on_stdout(captured.getvalue())
    return plugin
