"""The tools that run programs: exec, test (with the project's test command detected), git."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli_coder._common import (
    NotAFile,
    ToolError,
    allowed_dirs,
    coder_settings,
    display,
    missing,
    resolve_path,
)
from chatcli_coder._detect import detect_test_command
from chatcli_coder._run import Outcome, choose_sandbox, run_command, sandboxed, shell
from chatcli_coder._walk import Hidden

if TYPE_CHECKING:
    from chatcli import Settings, ToolContext


def command_env(settings: Settings | None = None) -> dict[str, str]:
    """The environment commands run with: chatcli's, scrubbed of API keys and secret-looking
    variables (:func:`chatcli_workspace.scrubbed_env`; the ``[providers.X] api_key_env``
    variables too, ``[coder] pass_env`` kept), with pagers off and Python unbuffered (so output
    streams as it is printed)."""
    from chatcli_workspace import scrubbed_env, secret_names_in_settings

    names: tuple[str, ...] = ()
    passed: tuple[str, ...] = ()
    if settings is not None:
        names, _ = secret_names_in_settings(settings)
        passed = coder_settings(settings).pass_env
    env = scrubbed_env(extra_secret_names=names, pass_env=passed)
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0", PYTHONUNBUFFERED="1")
    env.setdefault("NO_COLOR", "1")
    return env


def _cwd(path: str, context: ToolContext) -> Path:
    target = resolve_path(path, context)
    if not target.exists():
        raise missing(path, target, context)
    if not target.is_dir():
        raise NotAFile(f"cwd '{display(target, context)}' is a file, not a folder")
    return target


def _timeout(asked: float | None, context: ToolContext) -> tuple[float, str]:
    settings = coder_settings(context.settings)
    if asked is None:
        return settings.exec_timeout, ""
    if asked > settings.exec_timeout_max:
        return settings.exec_timeout_max, (
            f"[timeout lowered to the {settings.exec_timeout_max:g} s maximum "
            "([coder] exec_timeout_max)]")
    return asked, ""


def run_shell(command: str, cwd: Path, timeout: float, network: bool,
              context: ToolContext) -> tuple[Outcome, str]:
    """Run ``command`` with ``bash -c`` (in the sandbox when there is one, confined as the
    call's :class:`chatcli.Confinement` says); the outcome and how it was confined."""
    settings = coder_settings(context.settings)
    sandbox = choose_sandbox(settings)
    argv = [shell(), "-c", command]
    confinement = context.confinement
    notes: list[str] = []
    guard: _ControlGuard | None = None
    objects: Path | None = None
    if sandbox.bwrap is not None:
        roots = [Path(os.path.realpath(context.workspace)),
                 *(Path(os.path.realpath(d)) for d in allowed_dirs(context))]
        extra = [Path(os.path.realpath(os.path.expanduser(d))) for d in settings.sandbox_writable]
        protected: list[Path] = []
        if confinement.writable:
            writable, readonly = [*roots, *extra], []
            if not confinement.protected_writable:
                guard = _ControlGuard([r for r in roots if r.is_dir()])
                protected = guard.protected()
        else:  # caches stay writable; the workspace itself never is
            writable, readonly = [e for e in extra if e not in roots], roots
        hiding = Hidden(confinement.hidden)
        hidden, complete = hiding.expand(HIDDEN_WALK)
        if not complete:
            notes.append("[the sandbox stopped looking for denied paths after "
                         f"{HIDDEN_WALK:,} entries: some may be visible to the command]")
        keys = _own_secrets()
        hidden = [*hidden, *((path, False) for path in keys if not hiding.covers(path))]
        objects = _history_holding(roots[0], hiding)
        if objects is not None and not any(objects.is_relative_to(path)
                                           for path, is_dir in hidden if is_dir):
            hidden = [*hidden, (objects, True)]
        argv = sandboxed(argv, sandbox.bwrap, cwd, writable, network, readonly=readonly,
                         protected=protected, hidden=hidden)
        how = "sandbox: bwrap, " + ("network allowed" if network else "no network")
        if not confinement.writable:
            how += ", the workspace read-only"
    else:
        how = "no sandbox" if settings.sandbox == "off" else "unconfined"
    moved: list[str] = []
    try:
        outcome = run_command(
            argv, cwd=cwd, env=command_env(context.settings), timeout=timeout,
            budget=max(context.max_output - 600, 1_000), output=context.output,
            cancelled=lambda: context.cancelled)
    finally:  # Ctrl+C in a one-shot run too: a control file it made does not stay
        if guard is not None:
            moved = guard.undo_new(context.workspace)
    outcome.notes[:0] = notes
    outcome.hints.extend(moved)
    if sandbox.note:
        outcome.notes.insert(0, sandbox.note)
    if sandbox.bwrap is not None and outcome.exit_code:
        outcome.hints.extend(_sandbox_hints(outcome.output, network, confinement.writable))
        if objects is not None and "fatal:" in outcome.output:
            outcome.hints.append("[git's object store is hidden from commands here: the "
                                 "repository tracks a file a deny rule hides, and its history "
                                 "would show it; git commands that read commits fail in the "
                                 "sandbox (the git tool still shows status, diff and log)]")
    return outcome, how


def _own_secrets() -> list[Path]:
    """chatcli's own secrets on disk, hidden from every sandboxed command whatever the rules:
    the API key file (``keys.toml`` in the config folder)."""
    from chatcli import config_dir

    try:
        path = Path(os.path.realpath(config_dir() / "keys.toml"))
    except (OSError, ValueError):
        return []
    return [path] if path.is_file() else []


_HISTORY_CACHE: dict[tuple[object, ...], Path | None] = {}


def _history_holding(root: Path, hidden: Hidden) -> Path | None:
    """The object store of the repository ``root`` is in, when its index tracks a path
    ``hidden`` covers (``git grep X HEAD``, ``git show HEAD:path``, ``git log -p`` would read
    the file from there), else None. Remembered while the index stays the same."""
    if not hidden:
        return None
    from chatcli_coder._walk import git_root

    if git_root(root) is None:
        return None
    from chatcli_workspace import GitMissing, safe_git, safe_git_env

    try:
        env = safe_git_env(root, timeout=10)
        done = safe_git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir",
                         "--git-common-dir"], root, git_env=env, timeout=10)
        lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
        if done.returncode != 0 or len(lines) != 3:
            return None
        top, git_dir, common = (Path(line) for line in lines)
        index = git_dir / "index"
        stat = index.stat()
        key = (str(index), stat.st_mtime_ns, stat.st_size, tuple(hidden.patterns))
        if key in _HISTORY_CACHE:
            return _HISTORY_CACHE[key]
        listed = safe_git(["ls-files", "-z", "--cached", "--full-name"], top, git_env=env,
                          timeout=30)
    except (GitMissing, OSError, subprocess.SubprocessError):
        return None
    tracked = any(hidden.covers(top / name.decode("utf-8", "surrogateescape"), resolve=False)
                  for name in listed.stdout.split(b"\0") if name)
    found = Path(os.path.realpath(common / "objects")) if tracked else None
    _HISTORY_CACHE[key] = found
    return found


