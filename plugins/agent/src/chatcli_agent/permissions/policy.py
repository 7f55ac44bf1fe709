"""The permission policy: one tool call in, one :class:`chatcli.Verdict` out.

A call is broken into *parts* — each path a file tool touches, each simple command a shell
command runs, each file it reads or writes, each redirection — and every part is judged. The
call is allowed only when every part is. What decides, strongest first:

1. a ``deny`` rule (refused, with the rule named) — also for a recursive read (``search``,
   ``grep -r``, ``tar``, ``cp -r``) of a folder whose every file it denies, ``mv`` of a file it
   denies, and ``git show REV:PATH``;
2. plan mode, for anything that is not a read (refused: plan mode is read-only);
3. a dangerous command or a write to a protected place (asks; no rule, mode or ``--allow``
   lets it through, and "always"/"session" answers are not remembered); a write to one of
   chatcli's or git's control files (``.git/**``, ``.chatcli/**``, ``.gitattributes``…, see
   :func:`chatcli_workspace.is_control_file`) asks the same way, unless a rule names the file;
4. code the policy cannot see (``python -c``, ``| sh``, a command only known when it runs,
   a command that could not be parsed, awk's ``system``/``getline``/``print >``, sed's
   ``e``/``r``/``w``, ``git -c core.fsmonitor=…``, ``tar --to-command``…), a path a command
   writes or deletes that is only known when it runs (``rm "$F"``, ``xargs rm``), credential
   files, an ``ask`` rule, a path outside the workspace (asks, unless a rule names it);
5. ``allow`` rules, the mode, ``--allow`` risk classes; reads inside the workspace are always
   allowed;
6. everything else asks, offering the narrowest rule that would allow it.

In a run where nobody can be asked, what would ask is refused with one line naming what would
allow it.

This module combines the verdict; what a shell command line does part by part is
:mod:`~chatcli_agent.permissions.shell`, what each program does
:mod:`~chatcli_agent.permissions.programs`, which paths a tool's arguments name
:mod:`~chatcli_agent.permissions.paths`.
"""

from __future__ import annotations

import glob as _glob
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatcli import Confinement, Decision, Risk, ToolCallPart, ToolSpec, Verdict, translation

from chatcli_agent._shell import Word, expand_braces
from chatcli_agent.permissions.dangerous import write_danger
from chatcli_agent.permissions.paths import CWD_KEYS, HARMLESS, tool_kind, tool_paths, tool_subject
from chatcli_agent.permissions.programs import (
    CONTROL_WORDS,
    ENVIRON,
    read_only,
    short,
    suggest_rule,
)
from chatcli_agent.permissions.rules import (
    Rule,
    command_rule,
    hidden_pattern,
    match_command,
    match_path,
    path_prefix,
    path_rule,
    shown_source,
)
from chatcli_agent.permissions.shell import ShellReport, inspect

__all__ = ["MODES", "Judgement", "Part", "Policy", "ShellReport", "mode_help"]

_, ngettext = translation(__name__)

MODES = ("default", "accept-edits", "plan", "auto")

def mode_help(mode: str) -> str:
    """What permission ``mode`` lets through (``/permissions`` shows it), in the user's
    language."""
    return {
        "default": _("reads inside the workspace run; everything else asks"),
        "accept-edits": _("file edits inside the workspace run without asking too"),
        "plan": _("read-only: only reads run, nothing is changed"),
        "auto": _("everything runs except what is dangerous, which still asks"),
    }[mode]

# Levels, strongest first.
DENY, PLAN, DANGER, PROTECTED, CODE, CREDENTIAL, ASK_RULE, OUTSIDE, NEED = range(9)


@dataclass
class Part:
    """Why one part of a call does not simply run."""

    level: int
    reason: str
    rules: list[str] = field(default_factory=list)
    #: how a non-interactive run could allow it
    fix: str = ""
    #: the deny rule that refuses it
    rule: str | None = None


@dataclass
class Judgement:
    """A verdict and what the policy remembers about it (for ``tool_call_decided``)."""

    verdict: Verdict
    #: the rules an "always"/"session" answer saves (empty: nothing to remember)
    rules: list[str] = field(default_factory=list)
    hard: bool = False
    parts: list[Part] = field(default_factory=list)


