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

from chatcli_agent._shell import SHELLS, SimpleCommand, Word, analyse, expand_braces
from chatcli_agent.permissions.dangerous import (
    Hit,
    command_dangers,
    flag,
    git_subcommand,
    positional,
    reads_code_from_stdin,
    script_dangers,
    write_danger,
)
from chatcli_agent.permissions.rules import (
    EDIT_TOOLS,
    READ_TOOLS,
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


# ------------------------------------------------------------------------------------ knowledge

#: Commands that only read (with the exceptions checked in :func:`_read_only`).
READ_ONLY = frozenset({
    "ls", "ll", "la", "dir", "pwd", "cat", "head", "tail", "wc", "nl", "less", "more", "grep",
    "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "tree", "file", "stat", "du",
    "df", "echo", "printf", "true", "false", ":", "test", "[", "[[", "which", "whereis", "type",
    "realpath", "readlink", "basename", "dirname", "date", "whoami", "hostname", "uname", "id",
    "groups", "diff", "cmp", "comm", "cut", "tr", "paste", "column", "fold", "rev", "seq",
    "sleep", "jq", "md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum", "cksum", "b2sum",
    "od", "hexdump", "xxd", "strings", "sort", "uniq", "cd", "pushd", "popd", "dirs", "expr",
    "export", "declare", "typeset", "local", "readonly", "unset", "set", "shopt", "uptime",
    "nproc", "free", "ps", "pgrep", "locale", "tty", "lsattr", "wait", "exit", "return",
    "break", "continue", "command", "git", "tac", "zcat", "bat", "batcat", "numfmt", "join",
    "lsof",
})

GIT_READ = frozenset({
    "status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame", "describe",
    "shortlog", "reflog", "grep", "cat-file", "merge-base", "show-ref", "whatchanged",
    "name-rev", "count-objects", "check-ignore", "rev-list", "for-each-ref", "version", "help",
    "branch", "tag", "remote", "config", "stash", "worktree", "ls-remote", "var",
})

#: Programs whose first positional argument is a pattern or a script, not a path.
PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk",
                           "mawk", "jq", "yq", "perl", "xmllint"})
#: Programs whose arguments are text, not paths.
TEXT_ARGS = frozenset({"echo", "printf", "true", "false", ":", "export", "declare", "typeset",
                       "local", "readonly", "unset", "set", "shopt", "sleep", "seq", "expr",
                       "test", "[", "[[", "date", "git", "exit", "return", "kill", "pkill",
                       "pgrep", "killall", "wait", "read", "type", "which", "command"})
#: Programs that show or copy what they read (a path known only when they run could be a secret).
LEAKERS = frozenset({"cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag",
                     "cp", "mv", "scp", "rsync", "curl", "wget", "base64", "xxd", "od", "hexdump",
                     "strings", "sed", "awk", "gawk", "tar", "zip", "source", ".", "nl", "tac",
                     "bat", "batcat", "jq", "diff", "sort", "uniq", "cut", "paste", "tee", "dd",
                     "gzip", "zcat", "openssl", "gpg", "nc", "ncat", "ssh", "python", "python3",
                     "node", "perl", "ruby"})
#: Programs that read folders recursively.
RECURSIVE_READERS = frozenset({"rg", "ag", "ack", "tar", "zip", "7z", "rsync", "find", "fd",
                               "fdfind", "tree", "du"})

#: Variables that change what a command runs.
HIJACK = re.compile(
    r"^(PATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|PROMPT_COMMAND|IFS|PS4|SHELLOPTS|BASHOPTS|"
    r"GIT_SSH|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_ASKPASS|SSH_ASKPASS|"
    r"GIT_CONFIG[A-Z_]*|PAGER|EDITOR|VISUAL|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|NODE_OPTIONS|"
    r"NODE_PATH|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|LESSOPEN|"
    r"LESSCLOSE|MANPAGER|BROWSER|npm_config_[a-z_]+|GIT_DIR|GIT_WORK_TREE|GIT_COMMON_DIR|"
    r"GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_PROXY_COMMAND|GIT_SEQUENCE_EDITOR|BAT_PAGER|"
    r"SYSTEMD_PAGER|GIT_TRACE[A-Z_]*|GIT_ALLOW_PROTOCOL|GIT_PROTOCOL_FROM_USER|"
    r"GIT_CONFIG_PARAMETERS)$")

#: Multi-level tools: rules name their subcommand (``exec(npm test:*)``).
MULTI = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "podman", "kubectl", "pip",
    "pip3", "uv", "poetry", "make", "just", "dotnet", "mvn", "gradle", "./gradlew", "npx",
    "pnpx", "bunx", "uvx", "gh", "brew", "apt", "apt-get", "conda", "hatch", "tox", "nox",
    "rustup", "deno", "terraform", "helm", "aws", "gcloud", "az", "systemctl", "rails",
    "bundle", "composer", "mix", "stack", "cabal", "swift", "flutter", "dart", "pre-commit",
    "docker-compose", "ruff", "task", "nix", "dune", "opam", "zig",
})

_INLINE_CODE = {
    "python": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p",
                                                                       "--print"),
    "php": ("-r",), "lua": ("-e",), "Rscript": ("-e",), "deno": ("eval",), "bun": ("-e",
                                                                                   "--eval"),
    "osascript": ("-e",), "pwsh": ("-c", "-Command"), "powershell": ("-c", "-Command"),
    "tclsh": (), "awk": (),
}

#: Commands whose rules name the whole command (their arguments are what matters).
_EXACT = frozenset({"rm", "rmdir", "unlink", "mv", "cp", "ln", "chmod", "chown", "chgrp",
                    "touch", "mkdir", "tee", "dd", "kill", "pkill", "truncate", "install",
                    "curl", "wget", "scp", "rsync", "ssh", "sed", "awk", "xargs", "find"})

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_REMOTE = re.compile(r"^[^/\s]*@[^/\s]+:|^[A-Za-z0-9.-]+:[^/]")

_PATH_KEYS = ("path", "file_path", "filepath", "file", "filename", "paths", "files", "target",
              "target_path", "destination", "dest", "source", "src", "dir", "directory", "root",
              "notebook_path", "old_path", "new_path", "cwd", "workdir")
_PATCH_KEYS = ("patch", "diff", "input", "patch_text")
_CWD_KEYS = ("cwd", "workdir", "working_dir", "directory", "dir")

_HARMLESS = re.compile(r"^/dev/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|fd/\d+|"
                       r"pts/\d+)$")


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _interpreter_name(program: str) -> str:
    if re.fullmatch(r"python(\d(\.\d+)?)?|pypy\d?", program):
        return "python"
    return program


