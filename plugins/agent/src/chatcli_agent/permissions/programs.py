"""Knowledge of programs: what a command does, read from its words.

Which programs only read (:func:`read_only`) and which of their options write or run something,
what a command writes (:func:`written_words`, :func:`moved_words`), which folders a search reads
(:func:`search_folders`), which commands run code the policy cannot see (:func:`hidden_code`:
``python -c``, awk's ``system``, sed's ``e``, ``git -c core.pager=…``, ``tar --to-command``…),
which write git's or chatcli's control files (:func:`git_control`, :func:`archive_names`), which
read other processes' environments (:func:`environ_reader`), and the narrowest rule that allows
a command (:func:`suggest_rule`). Every function here looks at one simple command (wrappers
already looked through by :mod:`chatcli_agent._shell`); the policy decides what follows.
"""

from __future__ import annotations

import re
from pathlib import Path

from chatcli import translation

from chatcli_agent._shell import (
    SHELLS,
    SimpleCommand,
    Word,
    flag,
    git_subcommand,
    operands,
    option_values,
    positional,
    short_or_long,
)
from chatcli_agent.permissions.dangerous import reads_code_from_stdin
from chatcli_agent.permissions.paths import patch_paths
from chatcli_agent.permissions.rules import command_rule

_, ngettext = translation(__name__)


def short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


#: Commands that only read (with the exceptions checked in :func:`read_only`).
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


def hidden_code(command: SimpleCommand) -> str | None:
    """Why the command runs code the policy cannot see, if it does."""
    name = command.name
    for variable, _value in command.assignments:
        if HIJACK.match(variable):
            return _("sets {variable}, which changes what runs").format(variable=variable)
    if name is None:
        return None
    if command.program == "env" and any(
            w.value in ("-S", "--split-string") or w.value.startswith(
                ("--split-string=", "-S")) for w in command.args):
        return _("runs a command given as one string (env -S)")
    outer = command.outer
    if outer is not None and {"env", "sudo", "run0"} & set(command.via) and any(
            w.value in ("-C", "--chdir", "-D") or w.value.startswith(("--chdir=", "-D")) or
            re.fullmatch(r"-[a-zA-Z]*C", w.value) for w in outer.args):
        return _("runs in a folder a wrapper changes to (--chdir), which the policy cannot follow")
    if command.program in ("export", "declare", "typeset", "local", "readonly", "set"):
        for word in command.args:
            variable = word.value.split("=", 1)[0]
            if "=" in word.value and HIJACK.match(variable):
                return _("sets {variable}, which changes what runs").format(variable=variable)
    if name.dynamic:
        return _("runs a command only known when it runs ({command})").format(
            command=short(name.raw, 40))
    program = command.program
    if inline_code(command):
        return _("runs {program} code given inline").format(program=program)
    if program in AWKS and _awk_hidden(command):
        return _("runs {program} code that runs commands or reads or writes files of its own "
                 "choosing").format(program=program)
    if program == "sed" and _sed_hidden(command):
        return _("runs a sed script that runs commands or reads or writes files of its own "
                 "choosing")
    git = _git_hidden(command) if program == "git" else None
    if git:
        return git
    option = _command_option(command)
    if option:
        return _("runs a command given in its option {option}").format(option=option)
    if reads_code_from_stdin(command) and not command.looked_through:
        return _("runs {program} on commands from its input").format(program=program)
    if program in SHELLS and flag(command, "c") and not command.looked_through:
        return _("runs {program} on a command only known when it runs").format(program=program)
    if program in ("source", ".") and any(w.dynamic for w in command.args):
        return _("sources a file only known when it runs")
    if program in ("eval", "trap", "watch") and not command.looked_through and any(
            w.dynamic for w in command.args):
        return _("runs {program} on text only known when it runs").format(program=program)
    return None


def interpreter_name(program: str) -> str:
    if re.fullmatch(r"python(\d(\.\d+)?)?|pypy\d?", program):
        return "python"
    return program


def inline_code(command: SimpleCommand) -> bool:
    program = interpreter_name(command.program)
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


def read_only(command: SimpleCommand) -> bool:
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
        if short_or_long(command, letters, longs, values_taken):
            return False
    operand_limit = _OPERANDS.get(program)
    if operand_limit is not None:
        limit, value_options = operand_limit
        if len(operands(command, value_options)) > limit:
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


