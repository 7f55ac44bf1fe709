"""Git that runs nothing: every git process chatcli starts, with the programs config can name
turned off.

A repository can make git run programs of its choosing: ``core.fsmonitor``, hooks
(``core.hooksPath``), clean/smudge/process filters (``filter.<name>.*``, picked by
``.gitattributes`` or ``.git/info/attributes``), ``diff.external``, ``diff.<name>.textconv`` and
``.command``, pagers, editors, ``core.sshCommand``, credential helpers, ``ext::`` remotes,
``gpg.program``… — and ``include.path`` / ``includeIf.<condition>.path`` can bring any of them in
from another file. Attributes only *select* a driver; the program always comes from config. So:

1. ``git config -z --list`` is read first, in the same place and with the same environment as
   the command (it follows includes, and it runs no program — it only reads files);
2. every key found that names a program (:data:`RULES`, whatever the driver's name), plus a
   baseline of the fixed ones (:data:`BASELINE`), is overridden with a value that runs nothing,
   through ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>`` (command-line
   scope: it beats every file; unlike ``-c key=value`` it takes any driver name, ``=`` included);
3. the environment's own program variables are replaced (``GIT_PAGER=cat`` and ``GIT_EDITOR=:``,
   which git treats as "none"; ``GIT_EXTERNAL_DIFF``, ``GIT_SSH*``, ``GIT_ASKPASS`` and every
   other inherited ``GIT_*`` but identity and config-location ones dropped), no transport is
   allowed (``GIT_ALLOW_PROTOCOL`` empty: no ssh, no ``ext::``, no remote helper);
4. ``diff``, ``log``, ``show`` get ``--no-ext-diff --no-textconv`` whatever the config says, and
   ``status`` and ``diff`` get ``--ignore-submodules=dirty``: they would otherwise run ``git
   status`` inside each submodule, whose own config is not in the listing (a submodule whose
   commit changed is still shown; one with uncommitted changes inside is not).

A blanked driver fails closed: a diff that would need a blanked ``textconv`` fails rather than
run something. The listing and the command are two processes: a program already running on the
machine that rewrites ``.git/config`` between them could slip a driver in; a repository alone
(cloned, or files written by a model) cannot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from chatcli import translation

from chatcli_workspace._env import scrubbed_env

__all__ = ["BASELINE", "RULES", "GitMissing", "neutral_config", "safe_git", "safe_git_env"]
_, ngettext = translation(__name__)

#: Keys that name a program, as ``(section, subsection, variable)`` — lower case; ``"*"`` in the
#: subsection means any name (the key must have one), ``None`` means none; ``"*"`` as variable
#: means any — and the value that runs nothing.
RULES: tuple[tuple[str, str | None, str, str], ...] = (
    ("core", None, "fsmonitor", "false"),
    ("core", None, "usebuiltinfsmonitor", "false"),
    ("core", None, "hookspath", "/dev/null"),
    ("core", None, "pager", "cat"),
    ("core", None, "editor", ":"),
    ("core", None, "sshcommand", ""),
    ("core", None, "askpass", ""),
    ("core", None, "gitproxy", ""),
    ("core", None, "alternaterefscommand", ""),
    ("sequence", None, "editor", ":"),
    ("pager", None, "*", "false"),
    ("credential", None, "helper", ""),
    ("credential", "*", "helper", ""),
    ("diff", None, "external", ""),
    ("diff", "*", "command", ""),
    ("diff", "*", "textconv", ""),
    ("diff", "*", "cachetextconv", "false"),
    ("filter", "*", "clean", ""),
    ("filter", "*", "smudge", ""),
    ("filter", "*", "process", ""),
    ("filter", "*", "required", "false"),
    ("merge", "*", "driver", ""),
    ("gpg", None, "program", ""),
    ("gpg", "*", "program", ""),
    ("gpg", "*", "defaultkeycommand", ""),
    ("log", None, "showsignature", "false"),
    ("protocol", None, "allow", "never"),
    ("protocol", "*", "allow", "never"),
    ("uploadpack", None, "packobjectshook", ""),
    ("remote", "*", "uploadpack", "git-upload-pack"),
    ("remote", "*", "receivepack", "git-receive-pack"),
    ("remote", "*", "vcs", ""),
    ("interactive", None, "difffilter", ""),
    ("difftool", "*", "cmd", ""),
    ("difftool", "*", "path", ""),
    ("mergetool", "*", "cmd", ""),
    ("mergetool", "*", "path", ""),
    ("man", "*", "cmd", ""),
    ("man", "*", "path", ""),
    ("browser", "*", "cmd", ""),
    ("browser", "*", "path", ""),
    ("guitool", "*", "cmd", ""),
    ("web", None, "browser", ""),
    ("help", None, "browser", ""),
    ("instaweb", None, "browser", ""),
    ("sendemail", None, "tocmd", ""),
    ("sendemail", None, "cccmd", ""),
    ("sendemail", None, "sendmailcmd", ""),
    ("sendemail", None, "smtpserver", ""),
    ("sendemail", "*", "tocmd", ""),
    ("sendemail", "*", "cccmd", ""),
    ("sendemail", "*", "sendmailcmd", ""),
    ("sendemail", "*", "smtpserver", ""),
    ("imap", None, "tunnel", ""),
    ("trailer", "*", "command", ""),
    ("trailer", "*", "cmd", ""),
    ("submodule", "*", "update", "none"),
)

#: Overridden on every run, found in config or not.
BASELINE: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"), ("core.useBuiltinFSMonitor", "false"),
    ("core.hooksPath", "/dev/null"), ("core.pager", "cat"), ("core.editor", ":"),
    ("sequence.editor", ":"), ("core.sshCommand", ""), ("core.askPass", ""),
    ("core.gitProxy", ""), ("core.alternateRefsCommand", ""), ("credential.helper", ""),
    ("diff.external", ""), ("gpg.program", ""), ("log.showSignature", "false"),
    ("protocol.allow", "never"), ("uploadpack.packObjectsHook", ""),
    ("interactive.diffFilter", ""), ("submodule.recurse", "false"),
    ("status.submoduleSummary", "false"), ("fetch.recurseSubmodules", "false"),
    ("gc.auto", "0"), ("maintenance.auto", "false"), ("color.ui", "false"),
)

#: Inherited ``GIT_*`` variables kept: where config lives, who commits, where discovery stops.
_KEPT = frozenset({
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_DEFAULT_HASH",
})
#: Program variables of other tools git falls back on.
_DROPPED = frozenset({"SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "LESSOPEN", "LESSCLOSE"})
#: Subcommands that can show a patch: told not to run a diff program whatever the config says.
_DIFFING = frozenset({"diff", "log", "show", "whatchanged"})
#: Subcommands that would run ``git status`` inside each submodule, whose own config (filters
#: of any name) is not in the listing: told to look at submodules' commits only.
_RECURSING = frozenset({"status", "diff"})


class GitMissing(FileNotFoundError):
    """git is not installed (not on ``PATH``)."""

    def __init__(self) -> None:
        super().__init__(_("git is not installed: install git, or put it on PATH"))


def _split(key: str) -> tuple[str, str | None, str] | None:
    first, last = key.find("."), key.rfind(".")
    if first < 0:
        return None
    if first == last:
        return key[:first].lower(), None, key[last + 1:].lower()
    return key[:first].lower(), key[first + 1:last], key[last + 1:].lower()


def _neutral(key: str) -> str | None:
    """The value that runs nothing for ``key``, or None when the key names no program."""
    parts = _split(key)
    if parts is None:
        return None
    section, sub, variable = parts
    for r_section, r_sub, r_variable, value in RULES:
        if r_section != section or r_variable not in ("*", variable):
            continue
        if (r_sub is None) == (sub is None):
            return value
    return None


def neutral_config(keys: Iterable[str]) -> list[tuple[str, str]]:
    """The overrides for a config that holds ``keys``: :data:`BASELINE`, then each key that names
    a program with its neutral value (a filter also gets ``required = false``, so that a blanked
    one is skipped rather than failing the command)."""
    found: dict[str, str] = dict(BASELINE)
    for key in keys:
        value = _neutral(key)
        if value is None:
            continue
        found[key] = value
        parts = _split(key)
        if parts is not None and parts[0] == "filter" and parts[1] is not None:
            found[f"filter.{parts[1]}.required"] = "false"
    return list(found.items())


def _git() -> str:
    binary = shutil.which("git")
    if binary is None:
        raise GitMissing
    return binary


def _base_env(base: Mapping[str, str] | None, extra: Mapping[str, str] | None
              ) -> dict[str, str]:
    # git needs none of chatcli's keys (and runs nothing that could read them)
    source = scrubbed_env() if base is None else base
    env = {k: v for k, v in source.items()
           if k not in _DROPPED and (not k.startswith("GIT_") or k in _KEPT)}
    env.update(GIT_PAGER="cat", GIT_EDITOR=":", GIT_SEQUENCE_EDITOR=":", GIT_ALLOW_PROTOCOL="",
               GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PROTOCOL_FROM_USER="0",
               LC_ALL="C")
    env.update(extra or {})
    return env


def _config_keys(cwd: Path, env: Mapping[str, str], timeout: float) -> list[str]:
    """Every key of the config git would read in ``cwd`` (includes followed)."""
    done = subprocess.run([_git(), "--no-pager", "config", "-z", "--list"], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    keys = []
    for item in done.stdout.split(b"\0"):
        if item:
            keys.append(item.split(b"\n", 1)[0].decode("utf-8", "surrogateescape"))
    return keys


def safe_git_env(cwd: str | os.PathLike[str], extra: Mapping[str, str] | None = None, *,
                 base: Mapping[str, str] | None = None, timeout: float = 30.0
                 ) -> dict[str, str]:
    """The environment for git commands run in ``cwd`` (with ``extra`` variables such as
    ``GIT_DIR``/``GIT_WORK_TREE``/``GIT_INDEX_FILE``, on top of ``base`` or this process's
    environment) under which no config can make git run a program.

    It reads the config once: reuse it for a batch of commands in the same place. Raises
    :class:`GitMissing` without git, ``subprocess.TimeoutExpired`` if the listing hangs."""
    env = _base_env(base, extra)
    overrides = neutral_config(_config_keys(Path(cwd), env, timeout))
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for n, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    return env


def safe_git(args: Sequence[str], cwd: str | os.PathLike[str], *,
             env: Mapping[str, str] | None = None, git_env: Mapping[str, str] | None = None,
             input: bytes | None = None, timeout: float = 60.0
             ) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <args>`` in ``cwd`` so that it runs no program the config names.

    ``args[0]`` is the subcommand (``diff``, ``log`` and ``show`` get ``--no-ext-diff
    --no-textconv``, ``status`` and ``diff`` ``--ignore-submodules=dirty``); ``env`` adds
    variables (see :func:`safe_git_env`), or ``git_env`` is an environment already made by it
    (one config listing for several commands; ``env`` is then ignored). Output is
    captured (bytes), stdin is ``input`` or nothing. Raises :class:`GitMissing` without git,
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
    full = dict(git_env) if git_env is not None else safe_git_env(cwd, env, timeout=timeout)
    words = list(args)
    if words and words[0] in _RECURSING:
        words[1:1] = ["--ignore-submodules=dirty"]
    if words and words[0] in _DIFFING:
        words[1:1] = ["--no-ext-diff", "--no-textconv"]
    return subprocess.run([_git(), "--no-pager", *words], cwd=cwd, env=full, input=input,
                          stdin=None if input is not None else subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)