def _inline_code(command: SimpleCommand) -> bool:
    program = _interpreter_name(command.program)
    options = _INLINE_CODE.get(program)
    if options is None:
        return False
    values = [w.value for w in command.args]
    if program == "deno":
        return bool(values) and values[0] == "eval"
    for value in values:
        if value in options or any(value.startswith(o + "=") for o in options if
                                   o.startswith("--")):
            return True
        if program in ("python", "perl", "ruby") and re.fullmatch(r"-[A-Za-z]*[ceE]", value):
            return True
        if not value.startswith("-"):
            break
    return False


def _read_only(command: SimpleCommand) -> bool:
    """Whether the command only reads (its paths are judged separately)."""
    program = command.program
    values = [w.value for w in command.args]
    if not command.words:
        return True  # variable assignments only
    if values and all(v in ("--version", "--help", "-V") for v in values) and \
            command.name is not None and command.name.static:
        return True
    if program not in READ_ONLY:
        return False
    if program == "find":
        return not any(v in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
                       for v in values)
    if program == "rg":
        return not any(v == "--pre" or v.startswith("--pre=") for v in values)
    writer = _READ_ONLY_WRITERS.get(program)
    if writer is not None:
        letters, longs, values_taken = writer
        if _short_or_long(command, letters, longs, values_taken):
            return False
    operands = _OPERANDS.get(program)
    if operands is not None:
        limit, value_options = operands
        if len(_operands(command, value_options)) > limit:
            return False
    if program == "command":
        return any(v in ("-v", "-V") for v in values[:2])
    if program in ("less", "more") and any(v.startswith("+") and any(c in v for c in "!|")
                                           for v in values):
        return False  # an initial command that runs a shell
    if program == "git":
        sub, rest = git_subcommand(command)
        if sub not in GIT_READ:
            return False
        rest_values = [w.value for w in rest]
        if any(v.startswith("--output") or v == "-o" for v in rest_values):
            return False
        if sub == "help" and any(v in ("-w", "--web") for v in rest_values):
            return False  # opens a web browser
        if sub == "grep" and any(v.startswith(("-O", "--open-files-in-pager")) or (
                re.fullmatch(r"-[A-Za-z]*O.*", v) is not None) for v in rest_values):
            return False
        spots = positional(command, rest)
        if sub == "branch":
            return not spots and not any(v in ("-d", "-D", "-m", "-M", "-c", "-C", "--delete",
                                               "--move", "--copy", "-u", "--set-upstream-to",
                                               "--unset-upstream", "--edit-description",
                                               "-f", "--force") for v in rest_values)
        if sub == "tag":
            return not spots or "-l" in rest_values or "--list" in rest_values
        if sub == "remote":
            return not spots or spots[0].value in ("show", "get-url")
        if sub == "config":
            return any(v in ("--get", "--get-all", "--list", "-l", "--get-regexp")
                       for v in rest_values) or (bool(spots) and spots[0].value in (
                           "get", "list"))
        if sub == "stash":
            return bool(spots) and spots[0].value in ("list", "show")
        if sub == "worktree":
            return bool(spots) and spots[0].value == "list"
        if sub == "reflog":
            return not spots or spots[0].value in ("show",)
        return True
    return True


#: Read-only programs with options that write (or run something): program → (short letters,
#: long options, short letters that take a value — the rest of a bundle is that value).
_READ_ONLY_WRITERS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "sort": ("o", ("--output", "--compress-program"), "kotST"),
    "xxd": ("r", ("--revert",), "cglosn"),
    "tree": ("o", (), "LPIo"),
    "less": ("oO", ("--log-file", "--LOG-FILE"), "bhjkpPtTxyz"),
    "file": ("C", ("--compile",), "efFmP"),
    "date": ("s", ("--set",), "dfrI"),
    "hostname": ("Fb", ("--file", "--boot"), ""),
    "bat": ("", ("--pager",), "lmrHL"),
    "ag": ("", ("--pager",), "ABCGgm"),
    "ack": ("", ("--pager",), "ABCgm"),
}
#: Read-only programs whose operands past the first ``limit`` are files they write (``xxd IN
#: OUT``, ``uniq IN OUT``) or that set something (``hostname NAME``): program → (limit, options
#: that take a value).
_OPERANDS: dict[str, tuple[int, tuple[str, ...]]] = {
    "xxd": (1, ("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-s", "-seek", "-n",
                "-name")),
    "uniq": (1, ("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars")),
    "hostname": (0, ()),
}


def _short_or_long(command: SimpleCommand, letters: str, longs: tuple[str, ...],
                   value_letters: str) -> bool:
    """Whether the command has one of the short option ``letters`` (alone or in a bundle, up to
    a letter that takes a value: ``-nrokeep.txt`` has ``o``) or one of ``longs`` (``--x``,
    ``--x=…``, or a prefix GNU getopt accepts, ``--out``)."""
    for word in command.args:
        text = word.value
        if text == "--":
            break
        if text.startswith("--"):
            name = text.split("=", 1)[0]
            if len(name) > 2 and any(option.startswith(name) for option in longs):
                return True
        elif text.startswith("-") and len(text) > 1:
            for char in text[1:]:
                if char in letters:
                    return True
                if char in value_letters or not char.isalnum():
                    break
    return False


def _operands(command: SimpleCommand, value_options: tuple[str, ...]) -> list[Word]:
    """The command's operands, skipping the values of ``value_options``."""
    out: list[Word] = []
    skip = False
    rest = False
    for word in command.args:
        text = word.value
        if skip:
            skip = False
        elif rest or text == "-" or not text.startswith("-") or word.dynamic:
            out.append(word)
        elif text == "--":
            rest = True
        elif text in value_options:
            skip = True
    return out