@dataclass
class _Grant:
    """What judging one call found out about what it may reach when it runs."""

    #: the tool runs its commands in a sandbox that enforces the confinement
    confined: bool = False
    #: something let a write through (a rule, the mode, a risk class), not mere read-only-ness
    writes: bool = False
    #: a rule that names a protected file let a write to it through
    protected: bool = False
    #: what let it through, for :attr:`chatcli.Verdict.by`: ``rule``, ``mode``, ``policy``
    by: str = "policy"

    def allowed_by(self, by: str) -> None:
        """Something let a write through: ``rule`` or ``mode`` (the mode wins)."""
        self.writes = True
        self.by = "mode" if "mode" in (self.by, by) else by


# ------------------------------------------------------------------------------------ places






# ------------------------------------------------------------------------------------ policy


class Policy:
    """The policy of one session: its mode, its rules and the folders it may use."""

    def __init__(self, workspace: Path, *, mode: str = "default", rules: Iterable[Rule] = (),
                 allowed_dirs: Iterable[str | Path] = (), classes: Iterable[str] = (),
                 home: Path | None = None) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.home = Path(os.path.realpath(home or Path.home()))
        self.mode = mode if mode in MODES else "default"
        self.rules: list[Rule] = list(rules)
        self.allowed_dirs = [Path(os.path.realpath(os.path.expanduser(str(d))))
                             for d in allowed_dirs]
        self.classes = {c for c in classes if c in {r.value for r in Risk}}

    # ---------------------------------------------------------------- paths

    def inside(self, path: Path) -> bool:
        from chatcli_workspace import is_inside

        return is_inside(path, [self.workspace, *self.allowed_dirs])

    def real(self, text: str, base: Path) -> Path:
        """The real absolute path of ``text`` (relative to ``base``), wherever it is."""
        from chatcli_workspace import resolve

        return resolve(text, base, allowed=[Path("/")])

    def lexical(self, text: str, base: Path) -> Path:
        """The absolute path of ``text`` with ``..`` folded but links kept."""
        expanded = os.path.expanduser(text)
        return Path(os.path.normpath(os.path.join(str(base), expanded)))

    def paths_of(self, word: Word, base: Path, limit: int = 200) -> list[Path]:
        """The real paths a static word names (braces and globs expanded)."""
        values = expand_braces(word.value) if word.brace else [word.value]
        out: list[Path | None] = []  # None: a path that cannot be resolved (left out)
        for value in values:
            if not value:
                continue
            if word.glob and any(c in value for c in "*?["):
                pattern = os.path.join(str(base), os.path.expanduser(value))
                try:
                    found = sorted(_glob.glob(pattern, include_hidden=True))
                except (OSError, ValueError, re.error):
                    found = []
                matches = found[:limit]
                # past the limit, what a deny rule or the credential list names still counts
                matches += [m for m in found[limit:limit * 100] if self._denied_name(m)]
                if matches:
                    out.extend(self.safe_real(m, base) for m in matches)
                    continue
            out.append(self.safe_real(value, base))
        return [p for p in out if p is not None]

    def _denied_name(self, text: str) -> bool:
        """Whether the path ``text`` (absolute) is a credential or a deny rule's."""
        from chatcli_workspace import is_credential

        path = Path(text)
        return is_credential(path) or self.matching("deny", "read", path=path) is not None

    def safe_real(self, text: str, base: Path) -> Path | None:
        """:meth:`real`, or None for a path that cannot be resolved."""
        try:
            return self.real(text, base)
        except (ValueError, OSError):
            return None

    # ---------------------------------------------------------------- rules

    def matching(self, effect: str, tool: str, *, path: Path | None = None,
                 lexical: Path | None = None, command: Iterable[str] = (),
                 subject: str | None = None, specific: bool = False) -> Rule | None:
        """The first rule with ``effect`` about ``tool`` that matches the call's path, command
        or subject (a bare rule matches every call, unless ``specific``)."""
        texts = list(command)
        for rule in self.rules:
            if rule.effect != effect or not rule.covers(tool):
                continue
            spec = rule.specifier
            if spec is None:
                if not specific:
                    return rule
                continue
            if path is not None:
                if match_path(spec, path, self.workspace, self.home) or (
                        lexical is not None and effect != "allow" and
                        match_path(spec, lexical, self.workspace, self.home)):
                    return rule
            elif texts:
                if any(match_command(spec, text) for text in texts):
                    return rule
            elif subject is not None and match_command(spec, subject):
                return rule
        return None

    # ---------------------------------------------------------------- the entry point

    def judge(self, call: ToolCallPart, tool: ToolSpec) -> Judgement:
        """The verdict on ``call`` (before any question to a person)."""
        kind = tool_kind(tool, call.arguments)
        if kind == "shell" and tool.name != "exec" and not call.arguments.get(
                tool.subject or "command"):
            kind = "other"  # `test` with no command: the project's own test command
        grant = _Grant(confined=bool(getattr(tool, "confined", False)))
        if kind == "shell":
            parts = self._judge_shell(call, tool, grant)
        elif kind in ("read", "edit"):
            parts = self._judge_files(call, tool, kind, grant)
            grant.writes = kind == "edit"
        else:
            parts = self._judge_other(call, tool, grant)
            grant.writes = Risk(tool.risk) != Risk.READ
        judgement = self._verdict(parts, call, tool)
        judgement.verdict = judgement.verdict._replace(
            confinement=self._confinement(judgement, grant), by=judgement.verdict.by or grant.by)
        return judgement

    def _confinement(self, judgement: Judgement, grant: _Grant) -> Confinement:
        """What the call may reach when it runs: after a person's yes (an ask), anything in the
        workspace — and the control files, when those were what was asked about; allowed
        without asking, only what a rule, the mode or a risk class granted (a command allowed
        because it only reads runs with the workspace read-only)."""
        asked = judgement.verdict.decision == Decision.ASK
        protected = any(p.level == PROTECTED for p in judgement.parts)
        return Confinement(writable=asked or grant.writes,
                           protected_writable=(asked and protected) or (
                               grant.protected and judgement.verdict.decision == Decision.ALLOW),
                           hidden=self.hidden())

    def hidden(self) -> tuple[str, ...]:
        """What the deny rules about reading forbid, as absolute paths or globs (``*``, ``**``)
        a sandbox hides and the search tools skip: ``read(./secrets/**)`` is
        ``/ws/secrets/**``, ``read(*.env)`` is ``/ws/**/*.env``, ``read(~/x)`` is ``/home/u/x``."""
        out: list[str] = []
        for rule in self.rules:
            if rule.effect != "deny" or rule.tool != "read" or rule.specifier is None:
                continue
            text = hidden_pattern(rule.specifier, self.workspace, self.home)
            if text not in out:
                out.append(text)
        return tuple(out)

    # ---------------------------------------------------------------- file tools

    def _judge_files(self, call: ToolCallPart, tool: ToolSpec, kind: str,
                     grant: _Grant | None = None) -> list[Part]:
        texts = tool_paths(tool, call.arguments)
        if not texts:
            texts = ["."] if kind == "read" else []
        parts: list[Part] = []
        if not texts:
            parts.append(Part(CODE, _("{tool} names no file the policy can check").format(
                tool=tool.name), [], _("name the files plainly")))
            return parts
        recursive = tool.name in ("search", "glob", "tree")
        for text in texts:
            parts.extend(self._judge_path(tool.name, kind, text, self.workspace,
                                          recursive=recursive, grant=grant))
        return parts

    def _judge_path(self, tool_name: str, access: str, text: str, base: Path, *,
                    recursive: bool = False, via_exec: bool = False,
                    redirect: bool = False, real: Path | None = None,
                    lexical: Path | None = None, what: str | None = None,
                    grant: _Grant | None = None) -> list[Part]:
        """The parts for one path a tool or command reads (``access`` "read") or writes
        ("edit")."""
        from chatcli_workspace import is_credential

        try:
            real = real or self.real(text, base)
        except ValueError as err:
            return [Part(DENY, _("'{path}' is not a usable path ({error})").format(
                path=short(text, 60), error=err))]
        lexical = lexical or self.lexical(text, base)
        if HARMLESS.match(str(real)) or HARMLESS.match(str(lexical)):
            return []
        rule_tool = tool_name if not via_exec else ("read" if access == "read" else "edit")
        shown = self.show(real if not str(lexical).startswith("/proc/") else lexical)
        what = what or (_("reads {path}") if access == "read" else _("writes {path}")).format(
            path=shown)
        parts: list[Part] = []
        deny = self.matching("deny", rule_tool, path=real, lexical=lexical)
        if deny is not None:
            return [Part(DENY, _("{what}, which the rule {rule} ({source}) denies").format(
                what=what, rule=deny.text, source=shown_source(deny.source)), rule=deny.text)]
        if recursive and access == "read":
            whole = self._denies_contents(rule_tool, real)
            if whole is not None:
                return [Part(DENY, _("{what}, a folder whose files the rule {rule} ({source}) "
                                     "denies").format(what=what, rule=whole.text,
                                                      source=shown_source(whole.source)),
                             rule=whole.text)]
            for rule in self.deny_inside(rule_tool, real):
                parts.append(Part(ASK_RULE, _("{what}, a folder holding what the rule {rule} "
                                              "({source}) denies").format(
                                                  what=what, rule=rule.text,
                                                  source=shown_source(rule.source)),
                                  fix=_("narrow it to leave out what {rule} denies").format(
                                      rule=rule.text)))
        if access == "edit":
            hit = write_danger(real, self.home) or (write_danger(lexical, self.home)
                                                     if lexical != real else None)
            if hit is not None:
                return [Part(DANGER, _danger(hit.reason, (
                    _("reads {path}") if access == "read" else _("writes {path}")).format(
                        path=shown)))]
            if self.control(real, lexical):
                if self._names_control(rule_tool, real) is None:
                    named = path_rule("edit", real, self.workspace, self.home)
                    return [Part(PROTECTED, _protected(what), [], _allow_naming(named))]
                if grant is not None:
                    grant.protected = True
        elif (ENVIRON.match(str(lexical)) or ENVIRON.match(str(real))) and not (
                grant is not None and grant.confined) and self.matching(
                    "allow", rule_tool, path=real, specific=True) is None:
            named = path_rule("read", lexical, self.workspace, self.home)
            parts.append(Part(CREDENTIAL, _("{what}, another process's environment or memory, "
                                            "where API keys live").format(what=what), [named],
                              _allow(named)))
        explicit = self.matching("allow", rule_tool, path=real, specific=True)
        suggestion = path_rule(rule_tool if not via_exec else (
            "read" if access == "read" else "edit"), real, self.workspace, self.home)
        if (is_credential(real) or is_credential(lexical)) and explicit is None:
            parts.append(Part(CREDENTIAL, _("{what}, a credential file").format(what=what),
                              [suggestion], _allow(suggestion)))
        ask = self.matching("ask", rule_tool, path=real, lexical=lexical)
        if ask is not None:
            parts.append(Part(ASK_RULE, _("{what}; the rule {rule} ({source}) asks").format(
                what=what, rule=ask.text, source=shown_source(ask.source)), fix=_always_asks(ask)))
        if not self.inside(real) and explicit is None:
            parts.append(Part(OUTSIDE, _("{what}, outside the workspace").format(what=what),
                              [suggestion], _allow_or_folder(suggestion)))
        if parts or access == "read":
            return parts
        # an edit inside the workspace
        if via_exec and not redirect:
            return []  # covered by the decision on the command itself
        if self.mode == "plan":
            return [Part(PLAN, what)]
        if self.mode in ("accept-edits", "auto") or "write" in self.classes or (
                self.matching("allow", rule_tool, path=real) is not None):
            if grant is not None:
                grant.allowed_by("mode" if self.mode in ("accept-edits", "auto") else "rule")
            return []
        return [Part(NEED, _("{what} (edits ask in {mode} mode)").format(what=what,
                                                                        mode=self.mode),
                     [suggestion], _allow_or_mode(suggestion, "accept-edits"))]

    def deny_inside(self, tool: str, folder: Path) -> list[Rule]:
        """Deny rules whose paths lie inside ``folder`` (a recursive read would reach them)."""
        found = []
        for rule in self.rules:
            if rule.effect != "deny" or not rule.covers(tool) or rule.specifier is None:
                continue
            prefix = path_prefix(rule.specifier, self.workspace, self.home)
            if prefix is None:  # a bare name (`.env`, `*.key`): anywhere in the folder
                if _holds_name(folder, rule.specifier.strip().rstrip("/")):
                    found.append(rule)
                continue
            target = Path(prefix)
            # the rule's own folder counts: `secrets/*.key` lies inside `secrets`; and a folder
            # inside it may hold what a glob below it matches (`src/**/*.key` for `src/lib`)
            if target.is_relative_to(folder) or (folder.is_relative_to(target) and any(
                    c in rule.specifier for c in "*?[")):
                found.append(rule)
        return found

    def _denies_contents(self, tool: str, folder: Path) -> Rule | None:
        """A deny rule covering whatever lies in ``folder`` (``secrets/**`` for ``secrets``):
        reading the folder recursively reads only what it denies."""
        probe = folder / "\u2400chatcli-probe\u2400"
        return self.matching("deny", tool, path=probe)

    def show(self, path: Path) -> str:
        if path == self.workspace:
            return _("the workspace")
        if path.is_relative_to(self.workspace):
            return path.relative_to(self.workspace).as_posix()
        if path.is_relative_to(self.home):
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)

    # ---------------------------------------------------------------- other tools

    def _judge_other(self, call: ToolCallPart, tool: ToolSpec, grant: _Grant) -> list[Part]:
        subject = tool_subject(tool, call.arguments)
        name = tool.name
        paths: list[Part] = []
        for key in ("path", "cwd"):
            value = call.arguments.get(key)
            if isinstance(value, str) and value.strip() and value.strip() != ".":
                paths.extend(self._judge_path(name, "read", value, self.workspace))
        if any(p.level == DENY for p in paths):
            return paths
        return paths + self._judge_other_tool(call, tool, subject, name, grant)

    def _judge_other_tool(self, call: ToolCallPart, tool: ToolSpec, subject: str | None,
                          name: str, grant: _Grant) -> list[Part]:
        deny = self.matching("deny", name, subject=subject)
        if deny is not None:
            return [Part(DENY, _("{name} is denied by the rule {rule} ({source})").format(
                name=name, rule=deny.text, source=shown_source(deny.source)), rule=deny.text)]
        ask = self.matching("ask", name, subject=subject)
        if ask is not None:
            return [Part(ASK_RULE, _("{name}: the rule {rule} ({source}) asks").format(
                name=name, rule=ask.text, source=shown_source(ask.source)), fix=_always_asks(ask))]
        risk = Risk(tool.risk)
        if self.matching("allow", name, subject=subject) is not None:
            if risk != Risk.READ:
                grant.allowed_by("mode" if self.mode == "auto" or (
                    self.mode == "accept-edits" and risk == Risk.WRITE) else "rule")
            return []
        if risk == Risk.READ:
            return []
        if self.mode == "plan":
            return [Part(PLAN, f"{name} ({risk.value})")]
        if self.mode == "auto" or risk.value in self.classes:
            grant.allowed_by("mode" if self.mode == "auto" else "rule")
            return []
        rule = f"{name}({subject})" if subject else name
        mode = "accept-edits" if risk == Risk.WRITE else "auto"
        # i18n: English picks its article: an execute tool, a write tool
        message = (_("{name} is an {risk} tool (it asks in {mode} mode)")
                   if risk.value[:1] in "aeiou" else
                   _("{name} is a {risk} tool (it asks in {mode} mode)"))
        return [Part(NEED, message.format(name=name, risk=risk.value, mode=self.mode),
                     [rule], _allow_or_mode(rule, mode))]

    # ---------------------------------------------------------------- shell commands

    def inspect(self, text: str, cwd: Path | None = None) -> ShellReport:
        """Everything the policy needs to know about a command line."""
        return inspect(self, text, cwd)

    # ---------------------------------------------------------------- control files

    def control(self, *paths: Path) -> bool:
        """Whether writing any of ``paths`` writes one of chatcli's or git's control files."""
        from chatcli_workspace import is_control_file

        return any(is_control_file(path, self.workspace) for path in paths)

    def _names_control(self, tool: str, real: Path) -> Rule | None:
        """An allow rule that names the control file ``real`` itself (``edit(.git/config)``,
        ``edit(.chatcli/**)``): a bare ``edit`` or ``edit(**)`` does not."""
        for rule in self.rules:
            if rule.effect != "allow" or not rule.covers(tool) or rule.specifier is None:
                continue
            folded = rule.specifier.casefold()
            if any(name in folded for name in CONTROL_WORDS) and match_path(
                    rule.specifier, real, self.workspace, self.home):
                return rule
        return None

    def _judge_shell(self, call: ToolCallPart, tool: ToolSpec,
                     grant: _Grant | None = None) -> list[Part]:
        grant = grant or _Grant()
        subject = tool.subject or "command"
        text = call.arguments.get(subject)
        if not isinstance(text, str) or not text.strip():
            return [Part(CODE, _("{tool} was given no command the policy can read").format(
                tool=tool.name), [tool.name], _allow(tool.name))]
        cwd = self._exec_cwd(call.arguments)
        parts: list[Part] = []
        if isinstance(cwd, Part):
            parts.append(cwd)
            cwd = None
        report = self.inspect(text, cwd)
        shown = f"`{short(text)}`"
        for hit in report.dangers:
            parts.append(Part(DANGER, _danger(hit.reason, shown)))
        if report.errors:
            parts.append(Part(CODE, _("{command} could not be checked: {error}").format(
                command=shown, error=report.errors[0]), [], _("rewrite it as plain commands")))
        # files
        for value, real, lexical, kind in report.files:
            access = "read" if kind in ("read", "read-name") else "edit"
            found = self._judge_path(tool.name, access, value, self.workspace, via_exec=True,
                                     redirect=kind == "redirect", real=real, lexical=lexical,
                                     grant=grant)
            if kind == "read-name":  # a plain word that names a file: only deny/credential
                found = [p for p in found if p.level in (DENY, CREDENTIAL)]
            parts.extend(found)
        for folder, rule in report.covers_denied:
            whole = self._denies_contents("read", folder)
            if whole is not None:
                parts.append(Part(DENY, _("{command} reads {folder}, a folder whose files the "
                                          "rule {rule} ({source}) denies").format(
                                              command=shown, folder=self.show(folder),
                                              rule=whole.text, source=shown_source(whole.source)),
                             rule=whole.text))
                continue
            if grant.confined:
                continue  # the sandbox hides what the rule denies
            parts.append(Part(ASK_RULE, _("{command} reads {folder}, a folder holding what the "
                                          "rule {rule} ({source}) denies").format(
                                              command=shown, folder=self.show(folder),
                                              rule=rule.text, source=shown_source(rule.source)),
                              fix=_("narrow it to leave out what {rule} denies").format(
                                  rule=rule.text)))
        for folder, rule in report.history_denied:
            parts.append(Part(ASK_RULE, _("{command} shows files of {folder} from git's history, "
                                          "which may hold what the rule {rule} ({source}) "
                                          "denies").format(command=shown,
                                                           folder=self.show(folder),
                                                           rule=rule.text,
                                                           source=shown_source(rule.source)),
                              fix=_("name the paths to show, leaving out what {rule} "
                                    "denies").format(rule=rule.text)))
        for command, what, rule_text in report.control:
            texts = [command.normalized()] + (
                [command.outer.normalized()] if command.outer is not None else [])
            named = self._command_names_control(tool.name, texts)
            if named is not None:
                grant.protected = True
                continue
            parts.append(Part(PROTECTED, _protected(what), [], _allow_naming(rule_text)))
        if not grant.confined:
            for command, why in report.environ:
                texts = [command.normalized()]
                if self._command_rule("allow", tool.name, texts, specific=True) is not None:
                    continue
                exact = command_rule(tool.name, command.argv(), exact=True)
                parts.append(Part(CREDENTIAL, f"`{short(command.normalized())}` {why}",
                                  [exact], _allow(exact)))
        # commands
        seen: set[str] = set()
        every_command_allowed = True
        for command in report.commands:
            if command.looked_through:
                continue
            words = command.normalized()
            texts = [words] + ([command.outer.normalized()] if command.outer is not None else [])
            deny = self._command_rule("deny", tool.name, texts)
            if deny is not None:
                parts.append(Part(DENY, _("`{command}` is denied by the rule {rule} ({source})"
                                          ).format(command=short(words), rule=deny.text,
                                                   source=shown_source(deny.source)),
                             rule=deny.text))
                continue
            ask = self._command_rule("ask", tool.name, texts)
            if ask is not None:
                parts.append(Part(ASK_RULE, _("`{command}`: the rule {rule} ({source}) asks"
                                              ).format(command=short(words), rule=ask.text,
                                                       source=shown_source(ask.source)),
                                  fix=_always_asks(ask)))
                continue
            allowed = self._command_rule("allow", tool.name, texts) is not None
            if not allowed:
                every_command_allowed = False
            code = next((why for c, why in report.code if c is command), None)
            if code is not None:
                if not allowed:
                    exact = command_rule(tool.name, command.argv(), exact=True)
                    parts.append(Part(CODE, f"`{short(words)}` {code}", [exact], _allow(exact)))
                continue
            if allowed:
                grant.allowed_by("mode" if self.mode == "auto" else "rule")
                continue
            if read_only(command):
                continue
            if self.mode == "plan":
                parts.append(Part(PLAN, f"`{short(words)}`"))
                continue
            if self.mode == "auto" or "execute" in self.classes:
                grant.allowed_by("mode" if self.mode == "auto" else "rule")
                continue
            suggested = suggest_rule(tool.name, command)
            if suggested in seen:
                continue
            seen.add(suggested)
            parts.append(Part(NEED, _("runs `{command}` (commands ask in {mode} mode)").format(
                command=short(words), mode=self.mode), [suggested],
                _allow_or_mode(suggested, "auto")))
        if call.arguments.get("network") is True and not every_command_allowed and not (
                self.mode == "auto" or "network" in self.classes):
            parts.append(Part(NEED, _("lets {command} use the network (it asks in {mode} mode)"
                                      ).format(command=shown, mode=self.mode), [],
                              _("allow it with --allow network or --permission-mode auto")))
        for command, why in report.code:
            if command.name is None and why not in {p.reason for p in parts}:
                parts.append(Part(CODE, f"{shown} {why}", [], _("name the file plainly")))
        return parts

    def _command_rule(self, effect: str, tool: str, texts: list[str],
                      specific: bool = False) -> Rule | None:
        """A rule about this shell tool, or about ``exec`` (the same commands run)."""
        found = self.matching(effect, tool, command=texts, specific=specific)
        if found is None and tool != "exec":
            found = self.matching(effect, "exec", command=texts, specific=specific)
        return found

    def _command_names_control(self, tool: str, texts: list[str]) -> Rule | None:
        """An allow rule for the command that names what it does to a control file: its words
        hold the control file's name (``exec(cp x .chatcli/config.toml)``) or it names git's
        own subcommand (``exec(git config user.name:*)``, ``exec(git remote add:*)``); a bare
        ``exec``, ``exec(*)`` or ``exec(git:*)`` does not."""
        for name in (tool, "exec"):
            for rule in self.rules:
                if rule.effect != "allow" or not rule.covers(name) or rule.specifier is None:
                    continue
                spec = " ".join(rule.specifier.removesuffix(":*").split())
                words = spec.split(" ")
                names_it = any(word in spec.casefold() for word in CONTROL_WORDS) or (
                    len(words) >= 2 and words[0] == "git" and words[1] in (
                        "config", "remote", "submodule", "lfs", "worktree", "init", "clone")
                ) or (len(words) >= 2 and words[0] in ("pre-commit", "husky", "lefthook",
                                                       "overcommit") and "*" not in words[1])
                if names_it and any(match_command(rule.specifier, text) for text in texts):
                    return rule
        return None

    def _exec_cwd(self, arguments: dict[str, Any]) -> Path | Part | None:
        for key in CWD_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                try:
                    real = self.real(value, self.workspace)
                except ValueError as err:
                    return Part(DENY, _("the working folder '{path}' is not usable ({error})"
                                        ).format(path=short(value, 60), error=err))
                if not self.inside(real):
                    rule = path_rule("read", real, self.workspace, self.home)
                    if self.matching("allow", "read", path=real, specific=True) is None:
                        return Part(OUTSIDE, _("runs in {folder}, outside the workspace").format(
                            folder=self.show(real)), [rule], _allow_or_folder(rule))
                return real
        return None

    # ---------------------------------------------------------------- the verdict

    def _verdict(self, parts: list[Part], call: ToolCallPart, tool: ToolSpec) -> Judgement:
        if not parts:
            return Judgement(Verdict(Decision.ALLOW), parts=parts)
        if self.mode == "plan":  # nothing but reads runs: the rest is refused, not asked
            parts = [Part(PLAN, p.reason.removeprefix(_danger_prefix()), p.rules, p.fix)
                     if p.level in (DANGER, PROTECTED, CODE, NEED) else p for p in parts]
        parts = sorted(parts, key=lambda p: p.level)
        top = parts[0]
        if top.level == DENY:
            return Judgement(Verdict(Decision.DENY, top.reason, top.rule, by=_rule_by(top.rule)),
                             parts=parts)
        if top.level == PLAN:
            what = "; ".join(dict.fromkeys(p.reason for p in parts if p.level == PLAN))
            reason = _("plan mode is read-only, so {tool} ({what}) was not run; finish the plan "
                       "and present it — the user leaves plan mode (/permissions default, or "
                       "Shift+Tab) to carry it out").format(tool=tool.name, what=short(what, 100))
            return Judgement(Verdict(Decision.DENY, reason, by="mode"), parts=parts)
        hard = any(p.level in (DANGER, PROTECTED, ASK_RULE) for p in parts)
        rules: list[str] = []
        if not hard:
            for part in parts:
                for rule in part.rules:
                    if rule not in rules:
                        rules.append(rule)
        reasons = list(dict.fromkeys(p.reason for p in parts))
        reason = reasons[0]
        if len(reasons) == 2:
            reason = _("{first}; also {second}").format(first=reasons[0], second=reasons[1])
        elif len(reasons) > 2:
            reason = _("{first}; also {second} (and {count} more)").format(
                first=reasons[0], second=reasons[1], count=len(reasons) - 2)
        shown_rule = ", ".join(rules) if rules else None
        verdict = Verdict(Decision.ASK, reason, shown_rule, by="rule" if any(
            p.level == ASK_RULE for p in parts) else "policy")
        return Judgement(verdict, rules, hard, parts)

    def unattended(self, judgement: Judgement) -> Verdict:
        """The verdict for a run where nobody can be asked: a denial naming what would allow
        the call."""
        verdict = judgement.verdict
        if verdict.decision != Decision.ASK:
            return verdict
        parts = judgement.parts
        top = parts[0] if parts else Part(NEED, verdict.reason)
        if any(p.level == DANGER for p in parts):
            fix = _("it runs only after a person approves it in an interactive chat; no rule or "
                    "mode allows it")
        elif any(p.level == PROTECTED for p in parts):
            fix = _("{fix}; no mode or broader rule allows it").format(
                fix=next(p.fix for p in parts if p.level == PROTECTED))
        elif any(p.level == ASK_RULE for p in parts):
            fix = _("{fix}; remove that rule to let --allow or a mode decide").format(
                fix=next(p.fix for p in parts if p.level == ASK_RULE))
        elif judgement.rules:
            allows = " ".join(f"--allow '{r}'" for r in judgement.rules)
            modes = {p.fix.rsplit("--permission-mode ", 1)[1] for p in parts
                     if "--permission-mode " in p.fix}
            if modes and all(p.level == NEED for p in parts):
                fix = _("allow it with {allows} or --permission-mode {mode}").format(
                    allows=allows, mode="auto" if "auto" in modes else modes.pop())
            else:
                fix = _("allow it with {allows}").format(allows=allows)
        else:
            fix = top.fix or _("run it in an interactive chat")
        reason = _("{reason}; it needs the user's approval and nobody can be asked in this run "
                   "({fix})").format(reason=verdict.reason, fix=fix)
        return Verdict(Decision.DENY, " ".join(reason.split()), verdict.rule, by="unattended")


