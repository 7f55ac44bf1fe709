"""The environment section: where the model is working, computed once per session.

Working folder, project root, OS, shell, and in a git repository the branch, a short summary
of uncommitted changes (counts and a few names) and the last few commit subjects. Git runs
through :func:`chatcli_workspace.safe_git` (one config listing, then ``status`` and ``log``):
a repository's config cannot make it run a program. Everything quoted from the repository
(file names, commit subjects, the branch) is put on one line and cut.
"""

from __future__ import annotations

import os
from pathlib import Path

from chatcli_records_lite import NamedTuple

from chatcli_repomap.text import clean_line, shown_path

__all__ = ["GitState", "describe", "git_state", "os_name", "shell_name"]

#: file names the dirty summary shows at most, and commits' subject length
NAMES = 4
SUBJECT = 100


class GitState(NamedTuple):
    """What git says about a repository."""

    branch: str
    #: upstream tracking ("ahead 1, behind 2"), or ""
    tracking: str = ""
    staged: int = 0
    modified: int = 0
    untracked: int = 0
    conflicted: int = 0
    #: a few changed paths, most interesting first
    names: tuple[str, ...] = ()
    #: "abc1234 subject" of the newest commits
    commits: tuple[str, ...] = ()


def git_state(root: Path, commits: int = 5, timeout: float = 10.0) -> GitState | None:
    """The branch, dirty summary and recent commits of the repository at ``root`` (None when
    git is missing or fails)."""
    import subprocess

    from chatcli_workspace import GitMissing, safe_git

    from chatcli_repomap.common import git_env

    try:
        env = git_env(root, timeout)
        status = safe_git(["status", "--porcelain=v1", "--branch", "-z",
                           "--untracked-files=normal"], root, git_env=env, timeout=timeout)
        if status.returncode != 0:
            return None
        log = None
        if commits:
            log = safe_git(["log", f"-n{commits}", "--no-color", "--format=%h %s"], root,
                           git_env=env, timeout=timeout)
    except (GitMissing, subprocess.TimeoutExpired, OSError):
        return None
    state = parse_status(status.stdout)
    if log is not None and log.returncode == 0:  # (an empty repository has no log)
        lines = log.stdout.decode("utf-8", "replace").splitlines()
        state = state._replace(commits=tuple(clean_line(line, SUBJECT) for line in lines
                                             if line.strip())[:commits])
    return state


def parse_status(raw: bytes) -> GitState:
    """A :class:`GitState` from ``git status --porcelain=v1 --branch -z`` output."""
    entries = raw.split(b"\0")
    branch, tracking = "", ""
    staged = modified = untracked = conflicted = 0
    names: list[tuple[int, str]] = []
    skip = False
    for entry in entries:
        if skip:  # the source path of a rename or copy
            skip = False
            continue
        if not entry:
            continue
        text = os.fsdecode(entry)
        if text.startswith("## "):
            branch, tracking = _branch(text[3:])
            continue
        if len(text) < 4:
            continue
        x, y, path = text[0], text[1], text[3:]
        if x in "RC":
            skip = True
        if x == "?" and y == "?":
            untracked += 1
            names.append((2, path))
        elif x == "!":
            continue
        elif "U" in (x, y) or (x, y) in (("A", "A"), ("D", "D")):
            conflicted += 1
            names.append((0, path))
        else:
            if x not in " ?":
                staged += 1
            if y != " ":
                modified += 1
            names.append((1, path))
    names.sort(key=lambda item: item[0])
    return GitState(branch, tracking, staged, modified, untracked, conflicted,
                    tuple(shown_path(clean_line(n, 80)) if n.isprintable() else shown_path(n)
                          for _, n in names[:NAMES]))


def _branch(text: str) -> tuple[str, str]:
    """The branch and tracking note of a ``## …`` status header."""
    text = text.strip()
    for prefix in ("No commits yet on ", "Initial commit on "):
        if text.startswith(prefix):
            return clean_line(text[len(prefix):], 80) + " (no commits yet)", ""
    if text.startswith("HEAD (no branch)"):
        return "(detached HEAD)", ""
    tracking = ""
    if text.endswith("]") and " [" in text:
        text, _, note = text.rpartition(" [")
        tracking = note[:-1]
    local = text.split("...", 1)[0]
    return clean_line(local, 80), clean_line(tracking, 60)


def os_name() -> str:
    """The operating system: ``Linux 6.1.0 (Debian GNU/Linux 12 (bookworm))``."""
    uname = os.uname()
    name = f"{uname.sysname} {uname.release}"
    try:
        with open("/etc/os-release", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("PRETTY_NAME="):
                    pretty = line.split("=", 1)[1].strip().strip('"')
                    return clean_line(f"{name} ({pretty})", 120)
    except OSError:
        pass
    return clean_line(name, 120)


def shell_name() -> str:
    """The user's shell (``$SHELL``): ``bash (/bin/bash)``, or ``unknown``."""
    shell = os.environ.get("SHELL", "")
    return clean_line(f"{os.path.basename(shell)} ({shell})", 120) if shell else "unknown"


def describe(workspace: Path, root: Path, in_git: bool, state: GitState | None) -> str:
    """The section's text (the model's: English, as every prompt section)."""
    lines = ["Environment (as of the start of this session):",
             f"- Working directory: {shown_path(str(workspace))}",
             f"- Project root: {shown_path(str(root))}"
             + (" (a git repository)" if in_git else " (not a git repository)"),
             f"- OS: {os_name()}",
             f"- Shell: {shell_name()}"]
    if in_git and state is None:
        lines.append(
            "- Git: its state could not be read")  # untranslated: model-facing
    elif state is not None:
        tracking = f" ({state.tracking})" if state.tracking else ""
        lines.append(
            f"- Git branch: {state.branch or 'unknown'}{tracking}")  # untranslated: model
        lines.append(
            f"- Uncommitted changes: {_dirty(state)}")  # untranslated: model-facing
        if state.commits:
            lines.append(
                "- Recent commits (newest first):")  # untranslated: model-facing
            lines.extend(f"  - {commit}" for commit in state.commits)
    return "\n".join(lines)


def _dirty(state: GitState) -> str:
    counts = [(state.conflicted, "conflicted"), (state.staged, "staged"),
              (state.modified, "modified"), (state.untracked, "untracked")]
    said = [f"{n} {what}" for n, what in counts if n]
    if not said:
        return "none (the working tree is clean)"
    total = state.staged + state.modified + state.untracked + state.conflicted
    names = ", ".join(state.names)
    more = " …" if total > len(state.names) else ""
    return f"{', '.join(said)} — {names}{more}"