def written_words(command: SimpleCommand) -> list[Word]:
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
    if program in ("sed", "perl") and short_or_long(
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


#: Words whose presence in a path rule makes it name a control file (``edit(.git/config)``).
CONTROL_WORDS = (".git", ".chatcli", ".mcp.json", ".claude", ".gitattributes", ".gitmodules")


#: Commands that install hooks into the repository (``.git/hooks`` or ``core.hooksPath``).
HOOK_INSTALLERS = {
    "pre-commit install": "installs git hooks (.git/hooks)",
    "pre-commit install-hooks": "installs git hooks (.git/hooks)",
    "husky install": "sets git's core.hooksPath",
    "husky init": "sets git's core.hooksPath",
    "lefthook install": "installs git hooks (.git/hooks)",
    "overcommit --install": "installs git hooks (.git/hooks)",
}


#: The options of the search programs that take a value (the next word, unless written
#: ``--x=v`` or bundled ``-A3``): their values are no folders to search.
SEARCH_VALUE_OPTIONS: dict[str, frozenset[str]] = {
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


SEARCH_VALUE_OPTIONS["egrep"] = SEARCH_VALUE_OPTIONS["fgrep"] = SEARCH_VALUE_OPTIONS["grep"]


def search_folders(command: SimpleCommand) -> list[str]:
    """The files and folders a search program (grep, rg, ag, ack) is told to search: its
    operands after the pattern (the pattern is an option's value when given with ``-e``/``-f``,
    ``--regexp``/``--file``); empty when it searches its working folder."""
    takes = SEARCH_VALUE_OPTIONS.get(command.program, frozenset())
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


def grep_recurses(command: SimpleCommand) -> bool:
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


def git_reads_history(command: SimpleCommand) -> bool:
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


def git_control(command: SimpleCommand) -> str | None:
    """Why a git command writes the repository's own control files (its config, .gitmodules,
    hooks from a template), if it does."""
    if command.program != "git":
        return None
    sub, rest = git_subcommand(command)
    values = [w.value for w in rest]
    spots = [w.value for w in positional(command, rest)]
    if sub == "config":
        if read_only(command) or git_config_files(command):
            return None  # --global/--system/--file: judged as a write to that file
        if spots or any(v in ("--unset", "--unset-all", "--add", "--replace-all",
                              "--rename-section", "--remove-section", "-e", "--edit")
                        for v in values):
            return _("writes the repository's git config (.git/config)")
        return None
    if sub == "remote" and spots and spots[0] in ("add", "rename", "remove", "rm", "set-url",
                                                  "set-branches"):
        return _("writes the repository's git config (.git/config)")
    if sub == "submodule" and spots and spots[0] in (
            "add", "init", "deinit", "set-url", "set-branch", "sync", "absorbgitdirs", "update"):
        return _("writes the repository's git config and .gitmodules")
    if sub in ("init", "clone") and any(v == "--template" or v.startswith("--template=")
                                        for v in values):
        return _("copies hooks into a repository from a template (--template)")
    if sub == "lfs" and spots[:1] in (["install"], ["update"]):
        return _("installs git hooks (.git/hooks)")
    if sub == "worktree" and spots[:1] == ["add"]:
        return _("adds a worktree to the repository's control folder (.git/worktrees)")
    return None


def archive_names(paths: list[Path | None], program: str) -> list[str] | None:
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
ENVIRON = re.compile(r"^/proc/[^/]+(/task/[^/]+)?/(environ|mem)$")


#: Programs that read another process's memory when given ``-p PID`` (or a PID).
_TRACERS = frozenset({"gdb", "gcore", "strace", "ltrace", "perf", "lldb", "pstack",
                      "eu-stack"})


def environ_reader(command: SimpleCommand) -> str | None:
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
                return _("shows other processes' environments (ps e), where API keys live")
            if "environ" in value.lower():
                return _("shows other processes' environments (environ), where API keys live")
        return None
    if program in _TRACERS and (any(v in ("-p", "--pid", "--attach") or v.startswith(
            ("-p", "--pid=")) for v in values) or (program in ("gcore", "pstack", "eu-stack")
                                                  and values)):
        return _("attaches {program} to another process, whose memory holds API keys").format(
            program=program)
    return None


AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})