# ------------------------------------------------------------------------------------ places


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
        out: list[Path] = []
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
        kind = _kind(tool, call.arguments)
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
            return [Part(DENY, f"'{_short(text, 60)}' is not a usable path ({err})")]
        lexical = lexical or self.lexical(text, base)
        if _HARMLESS.match(str(real)) or _HARMLESS.match(str(lexical)):
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
                    rule = path_rule("edit", real, self.workspace, self.home)
                    return [Part(PROTECTED, f"protected: {what}, one of git's or chatcli's "
                                            "control files (asks in every mode)", [],
                                 f"allow it with --allow '{rule}' (a rule that names it)")]
                if grant is not None:
                    grant.protected = True
        elif (_ENVIRON.match(str(lexical)) or _ENVIRON.match(str(real))) and not (
                grant is not None and grant.confined) and self.matching(
                    "allow", rule_tool, path=real, specific=True) is None:
            rule = path_rule("read", lexical, self.workspace, self.home)
            parts.append(Part(CREDENTIAL, f"{what}, another process's environment or memory, "
                                          "where API keys live", [rule],
                              f"allow it with --allow '{rule}'"))
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
        subject = _subject(tool, call.arguments)
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
            why = self._hidden_code(command)
            if why:
                report.code.append((command, why))
            self._files(command, place, report)
            self._control_writes(command, place, report)
            environ = _environ_reader(command)
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
                                    f"only known when it runs ({_short(target.raw, 40)})"))
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

    def _hidden_code(self, command: SimpleCommand) -> str | None:
        """Why the command runs code the policy cannot see, if it does."""
        name = command.name
        for variable, _value in command.assignments:
            if HIJACK.match(variable):
                return f"sets {variable}, which changes what runs"
        if name is None:
            return None
        if command.program == "env" and any(
                w.value in ("-S", "--split-string") or w.value.startswith(
                    ("--split-string=", "-S")) for w in command.args):
            return "runs a command given as one string (env -S)"
        outer = command.outer
        if outer is not None and {"env", "sudo", "run0"} & set(command.via) and any(
                w.value in ("-C", "--chdir", "-D") or w.value.startswith(("--chdir=", "-D")) or
                re.fullmatch(r"-[a-zA-Z]*C", w.value) for w in outer.args):
            return "runs in a folder a wrapper changes to (--chdir), which the policy cannot follow"
        if command.program in ("export", "declare", "typeset", "local", "readonly", "set"):
            for word in command.args:
                variable = word.value.split("=", 1)[0]
                if "=" in word.value and HIJACK.match(variable):
                    return f"sets {variable}, which changes what runs"
        if name.dynamic:
            return f"runs a command only known when it runs ({_short(name.raw, 40)})"
        program = command.program
        if _inline_code(command):
            return f"runs {program} code given inline"
        if program in _AWKS and _awk_hidden(command):
            return (f"runs {program} code that runs commands or reads or writes files of its "
                    "own choosing")
        if program == "sed" and _sed_hidden(command):
            return ("runs a sed script that runs commands or reads or writes files of its own "
                    "choosing")
        git = _git_hidden(command) if program == "git" else None
        if git:
            return git
        option = _command_option(command)
        if option:
            return f"runs a command given in its option {option}"
        if reads_code_from_stdin(command) and not command.looked_through:
            return f"runs {program} on commands from its input"
        if program in SHELLS and flag(command, "c") and not command.looked_through:
            return f"runs {program} on a command only known when it runs"
        if program in ("source", ".") and any(w.dynamic for w in command.args):
            return "sources a file only known when it runs"
        if program in ("eval", "trap", "watch") and not command.looked_through and any(
                w.dynamic for w in command.args):
            return f"runs {program} on text only known when it runs"
        return None

    def _files(self, command: SimpleCommand, place: _Place, report: ShellReport) -> None:
        """The files a command reads or writes through its own arguments."""
        program = command.program
        base = place.cwd
        args = command.args
        if command.name is None:
            return
        writes = _written_words(command)
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
        if program == "git" and git_subcommand(command)[0] == "config" and not _read_only(
                command):
            for text in _git_config_files(command):
                for real in self.paths_of(Word(text, text), base or self.workspace):
                    report.files.append((text, real, self.lexical(text, base or
                                                                  self.workspace), "write"))
        git_grep = program == "git" and git_subcommand(command)[0] == "grep"
        git_history = program == "git" and _git_reads_history(command)
        recursive = program in RECURSIVE_READERS or git_grep or git_history or (
            program in ("grep", "egrep", "fgrep", "cp", "scp", "zip", "chmod", "chown", "ls",
                        "diff") and
            _short_or_long(command, "rRa" if program not in ("ls", "diff") else (
                "R" if program == "ls" else "r"),
                 ("--recursive", "--archive", "--dereference-recursive"),
                 "efmABCdD" if program in ("grep", "egrep", "fgrep") else "")) or (
            program in ("grep", "egrep", "fgrep") and _grep_recurses(command))
        searches = git_grep or git_history or program in (
            "rg", "ag", "ack", "grep", "egrep", "fgrep", "find", "fd", "fdfind", "tree", "du",
            "ls")
        if recursive and searches and (
                not _search_folders(command) if program in _SEARCH_VALUE_OPTIONS else
                not any(path_like for _, path_like in candidates)):
            candidates.append((Word(".", "."), True))
        if "xargs" in command.via and program in _WRITERS:
            report.code.append((command, "writes or deletes paths it is given on its input "
                                         "(xargs)"))
        elif "xargs" in command.via and program in LEAKERS:
            report.code.append((command, "reads paths it is given on its input (xargs)"))
        moved = _moved_words(command)
        for word, path_like in candidates:
            if word.dynamic:
                if any(word is w for w in writes):
                    report.code.append((command, f"writes or deletes a path only known when "
                                                 f"it runs ({_short(word.raw, 40)})"))
                elif program in LEAKERS:
                    report.code.append((command, f"reads a path only known when it runs "
                                                 f"({_short(word.raw, 40)})"))
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
            if any(name in folded for name in _CONTROL_WORDS) and match_path(
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
        shown = _short(command.normalized(), 60)
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
                written = _written_words(command)
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
        what = _git_control(command) or _HOOK_INSTALLERS.get(" ".join(
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
        names = _archive_names([self._safe_real(a, base) for a in archive], program)
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
        shown = f"`{_short(text)}`"
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
                parts.append(Part(CREDENTIAL, f"`{_short(command.normalized())}` {why}",
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
                parts.append(Part(DENY, f"`{_short(words)}` is denied by the rule {deny.text} "
                                        f"({deny.source})"))
                continue
            ask = self._command_rule("ask", tool.name, texts)
            if ask is not None:
                parts.append(Part(ASK_RULE, f"`{_short(words)}`: the rule {ask.text} "
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
                    parts.append(Part(CODE, f"`{_short(words)}` {code}", [exact],
                                      f"allow it with --allow '{exact}'"))
                continue
            if allowed:
                grant.writes = True
                continue
            if _read_only(command):
                continue
            if self.mode == "plan":
                parts.append(Part(PLAN, f"`{_short(words)}`"))
                continue
            if self.mode == "auto" or "execute" in self.classes:
                grant.writes = True
                continue
            rule = suggest_rule(tool.name, command)
            if rule in seen:
                continue
            seen.add(rule)
            parts.append(Part(NEED, f"runs `{_short(words)}` (commands ask in {self.mode} "
                                    "mode)", [rule],
                              f"allow it with --allow '{rule}' or --permission-mode auto"))
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
                names_it = any(word in spec.casefold() for word in _CONTROL_WORDS) or (
                    len(words) >= 2 and words[0] == "git" and words[1] in (
                        "config", "remote", "submodule", "lfs", "worktree", "init", "clone")
                ) or (len(words) >= 2 and words[0] in ("pre-commit", "husky", "lefthook",
                                                       "overcommit") and "*" not in words[1])
                if names_it and any(match_command(rule.specifier, text) for text in texts):
                    return rule
        return None

    def _exec_cwd(self, arguments: dict[str, Any]) -> Path | Part | None:
        for key in _CWD_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                try:
                    real = self.real(value, self.workspace)
                except ValueError as err:
                    return Part(DENY, f"the working folder '{_short(value, 60)}' is not usable "
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
            reason = (f"plan mode is read-only, so {tool.name} ({_short(what, 100)}) was not run; "
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


# ------------------------------------------------------------------------------------ helpers


def _kind(tool: ToolSpec, arguments: dict[str, Any]) -> str:
    name = tool.name
    if name == "exec" or tool.subject == "command" or (
            tool.subject is None and name in ("bash", "shell", "sh", "test") and isinstance(
                arguments.get("command"), str)):
        return "shell"
    if name in READ_TOOLS:
        return "read"
    if name in EDIT_TOOLS:
        return "edit"
    return "other"


def _subject(tool: ToolSpec, arguments: dict[str, Any]) -> str | None:
    if tool.subject is None:
        return None
    value = arguments.get(tool.subject)
    if isinstance(value, str):
        return " ".join(value.split())
    return None if value is None else str(value)


def _collect(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 5:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list | tuple):
        for item in value[:200]:
            _collect(item, out, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in _PATH_KEYS:
                _collect(item, out, depth + 1)
            elif isinstance(item, list | dict):
                _walk_dicts(item, out, depth + 1)


def _walk_dicts(value: Any, out: list[str], depth: int) -> None:
    if depth > 5:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _PATH_KEYS:
                _collect(item, out, depth + 1)
            elif isinstance(item, list | dict):
                _walk_dicts(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:200]:
            _walk_dicts(item, out, depth + 1)


_PATCH_LINE = re.compile(
    r"^(?:\*\*\* (?:Add|Update|Delete) File: (?P<a>.+)|\*\*\* Move to: (?P<b>.+)|"
    r"(?:---|\+\+\+) (?P<c>\S.*?)(?:\t.*)?|diff --git (?P<d>\S+) (?P<e>\S+)|"
    r"rename (?:from|to) (?P<f>.+))$", re.M)


def patch_paths(text: str) -> list[str]:
    """The files a patch (unified diff or ``*** Begin Patch``) touches."""
    out: list[str] = []
    for match in _PATCH_LINE.finditer(text):
        for group in ("a", "b", "c", "d", "e", "f"):
            value = match.group(group)
            if not value:
                continue
            value = value.strip()
            if value == "/dev/null":
                continue
            if group in ("c", "d", "e") and re.match(r"^[ab]/", value):
                value = value[2:]
            out.append(value)
    return out


def tool_paths(tool: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """The paths a file tool's arguments name."""
    out: list[str] = []
    if tool.subject and tool.subject in arguments:
        _collect(arguments[tool.subject], out)
    _walk_dicts(arguments, out, 0)
    for key in _PATCH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            out.extend(patch_paths(value))
    if tool.name in ("glob", "search"):
        for key in ("pattern", "glob", "include"):
            value = arguments.get(key)
            if isinstance(value, str) and (value.startswith(("/", "~")) or ".." in value):
                fixed = []
                for piece in value.split("/"):
                    if any(c in piece for c in "*?[{"):
                        break
                    fixed.append(piece)
                out.append("/".join(fixed) or "/")
    return list(dict.fromkeys(p for p in out if isinstance(p, str) and p.strip()))


def _written_words(command: SimpleCommand) -> list[Word]:
    """The arguments a command writes (or deletes) through its own arguments."""
    program = command.program
    args = positional(command)
    values = [w.value for w in command.args]
    if program in ("rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "tee",
                   "mv", "sponge") or program in _EDITORS:
        return args
    if program == "patch":
        return args[:1]  # patch [options] [originalfile [patchfile]]
    if program in ("cp", "install", "ln", "rsync", "scp"):
        for index, value in enumerate(values):
            if value in ("-t", "--target-directory") and index + 1 < len(values):
                return [command.args[index + 1]]
            if value.startswith("--target-directory="):
                return [Word(value.split("=", 1)[1], value)]
        return args[-1:] if len(args) >= 2 else []
    if program in ("chmod", "chown", "chgrp", "chattr"):
        return args[1:]
    if program in ("sed", "perl") and _short_or_long(
            command, "i", ("--in-place",), "ef" if program == "sed" else "eEIlmMdDCx0"):
        return args[1:] if not any(v in ("-e", "-f") for v in values) else args
    if program == "dd":
        return [Word(v[3:], v) for v in values if v.startswith("of=")]
    if program in _OUTPUT_OPTIONS or program in _OUTPUT_OPERAND:
        return _output_words(command)
    if program in ("curl", "wget"):
        out = []
        for index, value in enumerate(values):
            if re.fullmatch(r"-[oOP].+", value) and not (program == "curl" and value[1] in "OP"):
                out.append(Word(value[2:], value))
            if value in ("-o", "--output", "-O", "--output-document", "--output-dir", "-P",
                         "--directory-prefix") and index + 1 < len(values) and not (
                    program == "curl" and value in ("-O", "-P")):
                out.append(command.args[index + 1])
            elif value.startswith(("--output-dir=", "--directory-prefix=", "--output=",
                                   "--output-document=")):
                out.append(Word(value.split("=", 1)[1], value))
        return out
    if program in ("tar", "unzip"):
        for index, value in enumerate(values):
            if value in ("-C", "--directory", "-d") and index + 1 < len(values):
                return [command.args[index + 1]]
        return []
    return []


# ------------------------------------------------------------------ control files, environments

#: Words whose presence in a path rule makes it name a control file (``edit(.git/config)``).
_CONTROL_WORDS = (".git", ".chatcli", ".mcp.json", ".claude", ".gitattributes", ".gitmodules")

#: Commands that install hooks into the repository (``.git/hooks`` or ``core.hooksPath``).
_HOOK_INSTALLERS = {
    "pre-commit install": "installs git hooks (.git/hooks)",
    "pre-commit install-hooks": "installs git hooks (.git/hooks)",
    "husky install": "sets git's core.hooksPath",
    "husky init": "sets git's core.hooksPath",
    "lefthook install": "installs git hooks (.git/hooks)",
    "overcommit --install": "installs git hooks (.git/hooks)",
}


#: The options of the search programs that take a value (the next word, unless written
#: ``--x=v`` or bundled ``-A3``): their values are no folders to search.
_SEARCH_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "grep": frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file",
                       "--max-count", "--after-context", "--before-context", "--context",
                       "--directories", "--devices", "--include", "--exclude",
                       "--exclude-dir", "--exclude-from", "--label", "--group-separator"}),
    "rg": frozenset({"-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "-M", "-E",
                     "-r", "-d", "--regexp", "--file", "--glob", "--iglob", "--type",
                     "--type-not", "--max-count", "--after-context", "--before-context",
                     "--context", "--threads", "--max-columns", "--encoding", "--replace",
                     "--sort", "--sortr", "--max-depth", "--max-filesize", "--pre",
                     "--pre-glob", "--type-add", "--type-clear", "--colors", "--color",
                     "--path-separator", "--engine", "--dfa-size-limit",
                     "--regex-size-limit", "--context-separator", "--field-context-separator",
                     "--field-match-separator", "--ignore-file", "--hostname-bin",
                     "--hyperlink-format"}),
    "ag": frozenset({"-A", "-B", "-C", "-G", "-g", "-m", "-p", "--ignore", "--depth",
                     "--path-to-ignore", "--file-search-regex", "--max-count", "--context",
                     "--after", "--before", "--pager"}),
    "ack": frozenset({"-A", "-B", "-C", "-g", "-m", "--type", "--ignore-dir", "--ignore-file",
                      "--max-count", "--context", "--after-context", "--before-context",
                      "--output", "--pager", "--type-add", "--type-set", "--match"}),
}
_SEARCH_VALUE_OPTIONS["egrep"] = _SEARCH_VALUE_OPTIONS["fgrep"] = _SEARCH_VALUE_OPTIONS["grep"]


def _search_folders(command: SimpleCommand) -> list[str]:
    """The files and folders a search program (grep, rg, ag, ack) is told to search: its
    operands after the pattern (the pattern is an option's value when given with ``-e``/``-f``,
    ``--regexp``/``--file``); empty when it searches its working folder."""
    takes = _SEARCH_VALUE_OPTIONS.get(command.program, frozenset())
    pattern_given = False
    operands: list[str] = []
    words = [w.value for w in command.args]
    index = 0
    rest = False
    while index < len(words):
        text = words[index]
        index += 1
        if rest or text == "-" or not text.startswith("-"):
            operands.append(text)
            continue
        if text == "--":
            rest = True
            continue
        name = text.split("=", 1)[0]
        if name in ("-e", "-f", "--regexp", "--file") or (
                not text.startswith("--") and len(text) > 1 and text[1] in "ef"):
            pattern_given = True
        if "=" in text and text.startswith("--"):
            continue
        if text in takes:
            index += 1
            continue
        if not text.startswith("--") and len(text) > 2:
            # a bundle: `-A3`, `-rne` (its last letter may take the next word)
            for position, letter in enumerate(text[1:], 1):
                if f"-{letter}" in takes:
                    if position == len(text) - 1:
                        index += 1
                    break
    return operands if pattern_given else operands[1:]


def _grep_recurses(command: SimpleCommand) -> bool:
    """``grep -d recurse``, ``-drecurse``, ``--directories=recurse``."""
    values = [w.value for w in command.args]
    for index, value in enumerate(values):
        if value in ("-d", "--directories") and values[index + 1:index + 2] == ["recurse"]:
            return True
        if value in ("-drecurse", "--directories=recurse"):
            return True
    return False


#: git subcommands that show file contents from history (all of the repository's files when no
#: path is named: a deny rule's files too, if they were ever committed).
_GIT_HISTORY = frozenset({"log", "show", "diff", "whatchanged", "archive", "format-patch",
                          "cat-file", "blame", "stash", "bundle", "fast-export"})


def _git_reads_history(command: SimpleCommand) -> bool:
    """Whether a git command shows the contents of files it was not given by path."""
    sub, rest = git_subcommand(command)
    if sub not in _GIT_HISTORY:
        return False
    values = [w.value for w in rest]
    if sub == "log" or sub == "whatchanged":
        return any(v in ("-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw",
                         "--full-diff", "-L") or v.startswith("-L") for v in values)
    if sub == "stash":
        return values[:1] == ["show"] and any(v in ("-p", "--patch") for v in values)
    if "--" in values:
        return False  # paths follow, and are judged as reads
    return not any("/" in v or (v.startswith(".") and not v.startswith("..")) for v in values
                   if not v.startswith("-"))


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


def _git_control(command: SimpleCommand) -> str | None:
    """Why a git command writes the repository's own control files (its config, .gitmodules,
    hooks from a template), if it does."""
    if command.program != "git":
        return None
    sub, rest = git_subcommand(command)
    values = [w.value for w in rest]
    spots = [w.value for w in positional(command, rest)]
    if sub == "config":
        if _read_only(command) or _git_config_files(command):
            return None  # --global/--system/--file: judged as a write to that file
        if spots or any(v in ("--unset", "--unset-all", "--add", "--replace-all",
                              "--rename-section", "--remove-section", "-e", "--edit")
                        for v in values):
            return "writes the repository's git config (.git/config)"
        return None
    if sub == "remote" and spots and spots[0] in ("add", "rename", "remove", "rm", "set-url",
                                                  "set-branches"):
        return "writes the repository's git config (.git/config)"
    if sub == "submodule" and spots and spots[0] in (
            "add", "init", "deinit", "set-url", "set-branch", "sync", "absorbgitdirs", "update"):
        return "writes the repository's git config and .gitmodules"
    if sub in ("init", "clone") and any(v == "--template" or v.startswith("--template=")
                                        for v in values):
        return "copies hooks into a repository from a template (--template)"
    if sub == "lfs" and spots[:1] in (["install"], ["update"]):
        return "installs git hooks (.git/hooks)"
    if sub == "worktree" and spots[:1] == ["add"]:
        return "adds a worktree to the repository's control folder (.git/worktrees)"
    return None


def _archive_names(paths: list[Path | None], program: str) -> list[str] | None:
    """The paths an archive or patch file holds (None: it could not be read — from a pipe, too
    big, or not a format this knows)."""
    if not paths or any(p is None for p in paths):
        return None
    names: list[str] = []
    for path in paths:
        assert path is not None
        try:
            if not path.is_file() or path.stat().st_size > 50_000_000:
                return None
            if program in ("patch", "git"):
                text = path.read_text(encoding="utf-8", errors="replace")
                found = patch_paths(text)
                if not found:
                    return None
                # patch -pN may strip folders: judge every tail too
                for name in found:
                    parts = Path(name).parts
                    names.extend(str(Path(*parts[i:])) for i in range(len(parts)))
            elif program == "unzip":
                import zipfile

                with zipfile.ZipFile(path) as archive:
                    names.extend(archive.namelist())
            else:
                import tarfile

                with tarfile.open(path) as archive:
                    for member in archive.getmembers():
                        names.append(member.name)
                        if member.issym() or member.islnk():
                            names.append(member.linkname)
        except Exception:  # a broken archive (tarfile's and zipfile's own errors too)
            return None
    return names


#: Files holding a process's environment or memory.
_ENVIRON = re.compile(r"^/proc/[^/]+(/task/[^/]+)?/(environ|mem)$")
#: Programs that read another process's memory when given ``-p PID`` (or a PID).
_TRACERS = frozenset({"gdb", "gcore", "strace", "ltrace", "perf", "lldb", "pstack",
                      "eu-stack"})


def _environ_reader(command: SimpleCommand) -> str | None:
    """Why the command reads other processes' environments (chatcli's API keys), if it does:
    ``ps e``/``ps auxeww``/``ps -o environ``, a debugger or tracer attached to a process."""
    program = command.program
    values = [w.value for w in command.args]
    if program == "ps":
        for index, value in enumerate(values):
            previous = values[index - 1] if index else ""
            takes_value = previous in ("o", "O", "p", "U", "t", "q", "--format", "--sort",
                                       "--pid", "--user", "--group", "--ppid", "--cols") or (
                re.fullmatch(r"-[A-Za-z]*[oOpCUuGgtqsN]", previous) is not None)
            if not value.startswith("-") and "=" not in value and re.fullmatch(
                    r"[A-Za-z]+", value) and "e" in value and not takes_value:
                return "shows other processes' environments (ps e), where API keys live"
            if "environ" in value.lower():
                return "shows other processes' environments (environ), where API keys live"
        return None
    if program in _TRACERS and (any(v in ("-p", "--pid", "--attach") or v.startswith(
            ("-p", "--pid=")) for v in values) or (program in ("gcore", "pstack", "eu-stack")
                                                  and values)):
        return f"attaches {program} to another process, whose memory holds API keys"
    return None


# ------------------------------------------------------------------ code inside arguments

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
#: What lets an awk program run commands (system, pipes, coprocesses), read files of its own
#: (getline) or write them (print > file), load code (@load, @include) or call a function by
#: a name held in a variable (gawk's @f()).
_AWK_HIDDEN = re.compile(r"\bsystem\b|\bgetline\b|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>"
                         r"|@\s*[A-Za-z_]|\bclose\s*\(")


def _option_values(command: SimpleCommand, short: str, long: tuple[str, ...],
                   takes_value: str, long_values: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The values given with the options ``short``/``long`` (``-e X``, ``-eX``, ``--x=X``) and
    the positional arguments (options in ``takes_value``/``long_values`` skip their value)."""
    values: list[str] = []
    rest: list[str] = []
    words = [w.value for w in command.args]
    index = 0
    while index < len(words):
        text = words[index]
        if text == "--":
            rest.extend(words[index + 1:])
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if name in long:
                if eq:
                    values.append(value)
                elif index + 1 < len(words):
                    values.append(words[index + 1])
                    index += 1
            elif name in long_values and not eq:
                index += 1
        elif text.startswith("-") and len(text) > 1:
            for position, letter in enumerate(text[1:], 1):
                if letter in short or letter in takes_value:
                    value = text[position + 1:]
                    if not value and index + 1 < len(words):
                        value = words[index + 1]
                        index += 1
                    if letter in short:
                        values.append(value)
                    break
        else:
            rest.append(text)
        index += 1
    return values, rest


def _awk_hidden(command: SimpleCommand) -> bool:
    """Whether an awk command's program (inline) can run commands or touch files by itself."""
    values = [w.value for w in command.args]
    if any(v in ("-l", "--load", "-i", "--include") or v.startswith(
            ("--load=", "-l", "--include=", "-i")) for v in values):
        return True  # gawk -i inplace writes the files it reads
    sources, rest = _option_values(command, "e", ("--source",), "fvF",
                                   ("--file", "--assign", "--field-separator"))
    # every other argument too: the program, or a file or assignment after it (an option this
    # does not know could take the word that looks like the program)
    return any(_AWK_HIDDEN.search(_awk_scrubbed(text)) for text in [*sources, *rest])


def _awk_scrubbed(program: str) -> str:
    """An awk program with its string and regular-expression literals emptied (a ``|`` in
    ``/a|b/`` or a word in ``"…"`` is no pipe and no call). A ``/`` after an operand is a
    division and stays."""
    out: list[str] = []
    index, size = 0, len(program)
    last = ""
    while index < size:
        char = program[index]
        if char == '"' or (char == "/" and (not last or last in "(,!~&|{};=?:\n")):
            end = index + 1
            in_class = False
            while end < size:
                if program[end] == "\\":
                    end += 2
                    continue
                if char == "/" and program[end] == "[":
                    in_class = True
                elif char == "/" and program[end] == "]":
                    in_class = False
                elif program[end] == char and not in_class:
                    break
                end += 1
            out.append(char + char)
            index = end + 1
            last = "x"
            continue
        out.append(char)
        if not char.isspace():
            last = char
        index += 1
    return "".join(out)


def _sed_hidden(command: SimpleCommand) -> bool:
    """Whether a sed script runs commands (``e``, ``s///e``), writes files (``w``, ``s///w``) or
    reads them (``r``, ``R``); a script that cannot be read counts as doing so."""
    values = [w.value for w in command.args]
    if "--sandbox" in values:
        return False
    scripts, rest = _option_values(command, "e", ("--expression",), "fl",
                                   ("--file", "--line-length"))
    has_file = any(v in ("-f", "--file") or v.startswith("--file=") or
                   (re.fullmatch(r"-[a-zA-Z]*f.*", v) is not None and not v.startswith("--"))
                   for v in values)
    if not scripts and not has_file and rest:
        scripts = rest[:1]
    return any(sed_script_touches(text) for text in scripts)


def sed_script_touches(script: str) -> bool:
    """Whether the sed ``script`` has a command that runs a program or reads or writes a file
    (``e``, ``r``, ``R``, ``w``, ``W``, the ``e``/``w`` flags of ``s``); True when it cannot be
    read."""
    text, index, size = script, 0, len(script)

    def skip_address(i: int) -> int:
        for _ in range(2):
            while i < size and text[i] in " \t":
                i += 1
            if i < size and (text[i].isdigit() or text[i] in "$+~"):
                while i < size and (text[i].isdigit() or text[i] in "$+~"):
                    i += 1
            elif i < size and text[i] in "/\\":
                delim = text[i] if text[i] == "/" else (text[i + 1] if i + 1 < size else "")
                i += 1 if text[i] == "/" else 2
                while i < size and text[i] != delim:
                    i += 2 if text[i] == "\\" else 1
                i += 1
                while i < size and text[i] in "IM":
                    i += 1
            if i < size and text[i] == ",":
                i += 1
                continue
            break
        while i < size and text[i] in " \t!":
            i += 1
        return i

    def skip_part(i: int, delim: str) -> int:
        while i < size and text[i] != delim:
            if text[i] == "\\":
                i += 1
            elif text[i] == "\n" and delim != "\n":
                return -1
            i += 1
        return i + 1 if i < size else -1

    while index < size:
        char = text[index]
        if char in " \t\n;{}":
            index += 1
            continue
        if char == "#":
            end = text.find("\n", index)
            index = size if end == -1 else end + 1
            continue
        index = skip_address(index)
        if index >= size:
            return False
        char = text[index]
        if char in "{}":
            continue
        if char in "ewWrR":
            return True
        if char in "sy":
            if index + 1 >= size:
                return True
            delim = text[index + 1]
            if delim in "\\\n":
                return True
            index = skip_part(index + 2, delim)
            if index < 0:
                return True
            index = skip_part(index, delim)
            if index < 0:
                return True
            if char == "s":
                while index < size and text[index] not in ";\n}":
                    if text[index] in "ew":
                        return True
                    if text[index] not in "gpiImM0123456789 \t":
                        return True
                    index += 1
            continue
        if char in "aic":
            while index < size and text[index] != "\n":
                index += 2 if text[index] == "\\" else 1
            continue
        if char in ":btT":
            while index < size and text[index] not in ";\n":
                index += 1
            continue
        if char in "lLqQ":
            index += 1
            while index < size and (text[index].isdigit() or text[index] in " \t"):
                index += 1
            continue
        if char in "=dDgGhHnNpPxzFv":
            index += 1
            continue
        return True  # a command this does not know
    return False


#: git settings whose value is a command git runs (or that make it run one); more than needed
#: rather than fewer (a setting named like one asks).
_GIT_COMMAND_KEYS = re.compile(
    r"^(.+\.(pager|editor|fsmonitor|hookspath|askpass|gitproxy|external|textconv|clean|smudge|"
    r"process|driver|helper|program|proxy|uploadpack|receivepack|packobjectshook|path|"
    r"required|allow|insteadof|pushinsteadof|worktree|attributesfile|excludesfile)|"
    r".+(command|cmd)|alias\..+|pager\..+|include(if\..+)?\..+|protocol\..+|url\..+)$", re.I)


def _git_hidden(command: SimpleCommand) -> str | None:
    """git told to run a command: ``-c core.pager=…``, ``--config-env``, ``--upload-pack``,
    ``--exec`` …, or ``git config`` setting such a key."""
    values = [w.value for w in command.args]
    for index, value in enumerate(values):
        setting = None
        if value == "-c" and index + 1 < len(values):
            setting = values[index + 1]
        elif value.startswith("-c") and len(value) > 2:
            setting = value[2:]
        elif value.startswith("--config-env"):
            return "sets a git setting from the environment (--config-env)"
        if setting is not None and _GIT_COMMAND_KEYS.match(setting.split("=", 1)[0]):
            return f"sets git's {setting.split('=', 1)[0]}, which runs a command"
    sub, rest = git_subcommand(command)
    rest_values = [w.value for w in rest]
    if sub == "grep" and any(v.startswith("--open-files-in-pager") or re.fullmatch(
            r"-[A-Za-z]*O.*", v) for v in rest_values):
        return "runs a program on the files it finds (git grep --open-files-in-pager)"
    if any(v in ("--git-dir", "--work-tree") or v.startswith(("--git-dir=", "--work-tree="))
           for v in values[:len(values) - len(rest)]):
        return ("uses another repository's folder (--git-dir/--work-tree), whose config can run "
                "programs")
    if any(v.startswith("--exec-path=") for v in values):
        return "tells git where to find its programs (--exec-path)"
    if any(v.startswith(("--upload-pack", "--receive-pack")) or (
            v == "-u" and sub in ("clone", "fetch", "pull", "ls-remote", "archive")) or (
            sub == "rebase" and (v in ("-x", "--exec") or v.startswith("--exec=")))
           for v in rest_values):
        return f"tells git {sub} which program to run"
    if (sub == "bisect" and rest_values[:1] == ["run"]) or (
            sub == "submodule" and "foreach" in rest_values):
        return f"runs a command through git {sub}"
    if sub == "config":
        words = [v for v in rest_values if not v.startswith("-")]
        key = next((w for w in words[:-1] if _GIT_COMMAND_KEYS.match(w)), None)
        if key is not None:
            return f"sets git's {key}, which runs a command"
    return None


def _git_config_files(command: SimpleCommand) -> list[str]:
    """The file ``git config`` writes when told to (``--global``: ~/.gitconfig, ``--system``,
    ``--file F``); none for the repository's own config."""
    _sub, rest = git_subcommand(command)
    values = [w.value for w in rest]
    out = []
    for index, value in enumerate(values):
        if value == "--global":
            out.append("~/.gitconfig")
        elif value == "--system":
            out.append("/etc/gitconfig")
        elif value in ("--file", "-f") and index + 1 < len(values):
            out.append(values[index + 1])
        elif value.startswith("--file="):
            out.append(value.split("=", 1)[1])
    return out


#: Options whose value is a command the program runs.
_COMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "tar": ("--to-command", "--checkpoint-action", "--use-compress-program", "-I",
            "--rsh-command", "--info-script", "--new-volume-script", "-F"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
    "ssh": ("-oProxyCommand", "-oLocalCommand", "-oKnownHostsCommand"),
    "scp": ("-S", "-oProxyCommand", "-oLocalCommand"),
    "sftp": ("-S", "-oProxyCommand", "-oLocalCommand"),
    "fd": ("-x", "--exec", "-X", "--exec-batch"),
    **{editor: ("-c", "--cmd", "-S", "--eval", "-x", "--execute") for editor in (
        "vi", "vim", "nvim", "view", "vim.basic", "vim.tiny", "ex", "emacs", "kak", "hx")},
    "fdfind": ("-x", "--exec", "-X", "--exec-batch"),
    "sort": ("--compress-program",),
    "bat": ("--pager",),
    "batcat": ("--pager",),
    "ag": ("--pager",),
    "ack": ("--pager",),
}


def _command_option(command: SimpleCommand) -> str | None:
    """The option giving ``command`` a command to run (``tar --to-command=…``), if any."""
    options = _COMMAND_OPTIONS.get(command.program)
    if not options:
        return None
    values = [w.value for w in command.args]
    if command.program == "tar":  # bundled letters: -xIf, or the old style xIf
        for index, value in enumerate(values):
            bundle = value[1:] if value.startswith("-") and not value.startswith("--") else (
                value if index == 0 else "")
            if re.fullmatch(r"[A-Za-z]+", bundle) and len(bundle) > 1 and (
                    "I" in bundle or "F" in bundle):
                return "-I" if "I" in bundle else "-F"
    for index, value in enumerate(values):
        text = value
        if value == "-o" and index + 1 < len(values):  # ssh -o ProxyCommand=…
            text = "-o" + values[index + 1]
        for option in options:
            if option.startswith("-o") and text.lower().startswith(option.lower()):
                return option[2:]
            if text == option or (option.startswith("--") and text.startswith(option + "=")):
                return option
            if len(option) == 2 and text.startswith(option) and len(text) > 2 and \
                    not text.startswith("--"):
                return option
    return None


#: Programs whose own arguments name what they write or delete (see :func:`_written_words`).
_WRITERS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "tee",
                      "mv", "cp", "install", "ln", "rsync", "scp", "chmod", "chown", "chgrp",
                      "chattr", "dd", "sed", "perl", "curl", "wget", "tar", "unzip", "sponge",
                      "patch"})
#: Programs with an option whose value is a file they write: program → (options, short
#: letters taking a value — a bundle ends at one).
_OUTPUT_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "sort": (("-o", "--output"), "kotST"),
    "tree": (("-o",), "LPIo"),
    "less": (("-o", "-O", "--log-file", "--LOG-FILE"), "bhjkpPtTxyzoO"),
    "csplit": (("-f", "--prefix"), "bfn"),
    "find": (("-fprint", "-fprint0", "-fprintf", "-fls"), ""),
    "git": (("--output",), ""),
}
#: Programs whose operand past the first ``n`` is a file they write: program → (n, options
#: that take a value).
_OUTPUT_OPERAND: dict[str, tuple[int, tuple[str, ...]]] = {
    "xxd": (1, ("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-s", "-seek", "-n",
                "-name")),
    "uniq": (1, ("-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars")),
    "split": (1, ("-a", "-b", "-C", "-l", "-n", "-t", "--suffix-length", "--bytes",
                  "--line-bytes", "--lines", "--number", "--separator",
                  "--additional-suffix", "--filter", "--numeric-suffixes",
                  "--hex-suffixes")),
}


def _output_words(command: SimpleCommand) -> list[Word]:
    """The files a program names as its output (``sort -o F``, ``xxd IN OUT``)."""
    program = command.program
    out: list[Word] = []
    if program in _OUTPUT_OPTIONS:
        options, value_letters = _OUTPUT_OPTIONS[program]
        words = command.args
        for index, word in enumerate(words):
            text = word.value
            if text == "--":
                break
            name, eq, value = text.partition("=")
            if text in options and index + 1 < len(words):
                out.append(words[index + 1])
            elif text.startswith("--") and eq and any(
                    o.startswith(name) and o.startswith("--") for o in options) and len(name) > 4:
                out.append(Word(value, text))  # --output=F, or GNU's --out=F
            elif text.startswith("-") and not text.startswith("--") and program != "find":
                for position, letter in enumerate(text[1:], 1):
                    if f"-{letter}" in options:
                        rest = text[position + 1:]
                        if rest:
                            out.append(Word(rest, text))
                        elif index + 1 < len(words):
                            out.append(words[index + 1])
                        break
                    if letter in value_letters or not letter.isalnum():
                        break
    if program in _OUTPUT_OPERAND:
        limit, value_options = _OUTPUT_OPERAND[program]
        out.extend(_operands(command, value_options)[limit:])
    return out


#: Editors: the files they are given are files they may write.
_EDITORS = frozenset({"vi", "vim", "nvim", "view", "vim.basic", "vim.tiny", "nano", "pico",
                      "emacs", "emacsclient", "ed", "red", "ex", "joe", "micro", "kak", "hx",
                      "mcedit", "jed", "ne"})


def _moved_words(command: SimpleCommand) -> list[Word]:
    """The sources of ``mv`` (what it moves away is read: a deny rule on reading them holds)."""
    if command.program != "mv":
        return []
    args = positional(command)
    values = [w.value for w in command.args]
    if any(v in ("-t", "--target-directory") or v.startswith("--target-directory=")
           for v in values):
        target = next((command.args[i + 1] for i, v in enumerate(values)
                       if v in ("-t", "--target-directory") and i + 1 < len(values)), None)
        return [w for w in args if w is not target]
    return args[:-1]


def suggest_rule(tool: str, command: SimpleCommand) -> str:
    """The narrowest sensible rule allowing ``command``: ``exec(npm test:*)`` for
    ``npm test -- -k x``, ``exec(python -m pytest:*)``, ``exec(ls:*)``."""
    words = [w.value for w in command.words]
    if not words:
        return tool
    name = words[0]
    prefix = [name]
    program = command.program
    rest = words[1:]
    if _interpreter_name(program) == "python" and len(rest) >= 2 and rest[0] == "-m":
        return command_rule(tool, prefix + rest[:2])
    if program in ("node", "python", "ruby", "perl", "bash", "sh", "zsh", "deno", "bun") or \
            _interpreter_name(program) == "python":
        if rest and not rest[0].startswith("-"):
            return command_rule(tool, prefix + rest[:1])
        return command_rule(tool, words, exact=True)
    if program in _EXACT:
        return command_rule(tool, words, exact=True)
    if program in MULTI:
        limit = 3 if program in ("npm", "pnpm", "yarn", "bun") and rest[:1] in (
            ["run"], ["run-script"]) else 2
        for word in rest:
            if len(prefix) >= limit or "/" in word or not re.fullmatch(r"[A-Za-z][\w:.@+-]*",
                                                                       word):
                break
            prefix.append(word)
    return command_rule(tool, prefix)
