"""What a shell command line does, part by part: the files each command reads and writes, the
code it runs that the policy cannot see, the control files it writes, the folders it reads
recursively, the dangers (:class:`ShellReport`, :func:`inspect`).

The command line is parsed and looked through its wrappers by :mod:`chatcli_agent._shell`;
what each program does is :mod:`chatcli_agent.permissions.programs`; the paths are resolved by
the :class:`~chatcli_agent.permissions.policy.Policy` (its workspace, home and rules), which
then judges each part.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import translation

from chatcli_agent._shell import (
    SimpleCommand,
    Word,
    analyse,
    flag,
    git_subcommand,
    positional,
    short_or_long,
)
from chatcli_agent.permissions.dangerous import Hit, command_dangers, script_dangers, write_danger
from chatcli_agent.permissions.programs import (
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
    written_words,
)
from chatcli_agent.permissions.rules import Rule, command_rule, path_rule

if TYPE_CHECKING:
    from chatcli_agent.permissions.policy import Policy

__all__ = ["ShellReport", "inspect"]

_, ngettext = translation(__name__)


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


def inspect(policy: Policy, text: str, cwd: Path | None = None) -> ShellReport:
    """Everything the policy needs to know about a command line."""
    report = ShellReport(text)
    expanded = analyse(text, str(policy.home))
    report.errors = list(expanded.errors)
    report.commands = expanded.commands
    report.dangers.extend(script_dangers(expanded, text))
    where: Path | None = cwd or policy.workspace
    for command in expanded.commands:
        place = _Place(policy, where)
        report.places.append(where is not None)
        if command.looked_through:
            continue
        report.dangers.extend(command_dangers(command, place))
        why = hidden_code(command)
        if why:
            report.code.append((command, why))
        _files(policy, command, place, report)
        _control_writes(policy, command, place, report)
        environ = environ_reader(command)
        if environ:
            report.environ.append((command, environ))
        where = _next_cwd(policy, command, where)
    for redirect in expanded.redirects:
        target = redirect.target
        if target is None:
            continue
        if redirect.op in (">&", "<&") and re.fullmatch(r"\d+-?|-", target.value):
            continue
        kind = "redirect" if redirect.writes or redirect.op == "<>" else "read"
        if target.dynamic:
            message = (_("writes a file only known when it runs ({path})") if kind == "redirect"
                       else _("reads a file only known when it runs ({path})"))
            report.code.append((SimpleCommand([], text=text),
                                message.format(path=short(target.raw, 40))))
            continue
        for real in policy.paths_of(target, where or policy.workspace):
            report.files.append((target.value, real, policy.lexical(target.value, where or
                                                                  policy.workspace), kind))
            if redirect.op == "<>":
                report.files.append((target.value, real, real, "read"))
    for _value, real_path, _lexical, kind in report.files:
        if kind in ("read", "read-name") and not str(real_path).startswith(
                ("/dev/tcp/", "/dev/udp/")):
            continue
        hit = write_danger(real_path, policy.home)
        if hit is not None and hit not in report.dangers:
            report.dangers.append(hit)
    return report


def _next_cwd(policy: Policy, command: SimpleCommand, where: Path | None) -> Path | None:
    program = command.program
    if program not in ("cd", "pushd", "popd") or command.via:
        return where
    args = positional(command)
    if program == "popd" or not args or args[0].value == "-" or args[0].dynamic:
        return None if program != "cd" or args else policy.home
    base = where or policy.workspace
    try:
        return policy.real(args[0].value, base)
    except ValueError:
        return None


def _files(policy: Policy, command: SimpleCommand, place: _Place, report: ShellReport) -> None:
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
            for real in policy.paths_of(Word(text, text), base or policy.workspace):
                report.files.append((text, real, policy.lexical(text, base or
                                                              policy.workspace), "write"))
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
        report.code.append((command, _("writes or deletes paths it is given on its input "
                                       "(xargs)")))
    elif "xargs" in command.via and program in LEAKERS:
        report.code.append((command, _("reads paths it is given on its input (xargs)")))
    moved = moved_words(command)
    for word, path_like in candidates:
        if word.dynamic:
            if any(word is w for w in writes):
                report.code.append((command, _("writes or deletes a path only known when it "
                                               "runs ({path})").format(path=short(word.raw, 40))))
            elif program in LEAKERS:
                report.code.append((command, _("reads a path only known when it runs ({path})"
                                               ).format(path=short(word.raw, 40))))
            continue
        if base is None and not word.value.startswith(("/", "~")):
            report.code.append((command, _("uses a path after `cd` to a folder only known "
                                           "when it runs")))
            continue
        looks = path_like and ("/" in word.value or word.value.startswith((".", "~")) or
                               os.path.lexists(os.path.join(str(base or policy.workspace),
                                                            word.value)))
        from chatcli_workspace import is_credential

        for real in policy.paths_of(word, base or policy.workspace):
            lexical = policy.lexical(word.value, base or policy.workspace)
            written = any(word is w for w in writes)
            kind = "write" if written else "read"
            if written or looks or is_credential(real) or policy.matching(
                    "deny", "read", path=real, lexical=lexical) is not None:
                report.files.append((word.value, real, lexical,
                                     kind if looks or written else "read-name"))
            if any(word is w for w in moved):  # a file moved away is read, too
                report.files.append((word.value, real, lexical, "read"))
            if recursive and kind == "read" and real.is_dir():
                for rule in policy.deny_inside("read", real):
                    (report.history_denied if git_history else report.covers_denied
                     ).append((real, rule))
    for word in writes:
        if not any(word is w for w, _ in candidates) and word.static:
            for real in policy.paths_of(word, base or policy.workspace):
                report.files.append((word.value, real, policy.lexical(
                    word.value, base or policy.workspace), "write"))


def _control_writes(policy: Policy, command: SimpleCommand, place: _Place,
                    report: ShellReport) -> None:
    """Writes to control files the command's written words do not show: where ``cp``,
    ``mv``, ``ln``, ``install`` and ``rsync`` put what they copy (``cp x.toml .chatcli/``,
    ``cp -r sub/. .`` with ``sub/.mcp.json``), what ``ln`` links to, what an archive or a
    patch unpacks, and git's own config (``git config k v``, ``git remote add``,
    ``git submodule``, ``git init --template``, hook installers)."""
    program = command.program
    base = place.cwd or policy.workspace
    shown = short(command.normalized(), 60)
    exact = command_rule("exec", command.argv(), exact=True)
    if command.name is None or command.name.dynamic:
        return
    if program in ("cp", "mv", "ln", "install", "rsync", "scp"):
        for source, landing in _landings(policy, command, base):
            if policy.control(landing):
                report.control.append((command, f"`{shown}` writes {policy.show(landing)}",
                                       path_rule("edit", landing, policy.workspace,
                                                 policy.home)))
                return
            if source.is_dir() and not source.is_symlink() and program != "ln":
                from chatcli_workspace import control_paths

                inner = control_paths(source, limit=2000)
                if inner:
                    report.control.append((command, f"`{shown}` copies "
                                           f"{policy.show(inner[0])} into "
                                           f"{policy.show(landing)}", exact))
                    return
        if program == "ln" or (program == "cp" and flag(
                command, "ls", ("--link", "--symbolic-link"))):
            written = written_words(command)
            # a symbolic link's target is read from the folder the link is made in
            link_dirs = {base}
            for word in written:
                if word.static:
                    target = policy.lexical(word.value, base)
                    link_dirs.add(target if target.is_dir() else target.parent)
            for word in positional(command):
                if any(word is w for w in written) or word.dynamic:
                    continue
                for real in policy.paths_of(word, base):
                    lexical = [policy.lexical(word.value, folder) for folder in link_dirs]
                    if policy.control(real, *lexical):
                        report.control.append((command, f"`{shown}` links to "
                                               f"{policy.show(real)}", exact))
                        return
    unpacked = _unpacks(policy, command, base)
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
            if policy.control(policy.lexical(text, base)):
                report.control.append((command, f"`{shown}` writes {text}", exact))
                return


def _landings(policy: Policy, command: SimpleCommand, base: Path) -> list[tuple[Path, Path]]:
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
        destination = policy.real(target.value, base)
    except ValueError:
        return []
    lexical_target = policy.lexical(target.value, base)
    folder = into_folder or destination.is_dir() or target.value.endswith("/") or len(
        sources) > 1
    out: list[tuple[Path, Path]] = []
    for word in sources:
        if word.dynamic:
            continue
        for source in policy.paths_of(word, base):
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


def _unpacks(policy: Policy, command: SimpleCommand, base: Path) -> str | None:
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
        folder = policy.real(folder_word, base) if folder_word else base
    except ValueError:
        return None
    names = archive_names([policy.safe_real(a, base) for a in archive], program)
    if names is not None:
        for name in names:
            if policy.control(folder / name):
                return (f"unpacks {policy.show(folder / name)} (from "
                        f"{', '.join(archive) or 'its input'})")
        return None
    if _control_home(policy, folder):
        return (f"unpacks files it names only when it runs into {policy.show(folder)}, "
                "where git's and chatcli's control files take effect")
    return None


def _control_home(policy: Policy, folder: Path) -> bool:
    """Whether control files written in ``folder`` would take effect: the workspace, or a
    folder holding a repository or chatcli's or Claude's settings."""
    return folder == policy.workspace or policy.control(folder) or any(
        os.path.lexists(folder / name) for name in (".git", ".chatcli", ".claude"))
