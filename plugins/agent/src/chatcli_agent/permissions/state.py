"""A session's permissions: its mode and rules, where each came from, and remembered answers.

Rules come from the user's config file (``[permissions] allow/ask/deny``), the allow rules the
person saved for this project ("always" at the approval prompt: ``project-permissions.json``
in chatcli's config folder, by project root — the user's file, which a cloned repository cannot
write), the project's ``.chatcli/config.toml`` (``deny`` and ``ask`` only: a project you cloned
must not be able to allow anything), other settings layers (``CHATCLI_PERMISSIONS__…``),
``--allow RULE`` and the answers given during the session. The mode comes from
``--permission-mode``, else ``[permissions] mode`` (a project may only choose ``default`` or
``plan``), else ``default``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_agent.permissions.cli_options import EFFECTS, MODES
from chatcli_agent.permissions.managed import disabled_modes, mode_off, refuse_denied_allows

if TYPE_CHECKING:
    from chatcli import Settings

    from chatcli_agent.permissions.policy import Judgement, Policy
    from chatcli_agent.permissions.rules import Rule

__all__ = ["PermissionState", "load_state", "project_config_file", "project_rules_path",
           "save_project_allow_rules", "saved_project_rules"]

_, ngettext = translation(__name__)

USER = "user config"
PROJECT = "project config"
#: rules the person saved for one project ("always" at the approval prompt)
SAVED = "saved for this project"
#: where those rules live: in chatcli's config folder (the user's, never the project's — a
#: cloned repository cannot plant one), by project root
PROJECT_RULES_FILE = "project-permissions.json"
SETTINGS = "settings"
FLAG = "--allow"
_RISK_CLASSES = frozenset({"read", "write", "execute", "network"})
SESSION = "this session"

#: modes a project's config may choose (it may make things stricter, never looser)
_PROJECT_MODES = ("default", "plan")


class PermissionState:
    """What one session's policy knows. The :class:`Policy` that judges calls is made at the
    first judgement (its module and the shell parser are most of the policy's start-up cost,
    and a run without tool calls never needs them); until then the state holds its mode and
    rules, which the policy then shares. (A plain class: every session makes one, and making
    a dataclass costs about a millisecond at import; the rules module is imported when a rule
    is first added.)"""

    def __init__(self, workspace: Path, allowed_dirs: tuple[str | Path, ...] = (),
                 classes: frozenset[str] = frozenset(), mode_source: str = "default",
                 notes: list[str] | None = None, start_mode: str = "default") -> None:
        self.workspace = workspace
        self.allowed_dirs = allowed_dirs
        self.classes = classes
        self.mode_source = mode_source
        self.notes: list[str] = [] if notes is None else notes
        #: the judgement of each call that was asked about, by call id, until it is answered
        self.pending: dict[str, Judgement] = {}
        #: the mode the session started in (``/permissions cycle`` includes it)
        self.start_mode = start_mode
        #: the rules, in the order they were added (the policy's own list, once it is made)
        self.rules: list[Rule] = []
        self._mode = "default"
        self._policy: Policy | None = None
        #: modes that are off (``[permissions] disabled_modes``) → what turned each off
        self.disabled: dict[str, str] = {}

    @property
    def policy(self) -> Policy:
        """The policy judging this session's calls (made on first use)."""
        if self._policy is None:
            from chatcli_agent.permissions.policy import Policy

            policy = Policy(self.workspace, mode=self._mode, allowed_dirs=self.allowed_dirs,
                            classes=self.classes)
            policy.rules = self.rules  # one list: a rule added later reaches the policy
            self._policy = policy
        return self._policy

    @property
    def mode(self) -> str:
        return self._policy.mode if self._policy is not None else self._mode

    def set_mode(self, mode: str, source: str = "/permissions") -> None:
        """Switch to ``mode``; ValueError for an unknown one, :class:`chatcli.ConfigError` for
        one that is off (the managed policy's ``disabled_modes``)."""
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}' (choose {', '.join(MODES)})")
        if mode in self.disabled:
            raise mode_off(mode, f"{source} {mode}", self.disabled[mode])
        from chatcli import check_managed

        check_managed(f"{source} {mode}", {"permissions": {"mode": mode}})  # a managed mode
        self._mode = mode
        if self._policy is not None:
            self._policy.mode = mode
        self.mode_source = source

    def cycle_order(self) -> list[str]:
        """The modes ``/permissions cycle`` goes through: default, accept-edits, plan, and
        auto when the session started in it."""
        order = ["default", "accept-edits", "plan"]
        if "auto" in (self.start_mode, self.mode):
            order.append("auto")
        return [mode for mode in order if mode == self.mode
                or (mode not in self.disabled and _managed_allows(mode))]

    def cycle(self) -> str:
        order = self.cycle_order()
        current = self.mode if self.mode in order else order[-1]
        self.set_mode(order[(order.index(current) + 1) % len(order)], "/permissions cycle")
        return self.mode

    def add_rules(self, texts: list[str], effect: str, source: str) -> list[Rule]:
        added: list[Rule] = []
        if not texts:
            return added
        from chatcli_agent.permissions.rules import RuleError, parse_rule

        for text in texts:
            try:
                rule = parse_rule(text, effect, source)
            except RuleError as err:
                self.notes.append(_("ignored {effect} rule {rule!r} ({source}): {error}").format(
                    effect=effect, rule=text, source=source, error=err))
                continue
            if not any(r.text == rule.text and r.effect == effect for r in self.rules):
                self.rules.append(rule)
                added.append(rule)
        return added


