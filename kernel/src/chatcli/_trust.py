"""Workspace trust: which files of a project change chatcli, whether the user trusted them, and
which settings a project's ``.chatcli/config.toml`` may set.

A repository someone else wrote must not turn chatcli against its user. So the files a project holds
that change chatcli's behaviour (its *control files*: ``.chatcli/config.toml``, and what plugins
declare as :class:`ControlFile` through ``register_setting_rules`` — ``.mcp.json``, project skills…)
take effect only once the user trusted the project (``chatcli trust``): the record keeps a digest of
those files, and any change to them asks again.

Settings of the project layer follow :class:`SettingRule` (the kernel's own, and those plugins
register through ``register_setting_rules``):

- ``never``: a project never sets it, trusted or not (endpoints, keys, programs to run,
  anything that loosens security) — a user or command-line setting only;
- ``trusted`` (undeclared keys too): taken only from a trusted project;
- ``always``: taken even from an untrusted project, and only as a tightening — combined with the
  user's value by the rule's ``merge`` (``union`` of lists, ``min`` of numbers).

The project root is the nearest folder at or above the workspace holding ``.chatcli/`` (as
settings find it), else the nearest holding ``.git`` (the repository), else the workspace
itself; the home folder is never a project (its ``.chatcli`` is nobody's), so a workspace whose
only candidate is the home folder has no root and nothing to trust.

Kept light: no pydantic, no pathlib at import; nothing here runs unless a project has a config
file or a session starts.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from chatcli_records_lite import NamedTuple, dataclass

from chatcli._i18n import translation

if TYPE_CHECKING:
    import re
    from pathlib import Path

    from chatcli._plugins import PluginHost

__all__ = ["CONFIG_FILE", "ControlFile", "ProjectTrust", "SettingRule", "filter_project_layer",
           "forget", "kernel_rules", "project_root", "project_trust", "setting_rules",
           "trusted_projects"]
_, ngettext = translation(__name__)

#: The kernel's own control file, relative to the project root.
CONFIG_FILE = ".chatcli/config.toml"

#: The record of trusted projects, in chatcli's data folder (chatcli-workspace writes it).
TRUST_FILE = "trusted-projects.json"

_LEVELS = ("never", "trusted", "always")
_MERGES = ("replace", "union", "min")


@dataclass(frozen=True)
class SettingRule:
    """What a project's ``.chatcli/config.toml`` may do with one setting.

    :param key: the setting's dotted path; ``*`` stands for one level
        (``"providers.*.base_url"``, ``"permissions.allow"``, ``"coder.sandbox"``). A rule also
        covers everything inside a table it names (``"mcp.servers"``), unless a longer rule
        says otherwise. The longest matching rule wins; between equally long ones the stricter
        (``never``, then ``trusted``, then ``always``). A kernel ``never`` cannot be loosened by
        a plugin's rule.
    :param project: ``"never"`` — dropped from every project, trusted or not (the user's file,
        ``CHATCLI_*`` variables and flags still set it); ``"trusted"`` — taken only from a
        trusted project (the default for keys no rule names); ``"always"`` — taken even from an
        untrusted project, as a tightening (declare a ``merge`` that tightens).
    :param merge: how a project value that is taken combines with the user file's value (the
        layer below): ``"replace"`` (the project's wins), ``"union"`` (lists: the user's items
        then the project's new ones, so a project can never erase the user's deny rules),
        ``"min"`` (numbers: the smaller; with no user value, the kernel setting's default for
        the kernel's own keys, else the project's value).
    :param keep: ``keep(value, project_root)`` returns what of a project's value may be taken
        (None, or an empty list, drops it), e.g. only folders inside the project. Called before
        ``merge``; it must not raise (a value it does not understand is dropped).
    """

    key: str
    project: Literal["never", "trusted", "always"]
    merge: Literal["replace", "union", "min"] = "replace"
    keep: Callable[[Any, Path], Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key or any(
                not part for part in self.key.split(".")):
            raise ValueError(f"SettingRule key must be a dotted path, not {self.key!r}")
        for name, value, allowed in (("project", self.project, _LEVELS),
                                     ("merge", self.merge, _MERGES)):
            if value not in allowed:
                raise ValueError(f"SettingRule {name} must be one of {', '.join(allowed)}, "
                                 f"not {value!r}")

    @property
    def parts(self) -> tuple[str, ...]:
        """The key split at its dots."""
        return tuple(self.key.split("."))


@dataclass(frozen=True)
class ProjectTrust:
    """Whether the user trusts the project a workspace belongs to.

    :param root: the project root (the nearest folder with ``.chatcli/``, else the git
        repository's top folder, else the workspace); None when there is no project (the
        workspace is the home folder).
    :param files: the control files present, relative to ``root`` (``/``-separated), sorted.
    :param trusted: True when there are no control files, or the user trusted exactly these
        files' current contents.
    :param changed: the user trusted this project before, but its control files changed since
        (``trusted`` is then False: ask again).
    :param digest: sha256 (hex) over the control files' relative paths and contents ("" when
        there are none).
    """

    root: Path | None
    files: tuple[str, ...]
    trusted: bool
    changed: bool
    digest: str


# ------------------------------------------------------------------------------ the host

_lock = threading.RLock()
#: the command line's host the caches below were computed with
_seen: Any = None
#: root (text) → (its control files' stats, its ProjectTrust), for this process
_cache: dict[str, tuple[Any, ProjectTrust]] = {}
#: id(host) → (host, (the kernel's rules, its plugins' rules), its control file patterns)
_registered: dict[int, tuple[Any, tuple[list[SettingRule], list[SettingRule]], list[str]]] = {}


def forget() -> None:
    """Forget the trust states and dropped settings computed so far (files may have changed)."""
    with _lock:
        _cache.clear()
        _presence.clear()
        _registered.clear()


def _the_host(host: PluginHost | None) -> PluginHost | None:
    """``host``, else the running command line's. A new command line (in-process runs of
    tests) starts with fresh trust states."""
    global _seen
    if host is not None:
        return host
    from chatcli._cli import running_host

    current = running_host()
    with _lock:
        if current is not _seen:
            _seen = current
            forget()
    return current


# ------------------------------------------------------------------------------ the project


def project_root(workspace: str | Path) -> str | None:
    """The project root of ``workspace`` as text (see :class:`ProjectTrust`), without running
    git: the nearest ``.chatcli`` folder, else the nearest ``.git`` (folder or file), else the
    workspace; None when that would be the home folder."""
    from chatcli._paths import project_directory

    start = os.path.realpath(str(workspace))
    found = project_directory(start) or project_directory(start, ".git", os.path.exists)
    if found is not None:
        return found
    return None if start == os.path.realpath(os.path.expanduser("~")) else start


class ControlFile(NamedTuple):
    """A file of a project that a plugin reads and that changes chatcli's behaviour, as
    ``register_setting_rules`` registers it: workspace trust covers it (its digest is in the
    trust record, a change asks again) and the plugin reads it only in a trusted project.

    ``pattern`` is a glob relative to the project root, ``/``-separated (``".mcp.json"``,
    ``".chatcli/skills/**"``); ``**`` spans folders and hidden files match. Absolute patterns
    and ones climbing out with ``..`` are reported and ignored.
    """

    pattern: str


def _registrations(host: PluginHost | None
                   ) -> tuple[tuple[list[SettingRule], list[SettingRule]], list[str]]:
    """What ``host``'s plugins register through ``register_setting_rules`` (asked once a host):
    ``((the kernel's rules, the plugins' rules), the control file patterns)`` — the kernel's
    ``.chatcli/config.toml`` first. Anything else registered, and patterns that are absolute or
    climb out of the root (``..``), are reported and left out."""
    with _lock:
        cached = _registered.get(id(host))
        if cached is not None and cached[0] is host:
            return cached[1], cached[2]
    rules: list[SettingRule] = []
    patterns = [CONFIG_FILE]
    if host is not None:
        from chatcli._guard import current_plugin, describe

        def register(item: Any) -> None:
            if isinstance(item, SettingRule):
                rules.append(item)
                return
            if not isinstance(item, ControlFile):
                host.warn(_("plugin {name!r} registered {value} as a setting rule, expected "
                            "SettingRule (ignored)").format(name=current_plugin.get() or "?",
                                                            value=describe(item)))
                return
            text = item.pattern.replace("\\", "/") if isinstance(item.pattern, str) else ""
            if not text or text.startswith("/") or ".." in text.split("/") or "\x00" in text:
                host.warn(_("ignored the project control file pattern {pattern!r}: it must be a "
                            "relative glob such as '.mcp.json'").format(pattern=item.pattern))
            elif text not in patterns:
                patterns.append(text)

        host.hooks.register_setting_rules(register=register)
    found = ((kernel_rules(), rules), patterns)
    with _lock:
        _registered[id(host)] = (host, *found)
    return found


#: Entries one pattern's walk visits at most (a project tree that large is no control folder).
MAX_WALK = 100_000


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A control-file glob as a regex over ``/``-separated relative paths: ``**`` spans folders,
    ``*`` and ``?`` stay inside one, ``[...]`` is a class; hidden names match."""
    import re

    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        elif pattern[index] == "[" and "]" in pattern[index + 2:]:
            end = pattern.index("]", index + 2)
            inner = pattern[index + 1:end].replace("\\", "\\\\")
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
            index = end + 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