def _rule_by(rule: str | None) -> str:
    """Who refused: ``policy`` (no rule), ``rule``, or ``managed`` (the managed file's rule)."""
    if rule is None:
        return "policy"
    from chatcli import managed_list

    denied = managed_list("permissions.deny")
    return "managed" if denied is not None and rule in denied[1] else "rule"


def _danger(reason: str, what: str) -> str:
    """A dangerous part's reason: ``dangerous: deletes … (`rm -rf src`)``."""
    return _("dangerous: {reason} ({what})").format(reason=reason, what=what)


def _danger_prefix() -> str:
    """What :func:`_danger` puts before the reason (``dangerous: ``), in the user's language."""
    return _("dangerous: {reason} ({what})").partition("{reason}")[0]


def _protected(what: str) -> str:
    return _("protected: {what}, one of git's or chatcli's control files (asks in every mode)"
             ).format(what=what)


def _allow(rule: str) -> str:
    return _("allow it with --allow '{rule}'").format(rule=rule)


def _allow_naming(rule: str) -> str:
    return _("allow it with --allow '{rule}' (a rule that names it)").format(rule=rule)


def _allow_or_mode(rule: str, mode: str) -> str:
    """A fix that ends with ``--permission-mode MODE`` (:meth:`Policy.unattended` reads it)."""
    return _("allow it with --allow '{rule}' or --permission-mode {mode}").format(rule=rule,
                                                                                 mode=mode)


def _allow_or_folder(rule: str) -> str:
    return _("allow it with --allow '{rule}' or add the folder to allowed_dirs").format(rule=rule)


def _always_asks(rule: Rule) -> str:
    return _("the rule {rule} ({source}) always asks").format(
        rule=rule.text, source=shown_source(rule.source))


def _holds_name(folder: Path, pattern: str, limit: int = 20000) -> bool:
    """Whether ``folder`` holds, at any depth, a file or folder whose name matches the glob
    ``pattern``; True too when there is more than ``limit`` entries to look at."""
    import fnmatch

    if not folder.is_dir():
        return fnmatch.fnmatchcase(folder.name, pattern)
    seen = 0
    for _root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            seen += 1
            if fnmatch.fnmatchcase(name, pattern):
                return True
        if seen > limit:
            return True
    return False