def _managed_allows(mode: str) -> bool:
    """Whether the managed policy lets the session switch to ``mode`` (no managed mode, or
    this one)."""
    from chatcli import ConfigError, check_managed

    try:
        check_managed("cycle", {"permissions": {"mode": mode}})
    except ConfigError:
        return False
    return True


def _read(path: Path | None, notes: list[str]) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below, once tomllib has read it)
    except FileNotFoundError:
        return {}
    except OSError as err:
        notes.append(_("could not read {path}: {error}").format(path=path, error=err))
        return {}
    import tomllib  # (here: most runs have no such file to read)

    try:
        with handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as err:
        notes.append(_("could not read {path}: {error}").format(path=path, error=err))
        return {}
    table = data.get("permissions")
    return table if isinstance(table, dict) else {}


def project_config_file(workspace: Path) -> Path | None:
    """The nearest ``.chatcli/config.toml`` at or above ``workspace`` (the home folder's own
    ``.chatcli`` does not count), as the kernel finds it."""
    home = os.path.realpath(os.path.expanduser("~"))
    folder = os.path.realpath(str(workspace))
    while True:
        if folder != home:
            candidate = os.path.join(folder, ".chatcli", "config.toml")
            if os.path.isdir(os.path.join(folder, ".chatcli")):
                return Path(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _texts(value: Any, what: str, notes: list[str]) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        notes.append(_("ignored {what}: it must be a list of rules, not {kind}").format(
            what=what, kind=type(value).__name__))
        return []
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        else:
            notes.append(_("ignored {item!r} in {what}: a rule is text such as "
                           "'exec(npm test:*)'").format(item=item, what=what))
    return out


#: Rule kinds every policy knows (besides the tools a run has registered).
_KNOWN_KINDS = frozenset({"exec", "test", "read", "edit", "write", "multiedit", "apply_patch",
                          "search", "glob", "tree", "Bash", "Read", "Grep", "Glob", "LS", "Edit",
                          "Write", "MultiEdit", "NotebookEdit"})


def _closest(word: str, choices: Iterable[str]) -> str | None:
    import difflib

    found = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=0.6)
    if not found:  # a case slip: `READ`, `Exec`
        found = [c for c in sorted(set(choices)) if c.casefold() == word.casefold()][:1]
    return found[0] if found else None


def check_rule_kinds(texts: Iterable[str], effect: str, where: str,
                     tools: Iterable[str] = ()) -> None:
    """Raise :class:`chatcli.ConfigError` for a rule whose kind is a misspelling of one that
    exists (``raed(.env)``: did you mean 'read'?). A kind close to nothing known is left alone
    (the tool may come from a plugin that is not loaded); it is noted by ``/permissions``."""
    texts = list(texts)
    if not texts:  # (most runs: no rule at all, and the rules module is not imported)
        return
    from chatcli import ConfigError

    from chatcli_agent.permissions.rules import RuleError, parse_rule

    known = set(_KNOWN_KINDS) | set(tools)
    for text in texts:
        try:
            rule = parse_rule(text, effect)
        except RuleError:
            continue
        name = text.strip().split("(", 1)[0].strip()
        if name in known or rule.tool in known or name.startswith("mcp__") or any(
                c in name for c in "*?"):
            continue
        close = _closest(name, known)
        if close is not None:
            raise ConfigError(_("[permissions] {effect} in {where}: unknown rule kind '{name}' "
                                "in {rule!r}").format(effect=effect, where=where, name=name,
                                                       rule=text.strip()),
                              _("did you mean '{close}'?").format(close=close))


