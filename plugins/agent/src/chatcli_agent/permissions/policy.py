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
"""

from __future__ import annotations

import glob as _glob
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatcli import Confinement, Decision, Risk, ToolCallPart, ToolSpec, Verdict

from chatcli_agent._shell import (
    SimpleCommand,
    Word,
    analyse,
    expand_braces,
    flag,
    git_subcommand,
    positional,
    short_or_long,
)
from chatcli_agent.permissions.dangerous import Hit, command_dangers, script_dangers, write_danger
from chatcli_agent.permissions.paths import CWD_KEYS, HARMLESS, tool_kind, tool_paths, tool_subject
from chatcli_agent.permissions.programs import (
    CONTROL_WORDS,
    ENVIRON,
    HOOK_INSTALLERS,
    LEAKERS,
    PATTERN_FIRST,
    RECURSIVE_READERS,
    SEARCH_VALUE_OPTIONS,
    TEXT_ARGS,
    WRITERS,
    archive_names,
    environ_reader,
    git_config_files,
    git_control,
    git_reads_history,
    grep_recurses,
    hidden_code,
    moved_words,
    read_only,
    search_folders,
    short,
    suggest_rule,
    written_words,
)
from chatcli_agent.permissions.rules import (
    Rule,
    command_rule,
    hidden_pattern,
    match_command,
    match_path,
    path_prefix,
    path_rule,
)

__all__ = ["MODES", "Judgement", "Part", "Policy", "ShellReport"]

MODES = ("default", "accept-edits", "plan", "auto")

MODE_HELP = {
    "default": "reads inside the workspace run; everything else asks",
    "accept-edits": "file edits inside the workspace run without asking too",
    "plan": "read-only: only reads run, nothing is changed",
    "auto": "everything runs except what is dangerous, which still asks",
}

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


# ------------------------------------------------------------------------------------ places

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_REMOTE = re.compile(r"^[^/\s]*@[^/\s]+:|^[A-Za-z0-9.-]+:[^/]")


class _Place:
    """Where one command runs: the folder relative paths start from, and the roots."""

    def __init__(self, policy: Policy, cwd: Path | None) -> None:
        self.workspace = policy.workspace
        self.home = policy.home
        self.cwd = cwd
        self.policy = policy

    def resolve(self, word: Word) -> list[Path] | None:
        if word.dynamic:
            return None
        if self.cwd is None and not (word.value.startswith("/") or word.value.startswith("~")):
            return None  # after a `cd` to a place that is not known
        return self.policy.paths_of(word, self.cwd or self.workspace)

    def inside(self, path: Path) -> bool:
        return self.policy.inside(path)


@dataclass
class ShellReport:
    """What a shell command line does, part by part (used by the policy and its tests)."""

    text: str
    commands: list[SimpleCommand] = field(default_factory=list)
    dangers: list[Hit] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: (what, path, kind): kind is "read", "write" (a command's own target), "redirect"
    files: list[tuple[str, Path, Path, str]] = field(default_factory=list)
    #: (command, why): code the policy cannot see
    code: list[tuple[SimpleCommand, str]] = field(default_factory=list)
    #: recursive reads of folders that hold a path a rule denies: (folder, rule)
    covers_denied: list[tuple[Path, Rule]] = field(default_factory=list)
    #: the same, read from git's history (a sandbox does not hide what was committed)
    history_denied: list[tuple[Path, Rule]] = field(default_factory=list)
    #: (command, cwd known) per command, in order
    places: list[bool] = field(default_factory=list)
    #: writes to chatcli's or git's control files: (command, what, the rule that would allow it,
    #: the rule tool: "edit" for a path, "exec" for a command)
    control: list[tuple[SimpleCommand, str, str]] = field(default_factory=list)
    #: reads of other processes' environments (or memory): (command, why)
    environ: list[tuple[SimpleCommand, str]] = field(default_factory=list)


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
                    out.extend(self._safe_real(m, base) for m in matches)
                    continue
            out.append(self._safe_real(value, base))
        return [p for p in out if p is not None]

    def _denied_name(self, text: str) -> bool:
        """Whether the path ``text`` (absolute) is a credential or a deny rule's."""
        from chatcli_workspace import is_credential

        path = Path(text)
        return is_credential(path) or self.matching("deny", "read", path=path) is not None

    def _safe_real(self, text: str, base: Path) -> Path | None:
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
            parts = self._judge_other(call, tool)
            grant.writes = Risk(tool.risk) != Risk.READ
        judgement = self._verdict(parts, call, tool)
        judgement.verdict = judgement.verdict._replace(
            confinement=self._confinement(judgement, grant))
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
            parts.append(Part(CODE, f"{tool.name} names no file the policy can check",
                              [], "name the files plainly"))
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
            return [Part(DENY, f"'{short(text, 60)}' is not a usable path ({err})")]
        lexical = lexical or self.lexical(text, base)
        if HARMLESS.match(str(real)) or HARMLESS.match(str(lexical)):
            return []
        rule_tool = tool_name if not via_exec else ("read" if access == "read" else "edit")
        shown = self.show(real if not str(lexical).startswith("/proc/") else lexical)
        verb = "reads" if access == "read" else "writes"
        what = what or f"{verb} {shown}"
        parts: list[Part] = []
        deny = self.matching("deny", rule_tool, path=real, lexical=lexical)
        if deny is not None:
            return [Part(DENY, f"{what}, which the rule {deny.text} ({deny.source}) denies")]
        if recursive and access == "read":
            whole = self._denies_contents(rule_tool, real)
            if whole is not None:
                return [Part(DENY, f"{what}, a folder whose files the rule {whole.text} "
                                   f"({whole.source}) denies")]
            for rule in self._deny_inside(rule_tool, real):
                parts.append(Part(ASK_RULE, f"{what}, a folder holding what the rule "
                                            f"{rule.text} ({rule.source}) denies",
                                  fix=f"narrow it to leave out what {rule.text} denies"))
        if access == "edit":
            hit = write_danger(real, self.home) or (write_danger(lexical, self.home)
                                                     if lexical != real else None)
            if hit is not None:
                return [Part(DANGER, f"dangerous: {hit.reason} ({verb} {shown})")]
            if self.control(real, lexical):
                if self._names_control(rule_tool, real) is None:
                    named = path_rule("edit", real, self.workspace, self.home)
                    return [Part(PROTECTED, f"protected: {what}, one of git's or chatcli's "
                                            "control files (asks in every mode)", [],
                                 f"allow it with --allow '{named}' (a rule that names it)")]
                if grant is not None:
                    grant.protected = True
        elif (ENVIRON.match(str(lexical)) or ENVIRON.match(str(real))) and not (
                grant is not None and grant.confined) and self.matching(
                    "allow", rule_tool, path=real, specific=True) is None:
            named = path_rule("read", lexical, self.workspace, self.home)
            parts.append(Part(CREDENTIAL, f"{what}, another process's environment or memory, "
                                          "where API keys live", [named],
                              f"allow it with --allow '{named}'"))
        explicit = self.matching("allow", rule_tool, path=real, specific=True)
        suggestion = path_rule(rule_tool if not via_exec else (
            "read" if access == "read" else "edit"), real, self.workspace, self.home)
        if (is_credential(real) or is_credential(lexical)) and explicit is None:
            parts.append(Part(CREDENTIAL, f"{what}, a credential file", [suggestion],
                              f"allow it with --allow '{suggestion}'"))
        ask = self.matching("ask", rule_tool, path=real, lexical=lexical)
        if ask is not None:
            parts.append(Part(ASK_RULE, f"{what}; the rule {ask.text} ({ask.source}) asks",
                              fix=f"the rule {ask.text} ({ask.source}) always asks"))
        if not self.inside(real) and explicit is None:
            parts.append(Part(OUTSIDE, f"{what}, outside the workspace", [suggestion],
                              f"allow it with --allow '{suggestion}' or add the folder to "
                              "allowed_dirs"))
        if parts or access == "read":
            return parts
        # an edit inside the workspace
        if via_exec and not redirect:
            return []  # covered by the decision on the command itself
        if self.mode == "plan":
            return [Part(PLAN, what)]
        if (self.matching("allow", rule_tool, path=real) is not None or
                self.mode in ("accept-edits", "auto") or "write" in self.classes):
            if grant is not None:
                grant.writes = True
            return []
        return [Part(NEED, f"{what} (edits ask in {self.mode} mode)", [suggestion],
                     f"allow it with --allow '{suggestion}' or --permission-mode accept-edits")]

    def _deny_inside(self, tool: str, folder: Path) -> list[Rule]:
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
            return "the workspace"
        if path.is_relative_to(self.workspace):
            return path.relative_to(self.workspace).as_posix()
        if path.is_relative_to(self.home):
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)

    # ---------------------------------------------------------------- other tools

    def _judge_other(self, call: ToolCallPart, tool: ToolSpec) -> list[Part]:
        subject = tool_subject(tool, call.arguments)
        name = tool.name
        paths: list[Part] = []
        for key in ("path", "cwd"):
            value = call.arguments.get(key)
            if isinstance(value, str) and value.strip() and value.strip() != ".":
                paths.extend(self._judge_path(name, "read", value, self.workspace))
        if any(p.level == DENY for p in paths):
            return paths
        return paths + self._judge_other_tool(call, tool, subject, name)

    def _judge_other_tool(self, call: ToolCallPart, tool: ToolSpec, subject: str | None,
                          name: str) -> list[Part]:
        deny = self.matching("deny", name, subject=subject)
        if deny is not None:
            return [Part(DENY, f"{name} is denied by the rule {deny.text} ({deny.source})")]
        ask = self.matching("ask", name, subject=subject)
        if ask is not None:
            return [Part(ASK_RULE, f"{name}: the rule {ask.text} ({ask.source}) asks",
                         fix=f"the rule {ask.text} ({ask.source}) always asks")]
        if self.matching("allow", name, subject=subject) is not None:
            return []
        risk = Risk(tool.risk)
        if risk == Risk.READ:
            return []
        if self.mode == "plan":
            return [Part(PLAN, f"{name} ({risk.value})")]
        if self.mode == "auto" or risk.value in self.classes:
            return []
        rule = f"{name}({subject})" if subject else name
        mode = "accept-edits" if risk == Risk.WRITE else "auto"
        return [Part(NEED, f"{name} is a {risk.value} tool (it asks in {self.mode} mode)",
                     [rule], f"allow it with --allow '{rule}' or --permission-mode {mode}")]

    # ---------------------------------------------------------------- shell commands

    def inspect(self, text: str, cwd: Path | None = None) -> ShellReport:
        """Everything the policy needs to know about a command line."""
        report = ShellReport(text)
        expanded = analyse(text, str(self.home))
        report.errors = list(expanded.errors)
        report.commands = expanded.commands
        report.dangers.extend(script_dangers(expanded, text))
        where: Path | None = cwd or self.workspace
        for command in expanded.commands:
            place = _Place(self, where)
            report.places.append(where is not None)
            if command.looked_through:
                continue
            report.dangers.extend(command_dangers(command, place))
            why = hidden_code(command)
            if why:
                report.code.append((command, why))
            self._files(command, place, report)
            self._control_writes(command, place, report)
            environ = environ_reader(command)
            if environ:
                report.environ.append((command, environ))
            where = self._next_cwd(command, where)
        for redirect in expanded.redirects:
            target = redirect.target
            if target is None:
                continue
            if redirect.op in (">&", "<&") and re.fullmatch(r"\d+-?|-", target.value):
                continue
            kind = "redirect" if redirect.writes or redirect.op == "<>" else "read"
            if target.dynamic:
                report.code.append((SimpleCommand([], text=text),
                                    f"{'writes' if kind == 'redirect' else 'reads'} a file "
                                    f"only known when it runs ({short(target.raw, 40)})"))
                continue
            for real in self.paths_of(target, where or self.workspace):
                report.files.append((target.value, real, self.lexical(target.value, where or
                                                                      self.workspace), kind))
                if redirect.op == "<>":
                    report.files.append((target.value, real, real, "read"))
        for _value, real_path, _lexical, kind in report.files:
            if kind in ("read", "read-name") and not str(real_path).startswith(
                    ("/dev/tcp/", "/dev/udp/")):
                continue
            hit = write_danger(real_path, self.home)
            if hit is not None and hit not in report.dangers:
                report.dangers.append(hit)
        return report

    def _next_cwd(self, command: SimpleCommand, where: Path | None) -> Path | None:
        program = command.program
        if program not in ("cd", "pushd", "popd") or command.via:
            return where
        args = positional(command)
        if program == "popd" or not args or args[0].value == "-" or args[0].dynamic:
            return None if program != "cd" or args else self.home
        base = where or self.workspace
        try:
            return self.real(args[0].value, base)
        except ValueError:
            return None

    def _files(self, command: SimpleCommand, place: _Place, report: ShellReport) -> None:
        """The files a command reads or writes through its own arguments."""
        program = command.program
        base = place.cwd
        args = command.args
        if command.name is None:
            return
        writes = written_words(command)
        candidates: list[tuple[Word, bool]] = []  # (word, path-like for confinement)
        skip_first = program in PATTERN_FIRST and not any(
            w.value in ("-e", "-f", "--regexp", "--file") or w.value.startswith(
                ("--regexp=", "--file=")) for w in args)
        first_done = False
        after_dashdash = False
        for word in args:
            value = word.value
            if value == "--" and not after_dashdash:
                after_dashdash = True
                continue
            if program in TEXT_ARGS and program != "git":
                break
            if program == "git" and not after_dashdash and ":" in value and not (
                    value.startswith("-") or _URL.match(value)):
                # REV:PATH (`git show HEAD:secrets/key.txt`) reads PATH as it was committed
                candidates.append((Word(value.split(":", 1)[1], word.raw, word.dynamic,
                                        word.glob), False))
                continue
            if program == "git" and not after_dashdash and not ("/" in value or
                                                                 value.startswith(".")):
                continue
            if not after_dashdash and value.startswith("-") and value != "-":
                if value.startswith("--") and "=" in value:
                    candidates.append((Word(value.split("=", 1)[1], word.raw, word.dynamic,
                                            word.glob), True))
                elif not value.startswith("--") and len(value) > 2 and re.match(
                        r"-[A-Za-z]", value):
                    candidates.append((Word(value[2:], word.raw, word.dynamic, word.glob),
                                       False))
                continue
            if skip_first and not first_done:
                first_done = True
                continue
            if value.startswith("@") and len(value) > 1:
                candidates.append((Word(value[1:], word.raw, word.dynamic, word.glob), True))
                continue
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", value) and program in ("dd", "make",
                                                                           "env"):
                candidates.append((Word(value.split("=", 1)[1], word.raw, word.dynamic,
                                        word.glob), True))
                continue
            if _URL.match(value) or (_REMOTE.match(value) and program in (
                    "scp", "rsync", "sftp", "ssh", "git")):
                continue
            candidates.append((word, True))
        if program == "git" and git_subcommand(command)[0] == "config" and not read_only(
                command):
            for text in git_config_files(command):
                for real in self.paths_of(Word(text, text), base or self.workspace):
                    report.files.append((text, real, self.lexical(text, base or
                                                                  self.workspace), "write"))
        git_grep = program == "git" and git_subcommand(command)[0] == "grep"
        git_history = program == "git" and git_reads_history(command)
        recursive = program in RECURSIVE_READERS or git_grep or git_history or (
            program in ("grep", "egrep", "fgrep", "cp", "scp", "zip", "chmod", "chown", "ls",
                        "diff") and
            short_or_long(command, "rRa" if program not in ("ls", "diff") else (
                "R" if program == "ls" else "r"),
                 ("--recursive", "--archive", "--dereference-recursive"),
                 "efmABCdD" if program in ("grep", "egrep", "fgrep") else "")) or (
            program in ("grep", "egrep", "fgrep") and grep_recurses(command))
        searches = git_grep or git_history or program in (
            "rg", "ag", "ack", "grep", "egrep", "fgrep", "find", "fd", "fdfind", "tree", "du",
            "ls")
        if recursive and searches and (
                not search_folders(command) if program in SEARCH_VALUE_OPTIONS else
                not any(path_like for _, path_like in candidates)):
            candidates.append((Word(".", "."), True))
        if "xargs" in command.via and program in WRITERS:
            report.code.append((command, "writes or deletes paths it is given on its input "
                                         "(xargs)"))
        elif "xargs" in command.via and program in LEAKERS:
            report.code.append((command, "reads paths it is given on its input (xargs)"))
        moved = moved_words(command)
        for word, path_like in candidates:
            if word.dynamic:
                if any(word is w for w in writes):
                    report.code.append((command, f"writes or deletes a path only known when "
                                                 f"it runs ({short(word.raw, 40)})"))
                elif program in LEAKERS:
                    report.code.append((command, f"reads a path only known when it runs "
                                                 f"({short(word.raw, 40)})"))
                continue
            if base is None and not word.value.startswith(("/", "~")):
                report.code.append((command, "uses a path after `cd` to a folder only known "
                                             "when it runs"))
                continue
            looks = path_like and ("/" in word.value or word.value.startswith((".", "~")) or
                                   os.path.lexists(os.path.join(str(base or self.workspace),
                                                                word.value)))
            from chatcli_workspace import is_credential

            for real in self.paths_of(word, base or self.workspace):
                lexical = self.lexical(word.value, base or self.workspace)
                written = any(word is w for w in writes)
                kind = "write" if written else "read"
                if written or looks or is_credential(real) or self.matching(
                        "deny", "read", path=real, lexical=lexical) is not None:
                    report.files.append((word.value, real, lexical,
                                         kind if looks or written else "read-name"))
                if any(word is w for w in moved):  # a file moved away is read, too
                    report.files.append((word.value, real, lexical, "read"))
                if recursive and kind == "read" and real.is_dir():
                    for rule in self._deny_inside("read", real):
                        (report.history_denied if git_history else report.covers_denied
                         ).append((real, rule))
        for word in writes:
            if not any(word is w for w, _ in candidates) and word.static:
                for real in self.paths_of(word, base or self.workspace):
                    report.files.append((word.value, real, self.lexical(
                        word.value, base or self.workspace), "write"))

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

    def _control_writes(self, command: SimpleCommand, place: _Place,
                        report: ShellReport) -> None:
        """Writes to control files the command's written words do not show: where ``cp``,
        ``mv``, ``ln``, ``install`` and ``rsync`` put what they copy (``cp x.toml .chatcli/``,
        ``cp -r sub/. .`` with ``sub/.mcp.json``), what ``ln`` links to, what an archive or a
        patch unpacks, and git's own config (``git config k v``, ``git remote add``,
        ``git submodule``, ``git init --template``, hook installers)."""
        program = command.program
        base = place.cwd or self.workspace
        shown = short(command.normalized(), 60)
        exact = command_rule("exec", command.argv(), exact=True)
        if command.name is None or command.name.dynamic:
            return
        if program in ("cp", "mv", "ln", "install", "rsync", "scp"):
            for source, landing in self._landings(command, base):
                if self.control(landing):
                    report.control.append((command, f"`{shown}` writes {self.show(landing)}",
                                           path_rule("edit", landing, self.workspace,
                                                     self.home)))
                    return
                if source.is_dir() and not source.is_symlink() and program != "ln":
                    from chatcli_workspace import control_paths

                    inner = control_paths(source, limit=2000)
                    if inner:
                        report.control.append((command, f"`{shown}` copies "
                                               f"{self.show(inner[0])} into "
                                               f"{self.show(landing)}", exact))
                        return
            if program == "ln" or (program == "cp" and flag(
                    command, "ls", ("--link", "--symbolic-link"))):
                written = written_words(command)
                # a symbolic link's target is read from the folder the link is made in
                link_dirs = {base}
                for word in written:
                    if word.static:
                        target = self.lexical(word.value, base)
                        link_dirs.add(target if target.is_dir() else target.parent)
                for word in positional(command):
                    if any(word is w for w in written) or word.dynamic:
                        continue
                    for real in self.paths_of(word, base):
                        lexical = [self.lexical(word.value, folder) for folder in link_dirs]
                        if self.control(real, *lexical):
                            report.control.append((command, f"`{shown}` links to "
                                                   f"{self.show(real)}", exact))
                            return
        unpacked = self._unpacks(command, base)
        if unpacked is not None:
            report.control.append((command, f"`{shown}` {unpacked}", exact))
            return
        what = git_control(command) or HOOK_INSTALLERS.get(" ".join(
            w.value for w in command.words[:2]))
        if what:
            report.control.append((command, f"`{shown}` {what}", exact))
            return
        if program == "git" and git_subcommand(command)[0] in (
                "mv", "checkout", "restore", "rm", "reset", "switch", "stash", "apply"):
            _sub, rest = git_subcommand(command)
            for word in positional(command, rest):
                if word.dynamic or _URL.match(word.value):
                    continue
                text = word.value.split(":", 1)[-1] if ":" in word.value else word.value
                if self.control(self.lexical(text, base)):
                    report.control.append((command, f"`{shown}` writes {text}", exact))
                    return

    def _landings(self, command: SimpleCommand, base: Path) -> list[tuple[Path, Path]]:
        """(source, where it lands) for each source of a copy, move or link."""
        args = positional(command)
        values = [w.value for w in command.args]
        target: Word | None = None
        for index, value in enumerate(values):
            if value in ("-t", "--target-directory") and index + 1 < len(values):
                target = command.args[index + 1]
            elif value.startswith("--target-directory="):
                target = Word(value.split("=", 1)[1], value)
        into_folder = target is not None
        sources = [w for w in args if w is not target]
        if target is None:
            if len(args) < 2:
                return []
            target, sources = args[-1], args[:-1]
        if target.dynamic:
            return []
        try:
            destination = self.real(target.value, base)
        except ValueError:
            return []
        lexical_target = self.lexical(target.value, base)
        folder = into_folder or destination.is_dir() or target.value.endswith("/") or len(
            sources) > 1
        out: list[tuple[Path, Path]] = []
        for word in sources:
            if word.dynamic:
                continue
            for source in self.paths_of(word, base):
                name = os.path.basename(word.value.rstrip("/"))
                if word.glob or name in ("", ".", ".."):
                    name = source.name if word.glob else name
                if folder and name not in ("", ".", ".."):
                    out.append((source, destination / name))
                    out.append((source, lexical_target / name))
                else:
                    out.append((source, destination))
                    out.append((source, lexical_target))
        return out

    def _unpacks(self, command: SimpleCommand, base: Path) -> str | None:
        """Why an archive or patch the command unpacks may write a control file: one of the
        names inside it is one (the archive or patch is read), or it cannot be read and it
        unpacks into a folder where control files take effect."""
        program = command.program
        values = [w.value for w in command.args]
        folder_word: str | None = None
        archive: list[str] = []
        if program in ("tar", "bsdtar"):
            first = values[0] if values else ""
            bundle = first.lstrip("-") if first and not first.startswith("--") else ""
            extract = "x" in bundle or any(v in ("-x", "--extract", "--get") or (
                re.fullmatch(r"-[A-Za-z]*x[A-Za-z]*", v) is not None) for v in values)
            if not extract or "-O" in values or "--to-stdout" in values:
                return None
            for index, value in enumerate(values):
                if value in ("-C", "--directory") and index + 1 < len(values):
                    folder_word = values[index + 1]
                elif value.startswith("--directory="):
                    folder_word = value.split("=", 1)[1]
                elif value.startswith("--file="):
                    archive.append(value.split("=", 1)[1])
                elif (value == "-f" or (re.fullmatch(r"-?[A-Za-z]*f", value) and index == 0)
                      or re.fullmatch(r"-[A-Za-z]*f", value)) and index + 1 < len(values):
                    archive.append(values[index + 1])
        elif program == "unzip":
            if "-l" in values or "-p" in values or "-t" in values or "-Z" in values:
                return None
            for index, value in enumerate(values):
                if value == "-d" and index + 1 < len(values):
                    folder_word = values[index + 1]
            rest = [w.value for w in positional(command)]
            archive = rest[:1]
        elif program == "patch" or (program == "git" and git_subcommand(command)[0] in (
                "apply", "am")):
            if program == "git":
                _sub, rest_words = git_subcommand(command)
                if any(w.value in ("--check", "--stat", "--numstat", "--summary")
                       for w in rest_words):
                    return None
                archive = [w.value for w in positional(command, rest_words)]
            else:
                if "--dry-run" in values:
                    return None
                for index, value in enumerate(values):
                    if value in ("-d", "--directory") and index + 1 < len(values):
                        folder_word = values[index + 1]
                    elif value in ("-i", "--input") and index + 1 < len(values):
                        archive.append(values[index + 1])
                    elif value.startswith("--input="):
                        archive.append(value.split("=", 1)[1])
            for redirect in command.redirects:
                if redirect.op == "<" and redirect.target is not None and \
                        redirect.target.static:
                    archive.append(redirect.target.value)
        elif program in ("cpio", "7z", "7za", "unrar", "ar", "pax"):
            if program == "cpio" and not flag(command, "i", ("--extract",)):
                return None
            if program in ("7z", "7za") and values[:1] not in (["x"], ["e"]):
                return None
            if program == "ar" and not any("x" in v.lstrip("-") for v in values[:1]):
                return None
            if program == "pax" and "-r" not in values:
                return None
        else:
            return None
        try:
            folder = self.real(folder_word, base) if folder_word else base
        except ValueError:
            return None
        names = archive_names([self._safe_real(a, base) for a in archive], program)
        if names is not None:
            for name in names:
                if self.control(folder / name):
                    return (f"unpacks {self.show(folder / name)} (from "
                            f"{', '.join(archive) or 'its input'})")
            return None
        if self._control_home(folder):
            return (f"unpacks files it names only when it runs into {self.show(folder)}, "
                    "where git's and chatcli's control files take effect")
        return None

    def _control_home(self, folder: Path) -> bool:
        """Whether control files written in ``folder`` would take effect: the workspace, or a
        folder holding a repository or chatcli's or Claude's settings."""
        return folder == self.workspace or self.control(folder) or any(
            os.path.lexists(folder / name) for name in (".git", ".chatcli", ".claude"))

    def _judge_shell(self, call: ToolCallPart, tool: ToolSpec,
                     grant: _Grant | None = None) -> list[Part]:
        grant = grant or _Grant()
        subject = tool.subject or "command"
        text = call.arguments.get(subject)
        if not isinstance(text, str) or not text.strip():
            return [Part(CODE, f"{tool.name} was given no command the policy can read",
                         [tool.name], f"allow it with --allow '{tool.name}'")]
        cwd = self._exec_cwd(call.arguments)
        parts: list[Part] = []
        if isinstance(cwd, Part):
            parts.append(cwd)
            cwd = None
        report = self.inspect(text, cwd)
        shown = f"`{short(text)}`"
        for hit in report.dangers:
            parts.append(Part(DANGER, f"dangerous: {hit.reason} ({shown})"))
        if report.errors:
            parts.append(Part(CODE, f"{shown} could not be checked: {report.errors[0]}",
                              [], "rewrite it as plain commands"))
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
                parts.append(Part(DENY, f"{shown} reads {self.show(folder)}, a folder whose "
                                        f"files the rule {whole.text} ({whole.source}) denies"))
                continue
            if grant.confined:
                continue  # the sandbox hides what the rule denies
            parts.append(Part(ASK_RULE, f"{shown} reads {self.show(folder)}, a folder holding "
                                        f"what the rule {rule.text} ({rule.source}) denies",
                              fix=f"narrow it to leave out what {rule.text} denies"))
        for folder, rule in report.history_denied:
            parts.append(Part(ASK_RULE, f"{shown} shows files of {self.show(folder)} from git's "
                                        f"history, which may hold what the rule {rule.text} "
                                        f"({rule.source}) denies",
                              fix=f"name the paths to show, leaving out what {rule.text} "
                                  "denies"))
        for command, what, rule_text in report.control:
            texts = [command.normalized()] + (
                [command.outer.normalized()] if command.outer is not None else [])
            named = self._command_names_control(tool.name, texts)
            if named is not None:
                grant.protected = True
                continue
            parts.append(Part(PROTECTED, f"protected: {what}, one of git's or chatcli's "
                                         "control files (asks in every mode)", [],
                              f"allow it with --allow '{rule_text}' (a rule that names it)"))
        if not grant.confined:
            for command, why in report.environ:
                texts = [command.normalized()]
                if self._command_rule("allow", tool.name, texts, specific=True) is not None:
                    continue
                exact = command_rule(tool.name, command.argv(), exact=True)
                parts.append(Part(CREDENTIAL, f"`{short(command.normalized())}` {why}",
                                  [exact], f"allow it with --allow '{exact}'"))
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
                parts.append(Part(DENY, f"`{short(words)}` is denied by the rule {deny.text} "
                                        f"({deny.source})"))
                continue
            ask = self._command_rule("ask", tool.name, texts)
            if ask is not None:
                parts.append(Part(ASK_RULE, f"`{short(words)}`: the rule {ask.text} "
                                            f"({ask.source}) asks",
                                  fix=f"the rule {ask.text} ({ask.source}) always asks"))
                continue
            allowed = self._command_rule("allow", tool.name, texts) is not None
            if not allowed:
                every_command_allowed = False
            code = next((why for c, why in report.code if c is command), None)
            if code is not None:
                if not allowed:
                    exact = command_rule(tool.name, command.argv(), exact=True)
                    parts.append(Part(CODE, f"`{short(words)}` {code}", [exact],
                                      f"allow it with --allow '{exact}'"))
                continue
            if allowed:
                grant.writes = True
                continue
            if read_only(command):
                continue
            if self.mode == "plan":
                parts.append(Part(PLAN, f"`{short(words)}`"))
                continue
            if self.mode == "auto" or "execute" in self.classes:
                grant.writes = True
                continue
            suggested = suggest_rule(tool.name, command)
            if suggested in seen:
                continue
            seen.add(suggested)
            parts.append(Part(NEED, f"runs `{short(words)}` (commands ask in {self.mode} "
                                    "mode)", [suggested],
                              f"allow it with --allow '{suggested}' or --permission-mode auto"))
        if call.arguments.get("network") is True and not every_command_allowed and not (
                self.mode == "auto" or "network" in self.classes):
            parts.append(Part(NEED, f"lets {shown} use the network (it asks in {self.mode} "
                                    "mode)", [], "allow it with --allow network or "
                                                 "--permission-mode auto"))
        for command, why in report.code:
            if command.name is None and why not in {p.reason for p in parts}:
                parts.append(Part(CODE, f"{shown} {why}", [], "name the file plainly"))
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
                    return Part(DENY, f"the working folder '{short(value, 60)}' is not usable "
                                      f"({err})")
                if not self.inside(real):
                    rule = path_rule("read", real, self.workspace, self.home)
                    if self.matching("allow", "read", path=real, specific=True) is None:
                        return Part(OUTSIDE, f"runs in {self.show(real)}, outside the "
                                             "workspace", [rule],
                                    f"allow it with --allow '{rule}' or add the folder to "
                                    "allowed_dirs")
                return real
        return None

    # ---------------------------------------------------------------- the verdict

    def _verdict(self, parts: list[Part], call: ToolCallPart, tool: ToolSpec) -> Judgement:
        if not parts:
            return Judgement(Verdict(Decision.ALLOW), parts=parts)
        if self.mode == "plan":  # nothing but reads runs: the rest is refused, not asked
            parts = [Part(PLAN, p.reason.removeprefix("dangerous: "), p.rules, p.fix)
                     if p.level in (DANGER, PROTECTED, CODE, NEED) else p for p in parts]
        parts = sorted(parts, key=lambda p: p.level)
        top = parts[0]
        if top.level == DENY:
            return Judgement(Verdict(Decision.DENY, top.reason), parts=parts)
        if top.level == PLAN:
            what = "; ".join(dict.fromkeys(p.reason for p in parts if p.level == PLAN))
            reason = (f"plan mode is read-only, so {tool.name} ({short(what, 100)}) was not run; "
                      "finish the plan and present it — the user leaves plan mode "
                      "(/permissions default, or Shift+Tab) to carry it out")
            return Judgement(Verdict(Decision.DENY, reason), parts=parts)
        hard = any(p.level in (DANGER, PROTECTED, ASK_RULE) for p in parts)
        rules: list[str] = []
        if not hard:
            for part in parts:
                for rule in part.rules:
                    if rule not in rules:
                        rules.append(rule)
        reasons = list(dict.fromkeys(p.reason for p in parts))
        reason = reasons[0] + (f"; also {reasons[1]}" if len(reasons) > 1 else "") + (
            f" (and {len(reasons) - 2} more)" if len(reasons) > 2 else "")
        shown_rule = ", ".join(rules) if rules else None
        verdict = Verdict(Decision.ASK, reason, shown_rule)
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
            fix = ("it runs only after a person approves it in an interactive chat; no rule or "
                   "mode allows it")
        elif any(p.level == PROTECTED for p in parts):
            fix = next(p.fix for p in parts if p.level == PROTECTED)
            fix += "; no mode or broader rule allows it"
        elif any(p.level == ASK_RULE for p in parts):
            fix = next(p.fix for p in parts if p.level == ASK_RULE)
            fix += "; remove that rule to let --allow or a mode decide"
        elif judgement.rules:
            allows = " ".join(f"--allow '{r}'" for r in judgement.rules)
            modes = {p.fix.rsplit("--permission-mode ", 1)[1] for p in parts
                     if "--permission-mode " in p.fix}
            extra = ""
            if modes and all(p.level == NEED for p in parts):
                extra = f" or --permission-mode {'auto' if 'auto' in modes else modes.pop()}"
            fix = f"allow it with {allows}{extra}"
        else:
            fix = top.fix or "run it in an interactive chat"
        reason = (f"{verdict.reason}; it needs the user's approval and nobody can be asked in "
                  f"this run ({fix})")
        return Verdict(Decision.DENY, " ".join(reason.split()), verdict.rule)


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