#: Folders whose times are at least this recent (ns) when they are read are "racy": a change
#: in the same clock tick could leave their times as they were, so a scan that read them is
#: not kept (the idea of git's racy index entries). Two seconds cover coarse file systems.
_RACY_NS = 2_000_000_000
#: (root, patterns) → (the signatures of every path the scan read, the files it found)
_presence: dict[tuple[str, tuple[str, ...]], tuple[tuple[Any, ...], tuple[str, ...]]] = {}


def _sig(path: str) -> tuple[int, ...] | None:
    """What changes when an entry is added to, removed from or renamed in folder ``path``
    (or when ``path`` itself is replaced); None when it does not exist."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_mode, info.st_ino, info.st_dev, info.st_mtime_ns, info.st_ctime_ns)


def _segments(pattern: str) -> list[re.Pattern[str] | str | None]:
    """What each leading ``/``-part of ``pattern`` that names a single entry matches: None any
    name (``*``), a text that name, else a regex. The walk descends only into entries these
    match. They stop at the first part with ``**`` (which spans folders) or a ``[...]`` class
    (which could hold a ``/``); from there on everything is walked and the whole pattern's
    regex decides."""
    segments: list[re.Pattern[str] | str | None] = []
    for part in pattern.split("/"):
        if "**" in part or "[" in part or "]" in part:
            break
        segments.append(None if part == "*" else part if "*" not in part and "?" not in part
                        else _glob_regex(part))
    return segments


def _present(root: str, patterns: list[str]) -> tuple[str, ...]:
    """The regular files under ``root`` that ``patterns`` name, relative and sorted. Links are
    followed (a plugin reading the files follows them too), each folder walked once, so a link
    loop cannot hang it; a walk stops after :data:`MAX_WALK` entries. A walk descends only into
    folders the pattern's leading parts can match (``*/.chatcli/skills/**`` reads the root, its
    folders and their ``.chatcli``, not the whole tree).

    The answer is kept for the process and given again while no folder the scan read (nor any
    on the way to a file it looked for) changed; a scan that met a link, hit the walk limit or
    read a folder changed in the last two seconds is not kept (see :data:`_RACY_NS`)."""
    import time

    key = (root, tuple(patterns))
    with _lock:
        kept = _presence.get(key)
    if kept is not None and all(_sig(os.path.join(root, rel) if rel else root) == sig
                                for rel, sig in kept[0]):
        return kept[1]
    start = time.time_ns()
    found: set[str] = set()
    read: dict[str, tuple[int, ...] | None] = {}
    keep = True

    def chain(relative: str) -> None:
        """Read the signature of ``relative`` and of every folder on the way to it."""
        nonlocal keep
        parts = relative.split("/") if relative else []
        for depth in range(len(parts) + 1):
            rel = "/".join(parts[:depth])
            if rel not in read:
                sig = read[rel] = _sig(os.path.join(root, rel) if rel else root)
                if sig is not None and (sig[0] & 0o170000) == 0o120000:  # a link
                    keep = False
            if read[rel] is None:
                return

    for pattern in patterns:
        parts = pattern.split("/")
        fixed = 0
        while fixed < len(parts) and not any(ch in parts[fixed] for ch in "*?["):
            fixed += 1
        if fixed == len(parts):
            chain(pattern)
            if os.path.isfile(os.path.join(root, pattern)):
                found.add(pattern)
            continue
        regex: re.Pattern[str] | None = None  # compiled when a file could match
        segments = _segments(pattern)
        pruned = len(segments)
        first = "/".join(parts[:fixed])
        stack = [(first, fixed)]
        chain(first)
        visited: set[tuple[int, int]] = set()
        seen = 0
        while stack:
            if seen > MAX_WALK:
                keep = False
                break
            relative, depth = stack.pop()
            folder = os.path.join(root, relative) if relative else root
            try:
                info = os.stat(folder)
                if (info.st_dev, info.st_ino) in visited:
                    continue
                visited.add((info.st_dev, info.st_ino))
                read.setdefault(relative, (info.st_mode, info.st_ino, info.st_dev,
                                           info.st_mtime_ns, info.st_ctime_ns))
                entries = list(os.scandir(folder))
            except OSError:  # a missing first folder was read on the way to it; else a race
                if relative != first or read.get(first) is not None:
                    keep = False
                continue
            for entry in entries:
                seen += 1
                if depth < pruned:
                    segment = segments[depth]
                    if segment is not None and (entry.name != segment if isinstance(segment, str)
                                                else not segment.match(entry.name)):
                        continue
                name = f"{relative}/{entry.name}" if relative else entry.name
                try:
                    if entry.is_symlink():
                        keep = False
                    if entry.is_dir():
                        if depth + 1 < len(parts) or depth >= pruned:
                            stack.append((name, depth + 1))
                    elif entry.is_file():
                        regex = regex or _glob_regex(pattern)
                        if regex.match(name):
                            found.add(name)
                except OSError:
                    keep = False
                    continue
    files = tuple(sorted(found))
    if keep and all(sig is None or max(sig[3], sig[4]) < start - _RACY_NS
                    for sig in read.values()):
        with _lock:
            _presence[key] = (tuple(read.items()), files)
    return files


def _digest(root: str, files: tuple[str, ...]) -> str:
    """sha256 over each file's relative path and content (read in blocks), each
    length-prefixed."""
    if not files:
        return ""
    import hashlib

    digest = hashlib.sha256(b"chatcli-trust-1\n")
    for name in files:
        raw = name.encode("utf-8", "surrogateescape")
        digest.update(len(raw).to_bytes(8, "big") + raw)
        content = hashlib.sha256()
        try:
            with open(os.path.join(root, name), "rb") as handle:
                while block := handle.read(1 << 20):
                    content.update(block)
        except OSError as err:  # unreadable now: its state is still part of what was trusted
            content.update(f"\x00unreadable: {err.strerror}".encode())
        digest.update(content.digest())
    return digest.hexdigest()


# ------------------------------------------------------------------------------ the record


def _record_path() -> str:
    from chatcli._paths import directory

    return os.path.join(directory("data"), TRUST_FILE)


def trusted_projects() -> dict[str, dict[str, Any]]:
    """Every trusted project: root → ``{"digest", "files", "when"}``; {} when none. A record
    that cannot be read trusts nothing."""
    try:
        with open(_record_path(), "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {root: entry for root, entry in projects.items()
            if isinstance(entry, dict) and isinstance(entry.get("digest"), str)}


# ------------------------------------------------------------------------------ the API


def _stats(root: str, files: tuple[str, ...]) -> tuple[Any, ...]:
    """What tells whether the control files changed without reading them."""
    out: list[tuple[Any, ...]] = []
    for name in files:
        try:
            info = os.stat(os.path.join(root, name))
            out.append((name, info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns))
        except OSError:
            out.append((name, None))
    return tuple(out)


def project_trust(workspace: Path | str, host: PluginHost | None = None) -> ProjectTrust:
    """Whether the project ``workspace`` belongs to is trusted (see :class:`ProjectTrust`).

    The control files are ``.chatcli/config.toml`` and those plugins name through the
    :class:`ControlFile` registrations (of ``host``, default the command line's). The files' digest
    and the record are read once per process for a root, and again only when a control file
    appears, goes or changes (its size, times or inode), or the record changes.
    """
    from pathlib import Path

    root = project_root(workspace)
    if root is None:
        return ProjectTrust(None, (), True, False, "")
    files = _present(root, _registrations(_the_host(host))[1])
    # the record's file too: a change to it (another process, chatcli-workspace's writers)
    # is noticed without being read (it is replaced atomically: a new inode)
    stats = (_sig(_record_path()), _stats(root, files))
    with _lock:
        cached = _cache.get(root)
    if cached is not None and cached[0] == stats:
        return cached[1]
    digest = _digest(root, files)
    entry = trusted_projects().get(root)
    known = entry.get("digest") if entry else None
    trusted = not files or known == digest
    state = ProjectTrust(Path(root), files, trusted, bool(files) and known is not None
                         and not trusted, digest)
    with _lock:
        _cache[root] = (stats, state)
    return state


# ------------------------------------------------------------------------------ setting rules


def _inside(value: Any, root: Path) -> Any:
    """``allowed_dirs`` of a project: only folders inside the project root, as absolute paths
    with links resolved (so a relative entry cannot mean another folder from elsewhere)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return None
    kept = []
    base = os.path.realpath(str(root))
    for entry in value:
        if not isinstance(entry, str) or not entry or "\x00" in entry:
            continue
        path = os.path.realpath(os.path.join(base, os.path.expanduser(entry)))
        if path == base or path.startswith(base + os.sep):
            kept.append(path)
    return kept


#: What the kernel's own settings may come from a project. Provider tables name endpoints,
#: headers, keys and programs (a CLI provider's command): only the model and how tools are
#: offered may come from a project.
def kernel_rules() -> list[SettingRule]:
    """The kernel's own :class:`SettingRule` list."""
    rules = [
        SettingRule("providers.*.*", "never"),
        *(SettingRule(f"providers.*.{key}", "trusted")
          for key in ("model", "context_window", "tools", "tool_calls", "timeout",
                      "max_retries")),
        SettingRule("allowed_dirs", "trusted", "union", keep=_inside),
        SettingRule("plugins", "never"),  # no enable/disable lists from a project
        SettingRule("policy", "never"),  # the managed policy's own keys (chatcli._managed)
        SettingRule("system", "trusted"),
        SettingRule("language", "never"),  # the user's language, not a repository's
    ]
    rules.extend(SettingRule(key, "always", "min") for key in KERNEL_MIN_DEFAULTS)
    return rules


def setting_rules(host: PluginHost | None = None) -> tuple[list[SettingRule], list[SettingRule]]:
    """``(the kernel's rules, the plugins' rules)`` (plugins of ``host``, default the command
    line's); a plugin registering something else is reported and skipped."""
    return _registrations(_the_host(host))[0]


def _matches(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    return len(pattern) <= len(path) and all(
        p == "*" or p == q for p, q in zip(pattern, path, strict=False))


_STRICT = {"never": 0, "trusted": 1, "always": 2}


def _best(rules: list[SettingRule], path: tuple[str, ...]) -> SettingRule | None:
    matching = [r for r in rules if _matches(r.parts, path)]
    if not matching:
        return None
    return min(matching, key=lambda r: (-len(r.parts), -sum(p != "*" for p in r.parts),
                                        _STRICT[r.project]))


def _rule_for(kernel: list[SettingRule], plugins: list[SettingRule],
              path: tuple[str, ...]) -> SettingRule:
    mine, theirs = _best(kernel, path), _best(plugins, path)
    if mine is not None and mine.project == "never":
        return mine
    return theirs or mine or _UNDECLARED


#: What keys no rule names get (TOML keys may be any text: "" and "." too).
_UNDECLARED = SettingRule("undeclared", "trusted")


def _deeper(rules: list[SettingRule], path: tuple[str, ...]) -> bool:
    """Whether a rule names something inside the table at ``path``."""
    return any(len(r.parts) > len(path) and _matches(r.parts[: len(path)], path)
               for r in rules)


def _leaves(value: Any, path: tuple[str, ...]) -> list[str]:
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    return [".".join(path)]


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _put(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


#: The defaults of the kernel's ``min`` settings (a test checks them against
#: :class:`~chatcli.Settings`): read here so that a project's budget costs no pydantic.
KERNEL_MIN_DEFAULTS: dict[str, Any] = {
    "max_turns": 20, "max_tokens": None, "tool_output_max": 30_000,
    "turn_tool_output_max": 150_000, "max_calls_per_step": 16, "max_repeated_calls": 3,
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _merged(rule: SettingRule, value: Any, lower: Any, path: tuple[str, ...]) -> Any:
    """The project's ``value`` combined with the user's ``lower`` by ``rule.merge``; None when
    nothing of it may be taken."""
    if rule.merge == "union":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list):
            return None
        base = [lower] if isinstance(lower, str) else lower if isinstance(lower, list) else []
        return [*base, *(item for item in items if item not in base)]
    if rule.merge == "min":
        if not _number(value):
            return None
        if lower is None and len(path) == 1:
            lower = KERNEL_MIN_DEFAULTS.get(path[0])
        if lower is None:
            return value
        return min(value, lower) if _number(lower) else None
    return value


def filter_project_layer(data: dict[str, Any], root: Path | str, lower: dict[str, Any],
                         trusted: bool, rules: tuple[list[SettingRule], list[SettingRule]]
                         ) -> tuple[dict[str, Any], list[str], list[str]]:
    """The part of a project's config ``data`` a project may set.

    :param root: the project root (``keep`` functions see it).
    :param lower: the user file's data (what ``union``/``min`` combine with).
    :param trusted: whether the user trusts the project.
    :param rules: ``(kernel rules, plugin rules)`` as :func:`setting_rules` gives them.
    :return: ``(kept data, keys ignored because the project is not trusted, keys no project
        may set)``, the keys dotted.
    """
    from pathlib import Path

    kernel, plugins = rules
    everything = [*kernel, *plugins]
    kept: dict[str, Any] = {}
    untrusted: list[str] = []
    never: list[str] = []
    root_path = Path(root)

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, value in node.items():
            here = (*path, str(key))
            if isinstance(value, dict) and value and _deeper(everything, here):
                walk(value, here)
                continue
            rule = _rule_for(kernel, plugins, here)
            if rule.project == "never":
                never.extend(_leaves(value, here))
                continue
            if rule.project == "trusted" and not trusted:
                untrusted.extend(_leaves(value, here))
                continue
            taken = value
            if rule.keep is not None:
                try:
                    taken = rule.keep(value, root_path)
                except Exception:  # a keep that fails takes nothing
                    taken = None
                if taken != value:  # part of it (or all) is what no project may set
                    part = " " + _("(in part)") if taken not in (None, []) else ""
                    never.extend(leaf + part for leaf in _leaves(value, here))
            if taken is not None and taken != []:
                taken = _merged(rule, taken, _at(lower, here), here)
            if taken is not None and taken != []:
                _put(kept, here, taken)

    walk(data, ())
    return kept, untrusted, never