def load_state(settings: Settings, workspace: Path, allow: frozenset[str] | set[str] = frozenset(),
               permission_mode: str | None = None, tools: Iterable[str] | None = None
               ) -> PermissionState:
    """The permissions of a session opened with ``settings`` in ``workspace``.

    With ``tools`` (the names of the run's tools) the configuration is checked: a mode that is
    not one, or a rule kind that is a misspelling (``raed(.env)``), raises
    :class:`chatcli.ConfigError` naming the closest name."""
    from chatcli import user_config_path

    notes: list[str] = []
    user_path = user_config_path()
    user = _read(user_path, notes)
    project_path = project_config_file(workspace)
    project = _read(project_path, notes) if project_path is not None else {}
    merged = settings.plugin_table("permissions")
    # --allow: risk classes, and rules (``exec(npm test:*)``, or a bare ``mcp__server``)
    state = PermissionState(workspace, allowed_dirs=tuple(settings.allowed_dirs),
                            classes=frozenset(a for a in allow if a in _RISK_CLASSES),
                            notes=notes)
    if tools is not None:
        _check_mode(permission_mode, merged, user, user_path)
        for effect in EFFECTS:
            for texts, where in ((user.get(effect), str(user_path)),
                                 (project.get(effect), str(project_path)),
                                 (merged.get(effect), _("the settings"))):
                check_rule_kinds(_texts(texts, effect, []), effect, where, tools)
        check_rule_kinds(sorted(a for a in allow if a not in _RISK_CLASSES), "allow",
                         "--allow", tools)
    _root, saved = saved_project_rules(workspace, notes)
    if saved:
        state.add_rules(saved, "allow", SAVED)
    for effect in EFFECTS:
        state.add_rules(_texts(user.get(effect), _("{effect} in {path}").format(
            effect=effect, path=user_path), notes), effect, USER)
        project_rules = _texts(project.get(effect), _("{effect} in {path}").format(
            effect=effect, path=project_path), notes)
        if effect == "allow" and project_rules:
            # the kernel's settings keep a project's allow rules only once it is trusted, and
            # only reads and edits inside it (register_setting_rules): take those
            kept = _texts(merged.get("allow"), "allow in the settings", [])
            taken = [rule for rule in project_rules if rule in kept]
            state.add_rules(taken, effect, PROJECT)
            if len(taken) < len(project_rules):
                notes.append(_("ignored {count} allow rule(s) in the project config {path}: a "
                               "project allows only reads and edits inside it, once trusted "
                               "(`chatcli trust`); put others in {user_path}").format(
                                   count=len(project_rules) - len(taken), path=project_path,
                                   user_path=user_path))
        else:
            state.add_rules(project_rules, effect, PROJECT)
        value = merged.get(effect)
        if value is not None and value != user.get(effect) and value != project.get(effect):
            state.add_rules(_texts(value, _("{effect} in the settings").format(effect=effect),
                                   notes), effect, SETTINGS)
    state.add_rules(sorted(a for a in allow if a not in _RISK_CLASSES), "allow", FLAG)
    state.disabled = disabled_modes(merged)
    if permission_mode:  # (not a settings layer: the kernel has not seen it)
        from chatcli import check_managed

        check_managed("--permission-mode", {"permissions": {"mode": permission_mode}})
    mode, source = _mode(permission_mode, merged, user, project, project_path, notes)
    if mode in state.disabled:  # the flag, a file or a variable asks for a mode that is off
        where = {USER: str(user_path), PROJECT: str(project_path)}.get(source, source)
        raise mode_off(mode, f"{where} ({mode})", state.disabled[mode])
    refuse_denied_allows(state.rules)
    state._mode = mode
    state.mode_source = source
    state.start_mode = mode
    return state