#: What lets an awk program run commands (system, pipes, coprocesses), read files of its own
#: (getline) or write them (print > file), load code (@load, @include) or call a function by
#: a name held in a variable (gawk's @f()).
_AWK_HIDDEN = re.compile(r"\bsystem\b|\bgetline\b|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>"
                         r"|@\s*[A-Za-z_]|\bclose\s*\(")


def _awk_hidden(command: SimpleCommand) -> bool:
    """Whether an awk command's program (inline) can run commands or touch files by itself."""
    values = [w.value for w in command.args]
    if any(v in ("-l", "--load", "-i", "--include") or v.startswith(
            ("--load=", "-l", "--include=", "-i")) for v in values):
        return True  # gawk -i inplace writes the files it reads
    sources, rest = option_values(command, "e", ("--source",), "fvF",
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
    scripts, rest = option_values(command, "e", ("--expression",), "fl",
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
            return _("sets a git setting from the environment (--config-env)")
        if setting is not None and _GIT_COMMAND_KEYS.match(setting.split("=", 1)[0]):
            return _("sets git's {setting}, which runs a command").format(
                setting=setting.split("=", 1)[0])
    sub, rest = git_subcommand(command)
    rest_values = [w.value for w in rest]
    if sub == "grep" and any(v.startswith("--open-files-in-pager") or re.fullmatch(
            r"-[A-Za-z]*O.*", v) for v in rest_values):
        return _("runs a program on the files it finds (git grep --open-files-in-pager)")
    if any(v in ("--git-dir", "--work-tree") or v.startswith(("--git-dir=", "--work-tree="))
           for v in values[:len(values) - len(rest)]):
        return _("uses another repository's folder (--git-dir/--work-tree), whose config can run "
                 "programs")
    if any(v.startswith("--exec-path=") for v in values):
        return _("tells git where to find its programs (--exec-path)")
    if any(v.startswith(("--upload-pack", "--receive-pack")) or (
            v == "-u" and sub in ("clone", "fetch", "pull", "ls-remote", "archive")) or (
            sub == "rebase" and (v in ("-x", "--exec") or v.startswith("--exec=")))
           for v in rest_values):
        return _("tells git {sub} which program to run").format(sub=sub)
    if (sub == "bisect" and rest_values[:1] == ["run"]) or (
            sub == "submodule" and "foreach" in rest_values):
        return _("runs a command through git {sub}").format(sub=sub)
    if sub == "config":
        words = [v for v in rest_values if not v.startswith("-")]
        key = next((w for w in words[:-1] if _GIT_COMMAND_KEYS.match(w)), None)
        if key is not None:
            return _("sets git's {key}, which runs a command").format(key=key)
    return None


def git_config_files(command: SimpleCommand) -> list[str]:
    """The file ``git config`` writes when told to (``--global``: ~/.gitconfig, ``--system``,
    ``--file F``); none for the repository's own config."""
    _sub, rest = git_subcommand(command)
    values = [w.value for w in rest]
    out = []
    for index, value in enumerate(values):
        if value == "--global":
            out.append("~/.gitconfig")  # untranslated: a path
        elif value == "--system":
            out.append("/etc/gitconfig")  # untranslated: a path
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


#: Programs whose own arguments name what they write or delete (see :func:`written_words`).
WRITERS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "tee",
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
        out.extend(operands(command, value_options)[limit:])
    return out


#: Editors: the files they are given are files they may write.
_EDITORS = frozenset({"vi", "vim", "nvim", "view", "vim.basic", "vim.tiny", "nano", "pico",
                      "emacs", "emacsclient", "ed", "red", "ex", "joe", "micro", "kak", "hx",
                      "mcedit", "jed", "ne"})


def moved_words(command: SimpleCommand) -> list[Word]:
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
    if interpreter_name(program) == "python" and len(rest) >= 2 and rest[0] == "-m":
        return command_rule(tool, prefix + rest[:2])
    if program in ("node", "python", "ruby", "perl", "bash", "sh", "zsh", "deno", "bun") or \
            interpreter_name(program) == "python":
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