#: Entries of each writable folder searched for control files (to mount them read-only, and
#: to find those a command created).
CONTROL_WALK = 20_000
#: Control files a command created that the result names one by one.
_MOVED_SHOWN = 5
#: Entries searched for the paths a deny rule's glob names.
HIDDEN_WALK = 50_000

_CONTROL_FOLDERS = frozenset({".chatcli", ".git"})
_CONTROL_FILES = frozenset({".mcp.json", ".gitattributes", ".gitmodules"})


#: Characters HFS+/NTFS ignore in names (git's list for core.protectHFS).
_IGNORED = re.compile("[\u200c\u200d\u200e\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def _fold(name: str) -> str:
    """A name as a case-insensitive file system compares it (``.GIT.`` is ``.git``)."""
    return _IGNORED.sub("", name).rstrip(". ").casefold()


class _ControlGuard:
    """chatcli's and git's control files in the writable folders: found before a sandboxed
    command runs (to be mounted read-only), and those it created found after it ended.

    bubblewrap can mount what exists read-only, not forbid a new name in a writable folder, so a
    control file the command *created* (a ``.mcp.json``, ``.chatcli/``, ``.gitattributes``,
    ``.claude/settings.json``, ``.git/``) is renamed out of the way once it has ended (its
    processes are gone with its PID namespace) — never followed, never deleted. After the run
    only the folders whose status changed (``st_ctime``, which a command cannot set back) are
    listed again, and the folders that are new."""

    def __init__(self, roots: list[Path], limit: int = CONTROL_WALK) -> None:
        self.roots = roots
        self.limit = limit
        #: folder -> its st_ctime_ns when it was listed
        self.folders: dict[Path, int] = {}
        self.before: set[Path] = set()
        seen = 0
        for root in roots:
            seen = self._walk(root, self.before, seen)

    def _walk(self, top: Path, found: set[Path], seen: int) -> int:
        """List ``top`` and the folders below it (to ``limit`` entries in all): control
        entries into ``found``, each folder's ctime into :attr:`folders`."""
        stack = [top]
        while stack and seen <= self.limit:
            folder = stack.pop()
            try:
                self.folders[folder] = os.stat(folder).st_ctime_ns
                with os.scandir(folder) as scan:
                    entries = list(scan)
            except OSError:
                continue
            for entry in entries:
                seen += 1
                path = folder / entry.name
                if _is_control(folder, entry.name):
                    found.add(path)
                    if _fold(entry.name) in _CONTROL_FOLDERS:
                        continue  # protected as a whole: not entered
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(path)
                except OSError:
                    continue
        return seen

    def protected(self) -> list[Path]:
        """What to mount read-only: each control file or folder found (its real path), and the
        folder a ``.git`` file points to (a worktree's or submodule's git directory)."""
        from chatcli_workspace._control import git_dir_of

        out: dict[Path, None] = {}
        for path in self.before:
            out[Path(os.path.realpath(path))] = None
            if _fold(path.name) == ".git" and path.is_file():
                pointed = git_dir_of(path.parent)
                if pointed is not None:
                    out[pointed] = None
        return list(out)

    def created(self) -> list[Path]:
        """The control entries that appeared while the command ran."""
        found: set[Path] = set()
        seen = 0
        for folder, ctime in list(self.folders.items()):
            try:
                if os.stat(folder).st_ctime_ns == ctime:
                    continue
                with os.scandir(folder) as scan:
                    entries = list(scan)
            except OSError:
                continue
            for entry in entries:
                path = folder / entry.name
                if _is_control(folder, entry.name):
                    found.add(path)
                    continue
                try:
                    new_folder = entry.is_dir(follow_symlinks=False) and path not in self.folders
                except OSError:
                    continue
                if new_folder:
                    seen = self._walk(path, found, seen)
        return sorted(found - self.before, key=lambda p: len(p.parts))

    def undo_new(self, workspace: Path) -> list[str]:
        lines: list[str] = []
        moved: list[Path] = []
        for path in self.created():
            if any(path.is_relative_to(m) for m in moved):
                continue
            target = path.with_name(path.name + ".refused")
            number = 1
            while os.path.lexists(target):
                number += 1
                target = path.with_name(f"{path.name}.refused{number}")
            try:
                os.rename(path, target)
            except OSError as err:
                lines.append(f"[the command created {path}, a control file, and it could not "
                             f"be moved away: {err.strerror}]")
                continue
            moved.append(path)
            if len(moved) <= _MOVED_SHOWN:
                shown = os.path.relpath(path, workspace)
                lines.append(f"[the command created {shown}, one of chatcli's or git's control "
                             "files, which commands do not write without the person's "
                             f"approval: moved to {os.path.relpath(target, workspace)}]")
        if len(moved) > _MOVED_SHOWN:
            lines.append(f"[… and {len(moved) - _MOVED_SHOWN:,} more control files it created, "
                         "each moved to NAME.refused]")  # untranslated: model-facing
        return lines


def _is_control(folder: Path, name: str) -> bool:
    """Whether the entry ``name`` of ``folder`` is a control file or folder (names folded the
    way case-insensitive file systems compare them)."""
    folded = _fold(name)
    return folded in _CONTROL_FOLDERS or folded in _CONTROL_FILES or (
        _fold(folder.name) == ".claude" and folded.startswith("settings")
        and folded.endswith(".json"))


_NO_NETWORK = ("Temporary failure in name resolution", "Could not resolve host",
               "Network is unreachable", "getaddrinfo", "Name or service not known",
               "nodename nor servname", "Failed to establish a new connection")


def _sandbox_hints(output: str, network: bool, writable: bool = True) -> list[str]:
    """What the sandbox may have caused, when a command failed."""
    hints = []
    if "Read-only file system" in output and not writable:
        hints.append("[the command ran with the workspace read-only (it was not approved for "
                     "writing): ask the user to approve it, or use the edit tools]")
    elif "Read-only file system" in output:
        hints.append("[the sandbox makes everything outside the workspace and /tmp read-only, "
                     "and chatcli's and git's control files in it (.git, .chatcli, .mcp.json, "
                     ".gitattributes…) unless the user approved writing them; work inside the "
                     "workspace (the user can add folders with [coder] sandbox_writable)]")
    if not network and any(sign in output for sign in _NO_NETWORK):
        hints.append("[the sandbox has no network: call again with network=true if the "
                     "command needs it]")
    return hints


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def describe(outcome: Outcome, timeout: float, how: str, label: str = "") -> str:
    """The result: a first line saying how it ended, then the output."""
    seconds = f"{outcome.seconds:.1f} s"
    code = outcome.exit_code
    if outcome.timed_out:
        head = (f"timed out after {timeout:g} s: the command and everything it started were "
                "killed; raise timeout (up to [coder] exec_timeout_max) or make it faster")
    elif outcome.cancelled:
        head = f"stopped by the user after {seconds}: the command's processes were killed"
    elif code is not None and code < 0:
        head = f"killed by {_signal_name(code)} after {seconds}"
    else:
        head = f"{label}exit code {code} ({seconds}, {how})"
    lines = [*outcome.notes, head]
    if outcome.killed_leftovers:
        lines.append("[processes it left running in the background were killed]")
    lines.append(outcome.output if outcome.output else "(no output)")  # untranslated: model-facing
    lines.extend(outcome.hints)
    return "\n".join(lines)


def exec_command(args: Any, context: ToolContext) -> str:
    """The ``exec`` tool."""
    if not args.command.strip():
        raise ToolError("the command is empty")  # untranslated: model-facing
    cwd = _cwd(args.cwd, context)
    timeout, note = _timeout(args.timeout, context)
    outcome, how = run_shell(args.command, cwd, timeout, args.network, context)
    if note:
        outcome.notes.insert(0, note)
    return describe(outcome, timeout, how)


# ------------------------------------------------------------------------------ test


def run_tests(args: Any, context: ToolContext) -> str:
    """The ``test`` tool."""
    cwd = _cwd(args.cwd, context)
    command = (args.command or "").strip()
    why = ""
    if not command:
        found = detect_test_command(cwd, Path(os.path.realpath(context.workspace)))
        if found is None:
            raise ToolError("no test command found (looked for pytest configuration or a "
                            "tests folder, package.json's test script, go.mod, Cargo.toml and "
                            "a Makefile test target): pass command")  # untranslated: model-facing
        command, why = found
    timeout, note = _timeout(args.timeout, context)
    outcome, how = run_shell(command, cwd, timeout, args.network, context)
    if note:
        outcome.notes.insert(0, note)
    ran = f"ran: {command}" + (f"  ({why})" if why else "")
    verdict = ("tests passed, " if outcome.exit_code == 0 else
               "tests failed, " if outcome.exit_code and outcome.exit_code > 0 else "")
    outcome.notes.append(ran)
    return describe(outcome, timeout, how, verdict)


# ------------------------------------------------------------------------------ git

def _git(arguments: list[str], cwd: Path, timeout: float = 30.0) -> str:
    """``git <arguments>`` in ``cwd`` with the repository's program-running config turned off
    (:func:`chatcli_workspace.safe_git`: no fsmonitor, hook, filter, textconv, pager…)."""
    from chatcli_workspace import GitMissing, safe_git

    try:
        done = safe_git(arguments, cwd, timeout=timeout)
    except GitMissing:
        raise ToolError("git is not installed") from None  # untranslated: model-facing
    except subprocess.TimeoutExpired:
        raise ToolError(
            f"git {arguments[0]} took more than {timeout:g} s") from None  # untranslated
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        first = message[0] if message else f"exit code {done.returncode}"
        if "not a git repository" in first:
            raise ToolError("the workspace is not in a git repository")  # untranslated
        raise ToolError(f"git {arguments[0]} failed: {first}")  # untranslated: model-facing
    return done.stdout.decode("utf-8", errors="replace")


def _fit(text: str, budget: int, what: str) -> str:
    if len(text) <= budget:
        return text
    cut = text[:budget]
    cut = cut[: cut.rfind("\n") + 1] or cut
    return cut + (f"[… {len(text) - len(cut):,} more characters of {what}; give path to see "
                  "one file, or limit]")


def git_tool(args: Any, context: ToolContext) -> str:
    """The ``git`` tool (read-only commands only)."""
    root = Path(os.path.realpath(context.workspace))
    spec: list[str] = []
    if args.path:
        target = resolve_path(args.path, context)
        spec = ["--", str(target)]
    budget = max(context.max_output - 400, 1_000)
    action = args.action
    if action == "status":
        text = _git(["status", "--short", "--branch", "--untracked-files=all", *spec], root)
        return _fit(text.rstrip() or "nothing to report", budget, "the status")
    if action == "diff":
        base = ["diff", "--no-color"]  # safe_git adds --no-ext-diff --no-textconv
        if args.staged:
            base.append("--staged")
        # a diff shows contents: never those of a path the deny rules hide, nor outside the
        # workspace (its repository may be larger)
        spec = (spec or ["--", "."]) + _excluded(root, context.confinement.hidden)
        text = _git([*base, *spec], root)
        if not text.strip():
            return "no staged changes" if args.staged else (
                "no unstaged changes (staged=true shows the staged ones)")
        if len(text) > budget:
            stat = _git([*base, "--stat", *spec], root)
            return stat + "\n" + _fit(text, budget - len(stat) - 1, "the diff")
        return text
    if action == "log":
        limit = args.limit or 20
        text = _git(["log", f"-n{limit}", "--date=short", "--format=%h %ad %an: %s", *spec],
                    root)
        return _fit(text.rstrip() or "no commits yet", budget, "the log")
    if action == "changed":
        text = _git(["status", "--porcelain=v1", "--untracked-files=all", *spec], root)
        rows = []
        for line in text.splitlines():
            code, name = line[:2], line[3:]
            rows.append(f"{_CHANGE.get(code.strip()[:1] or '?', code)}: {name}"
                        + (" (staged)" if code[0] not in " ?" else ""))
        return _fit("\n".join(rows) or "no changed files", budget, "the list")
    if action == "branch":
        current = _git(["branch", "--show-current"], root).strip() or "(detached HEAD)"
        listing = _git(["branch", "--list", "-vv", "--no-color"], root).rstrip()
        return _fit(f"current branch: {current}\n{listing}", budget, "the branches")
    raise ToolError(
        f"unknown action '{action}': use status, diff, log, changed or branch")  # untranslated


def _excluded(root: Path, hidden: tuple[str, ...]) -> list[str]:
    """Pathspecs leaving out of a diff each hidden path (absolute, or an absolute glob) inside
    the workspace ``root``, with everything below it. Hidden paths outside the workspace need
    none: the diff is limited to the workspace."""
    prefix = str(root) + os.sep
    specs = []
    for pattern in hidden:
        if pattern.startswith(prefix):
            relative = pattern[len(prefix):].rstrip("/")
            specs += [f":(exclude,glob){relative}", f":(exclude,glob){relative}/**"]
    return specs


_CHANGE = {"M": "modified", "A": "added", "D": "deleted", "R": "renamed", "C": "copied",
           "U": "conflict", "?": "untracked", "T": "type changed"}