def _check_mode(flag: str | None, merged: dict[str, Any], user: dict[str, Any],
                user_path: Path) -> None:
    """Raise :class:`chatcli.ConfigError` for a ``mode`` that is not one of :data:`MODES`
    (a project's is never used — a project cannot set the mode — so it cannot stop chatcli
    either)."""
    from chatcli import ConfigError

    for value, where in ((flag, "--permission-mode"), (user.get("mode"), str(user_path)),
                         (merged.get("mode"), _("the settings"))):
        if value is None or value in MODES:
            continue
        shown = value if isinstance(value, str) else repr(value)
        close = _closest(shown, MODES) if isinstance(value, str) else None
        modes = ", ".join(MODES)
        raise ConfigError(_("[permissions] mode in {where}: unknown mode {mode!r}").format(
            where=where, mode=shown),
            _("did you mean '{close}'? (choose {modes})").format(close=close, modes=modes)
            if close else _("choose {modes}").format(modes=modes))


def _mode(flag: str | None, merged: dict[str, Any], user: dict[str, Any],
          project: dict[str, Any], project_path: Path | None, notes: list[str]
          ) -> tuple[str, str]:
    if flag:
        if flag in MODES:
            return flag, "--permission-mode"
        notes.append(_("ignored --permission-mode {mode!r} (choose {modes})").format(
            mode=flag, modes=", ".join(MODES)))
    value = merged.get("mode")
    if value is None:
        return "default", "default"
    if value not in MODES:
        notes.append(_("ignored [permissions] mode = {mode!r} (choose {modes})").format(
            mode=value, modes=", ".join(MODES)))
        return "default", "default"
    if "mode" in project and value == project.get("mode") and value != user.get("mode"):
        if value not in _PROJECT_MODES:
            notes.append(_("ignored mode = {mode!r} in the project config {path}: a project "
                           "may only choose default or plan").format(mode=value,
                                                                     path=project_path))
            fallback = user.get("mode")
            if fallback in MODES:
                return fallback, USER
            return "default", "default"
        return value, PROJECT
    if value == user.get("mode"):
        return value, USER
    return value, SETTINGS


def project_rules_path() -> Path:
    """The file of the rules saved for each project (in chatcli's config folder)."""
    from chatcli import config_dir

    return config_dir() / PROJECT_RULES_FILE


def _read_project_rules(path: Path) -> dict[str, Any]:
    """``{"projects": {root: {"allow": [...]}}}`` as stored; {} when there is no file.
    Raises ValueError for a file that is not that."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("projects", {}), dict):
        raise ValueError("not a JSON object with a \"projects\" table")
    return data


def saved_project_rules(workspace: Path, notes: list[str] | None = None
                        ) -> tuple[str | None, list[str]]:
    """The project root of ``workspace`` and the allow rules the person saved for it (an
    "always" answer); a file that cannot be read is noted and gives none."""
    from chatcli import project_root

    root = project_root(workspace)
    if root is None:
        return None, []
    path = project_rules_path()
    try:
        data = _read_project_rules(path)
    except (OSError, ValueError) as err:
        if notes is not None:
            notes.append(f"could not read {path}: {err}")
        return root, []
    entry = data.get("projects", {}).get(root)
    rules = entry.get("allow") if isinstance(entry, dict) else None
    return root, [r for r in rules if isinstance(r, str)] if isinstance(rules, list) else []


def save_project_allow_rules(workspace: Path, rules: list[str]) -> tuple[str, Path]:
    """Add ``rules`` to the allow rules saved for the project of ``workspace`` (atomically,
    0600, in chatcli's config folder); returns the project root and the file. ValueError
    when the workspace has no project (the home folder) or the file cannot be read."""
    from chatcli import project_root

    root = project_root(workspace)
    if root is None:
        raise ValueError("the home folder is no project")
    path = project_rules_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    import fcntl

    # under a lock: two sessions answering "always" at once both keep their rules
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        _add_project_rules(path, root, rules)
    return root, path


def _add_project_rules(path: Path, root: str, rules: list[str]) -> None:
    """Add ``rules`` to ``root``'s entry of the file at ``path`` (the caller holds the lock)."""
    from chatcli import atomic_write

    data = _read_project_rules(path)
    projects = dict(data.get("projects", {}))
    found = projects.get(root)
    entry: dict[str, Any] = found if isinstance(found, dict) else {}
    current = [r for r in entry.get("allow", []) if isinstance(r, str)]
    new = current + [r for r in rules if r not in current]
    if new != current:
        projects[root] = {**entry, "allow": new}
        # (ASCII: a rule or a folder name holding any character, even one no encoding takes,
        # is written and read back as it was)
        text = json.dumps({**data, "projects": projects}, indent=1) + "\n"
        atomic_write(path, text, mode=0o600)
