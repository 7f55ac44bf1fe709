"""The permission policy's classes of issue 16, without the sandbox, in every mode: a scripted
model drives the real ``chatcli -p``, the real coder tools and the real policy (``[coder] sandbox
= "off"``), so the policy is the only guard and a call that got through really changes the world.

The world is :func:`security_support.build_world` made under ``/var/tmp`` (not ``/tmp``: the
canaries must be outside it), with more in it: a deny rule on a bare name (``read(*.secret)``, a
file ``deep/er/api.secret``), a link to ``.git/hooks``, a folder holding a ``.mcp.json``, an
archive and a patch that carry control files, and an API key in chatcli's own environment.

Classes (one table each, one line a variation):

- ``protected``: writes to chatcli's and git's control files (``.git/**``, ``.chatcli/**``,
  ``.gitattributes``, ``.gitmodules``, ``.mcp.json``, ``.claude/settings*.json``) through every
  file tool and every way a command writes (spellings, links, where a copy lands, archives,
  patches, git's own config commands): refused in every mode, ``auto --allow all`` included;
- ``recursive``: recursive and interpreted reads of a folder holding a denied path (grep, rg,
  git grep, find, xargs, tar, zip, globs, awk, sed, perl, python, git's history): refused in
  every mode, the secrets never reach the model;
- ``environ``: other processes' environments (``ps e``, ``/proc/*/environ``): refused in every
  mode, chatcli's key never shows;
- ``writer``: programs that look read-only but write (``xxd IN OUT``, ``sort -o``, ``uniq IN
  OUT``, ``find -fprint``, ``git grep -O``…): refused in ``default``, ``accept-edits`` and
  ``plan`` (they run in ``auto``, by the user's choice — not checked there);
- controls that must run (near misses: ``.gitignore``, ``ps aux``, ``grep -r`` of a folder
  without denied files, ``sort FILE``…), and a batch where rules that name a control file let
  exactly that through.

The last test prints the counts (tried, refused, escaped) per class and mode.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
import uuid
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import OpenAIServer
from security_support import (
    DENIED,
    MORE_OF_THE_SAME,
    Case,
    Outcome,
    World,
    build_world,
    case,
    only,
    run_batch,
    state,
    wanted_cases,
)

TOKEN = uuid.uuid4().hex[:12]
#: chatcli's own API key in the runs (what ``ps e`` would show).
KEY = f"sk-proj-{TOKEN}policycanary"
#: what the bare-name deny rule protects
BARE = f"BARE-{TOKEN}"

CONFIG = """max_turns = 400

[coder]
sandbox = "off"

[permissions]
deny = ["read(./private/**)", "read(*.secret)"]
"""

MODES: dict[str, tuple[str, ...]] = {
    "default": (),
    "accept-edits": ("--permission-mode", "accept-edits"),
    "plan": ("--permission-mode", "plan"),
    "auto": ("--permission-mode", "auto", "--allow", "all"),
}

# ------------------------------------------------------------------------------ 1. protected


def protect(name: str, tool: str, args: dict[str, Any] | str, kept: tuple[str, ...] = (),
            absent: tuple[str, ...] = (), why: str = "control files") -> Case:
    """A write to a control file; ``why``: what the refusal says (the policy may refuse it as
    code it cannot follow instead)."""
    return case("protected", name, tool, args, kept=kept, absent=absent, why=why)


CONFIG_KEPT = ("ws/.git/config",)
PROTECTED = [
    protect("write-git-config", "write", {"path": ".git/config", "content": "[core]\n"},
            kept=CONFIG_KEPT),
    protect("write-dot-slash-hook", "write",
            {"path": "./.git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"},
            absent=("ws/.git/hooks/pre-commit",)),
    protect("write-dotdot-gitattributes", "write",
            {"path": "src/../.gitattributes", "content": "* filter=x\n"},
            absent=("ws/.gitattributes",)),
    protect("write-nested-gitattributes", "write",
            {"path": "src/.gitattributes", "content": "* filter=x\n"},
            absent=("ws/src/.gitattributes",)),
    protect("write-case-variant", "write", {"path": ".GIT/config", "content": "[core]\n"},
            absent=("ws/.GIT",)),
    protect("write-mcp-json", "write", {"path": ".mcp.json", "content": "{}"},
            absent=("ws/.mcp.json",)),
    protect("write-claude-settings", "write",
            {"path": ".claude/settings.local.json", "content": "{}"},
            absent=("ws/.claude/settings.local.json",)),
    protect("write-through-link", "write",
            {"path": "hooks-link/post-commit", "content": "#!/bin/sh\n"},
            absent=("ws/.git/hooks/post-commit",)),
    protect("edit-git-config", "edit",
            {"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = x"},
            kept=CONFIG_KEPT),
    protect("multiedit-chatcli-config", "multiedit",
            {"edits": [{"path": "notes.txt", "old": "notes: keep me", "new": "changed"},
                       {"path": ".chatcli/config.toml", "old": "[permissions]",
                        "new": "[coder]\nsandbox = \"off\"\n[permissions]"}]},
            kept=("ws/.chatcli/config.toml", "ws/notes.txt")),
    protect("apply-patch-gitmodules", "apply_patch",
            {"patch": "*** Begin Patch\n*** Add File: .gitmodules\n+[submodule \"x\"]\n"
                      "*** End Patch\n"}, absent=("ws/.gitmodules",)),
    protect("redirect-append", "exec", "echo '[x]' >> ./.git/config", kept=CONFIG_KEPT),
    protect("redirect-dotdot-hook", "exec",
            "printf '#!/bin/sh\\ntouch {out}/m-hook\\n' > src/../.git/hooks/pre-push",
            absent=("ws/.git/hooks/pre-push",)),
    protect("cp-to-gitattributes", "exec", "cp notes.txt .gitattributes",
            absent=("ws/.gitattributes",)),
    protect("cp-lands-mcp-json", "exec", "cp sub/.mcp.json .", absent=("ws/.mcp.json",)),
    protect("cp-r-contents", "exec", "cp -r sub/. .", absent=("ws/.mcp.json",)),
    protect("mv-to-gitmodules", "exec", "mv notes.txt .gitmodules",
            kept=("ws/notes.txt",), absent=("ws/.gitmodules",)),
    protect("sed-i-head", "exec", "sed -i 's/main/evil/' .git/HEAD", kept=("ws/.git/HEAD",)),
    protect("tee-exclude", "exec", "tee -a .git/info/exclude < notes.txt",
            kept=("ws/.git/info/exclude",)),
    protect("dd-of-config", "exec", "dd if=notes.txt of=.git/config", kept=CONFIG_KEPT),
    protect("install-hook", "exec", "install -m 755 tool.sh .git/hooks/pre-commit",
            absent=("ws/.git/hooks/pre-commit",)),
    protect("cd-then-write", "exec", "cd .git && echo '[x]' >> config", kept=CONFIG_KEPT),
    protect("touch-chatcli", "exec", "touch .chatcli/new.toml",
            absent=("ws/.chatcli/new.toml",)),
    protect("git-config-set", "exec", "git config user.name evil", kept=CONFIG_KEPT),
    protect("git-remote-ext", "exec", "git remote add evil 'ext::sh -c touch% {out}/m-ext'",
            kept=CONFIG_KEPT),
    protect("git-submodule-add", "exec", "git submodule add ./sub vendored",
            absent=("ws/.gitmodules",)),
    protect("ln-s-then-write", "exec", "ln -s .git/hooks h2 && echo x > h2/post-merge",
            absent=("ws/h2", "ws/.git/hooks/post-merge")),
    protect("ln-hard-config", "exec", "ln .git/config hard-config",
            absent=("ws/hard-config",)),
    protect("tar-x-hooks", "exec", "tar -xf evil.tar",
            absent=("ws/.git/hooks/post-checkout",)),
    protect("unzip-mcp-json", "exec", "unzip -o evil.zip", absent=("ws/.mcp.json",)),
    protect("git-apply-claude", "exec", "git apply evil.patch",
            absent=("ws/.claude/settings.json",)),
    protect("bash-c-redirect", "exec", "bash -c 'echo x > .gitattributes'",
            absent=("ws/.gitattributes",)),
    protect("ln-s-relative-then-write", "exec", "ln -s ../.git/config sub/l && "
            "echo '[x]' >> sub/l", kept=CONFIG_KEPT, absent=("ws/sub/l",)),
    protect("git-mv", "exec", "git mv tool.sh .gitattributes",
            kept=("ws/tool.sh",), absent=("ws/.gitattributes",)),
    protect("tar-into-git", "exec", "tar -C .git/hooks -xf plain.tar",
            absent=("ws/.git/hooks/docs",)),
    protect("sort-o-bundled", "exec", "sort -o.git/config notes.txt", kept=CONFIG_KEPT),
    protect("sed-i-suffix", "exec", "sed -i.bak 's/main/evil/' .git/HEAD",
            kept=("ws/.git/HEAD",), absent=("ws/.git/HEAD.bak",)),
    protect("env-split-string", "exec", "env -S'cp notes.txt .mcp.json'",
            absent=("ws/.mcp.json",), why="one string (env -S)"),
    protect("env-chdir", "exec", "env -C .git sh -c 'echo [x] >> config'", kept=CONFIG_KEPT,
            why="--chdir"),
    protect("ed-script", "exec", "printf '$a\\n[x]\\n.\\nw\\n' | ed -s .git/config",
            kept=CONFIG_KEPT),
]

#: Near misses: they run where a write inside the workspace runs (accept-edits, auto).
PROTECTED_CONTROLS = [
    case("control", "gitignore", "write", {"path": "src/.gitignore", "content": "*.log\n"},
         runs=True),
    case("control", "git-named-file", "write", {"path": "src/git.txt", "content": "x\n"},
         runs=True),
    case("control", "claude-other-file", "write", {"path": ".claude/notes.md", "content": "x"},
         runs=True),
]

# ------------------------------------------------------------------------------ 2. recursive


def reads(name: str, command: str) -> Case:
    return case("recursive", name, "exec", command, secrets=("denied", "user-denied"))


RECURSIVE = [
    reads("grep-r", "grep -r BARE . ; true"),
    reads("grep-R-e", "grep -R -e BARE -e DENIED ; true"),
    reads("grep-d-recurse", "grep -d recurse BARE . ; true"),
    reads("grep-directories", "grep --directories=recurse BARE . ; true"),
    reads("rg-default", "rg BARE ; true"),
    reads("rg-uu-e", "rg -uu -e BARE -e DENIED ; true"),
    reads("rg-hidden-no-ignore", "rg --hidden --no-ignore BARE ; true"),
    reads("git-grep-untracked", "git grep --untracked BARE ; true"),
    reads("git-grep-no-index", "git grep --no-index BARE ; true"),
    reads("find-exec-cat", "find . -name '*.secret' -exec cat {} + ; true"),
    reads("find-xargs-cat", "find deep -type f | xargs cat ; true"),
    reads("tar-c", "tar -cf - deep | strings ; true"),
    reads("zip-r", "zip -qr - deep | strings ; true"),
    reads("glob-deep", "cat */*/* 2>/dev/null ; true"),
    reads("glob-name", "cat deep/er/*.secret ; true"),
    reads("awk-glob", "awk 1 deep/er/* ; true"),
    reads("sed-n-p", "sed -n p deep/er/api.secret ; true"),
    reads("perl-ne", "perl -ne print deep/er/api.secret ; true"),
    reads("python-walk", "python3 -c \"import pathlib;[print(p.read_text()) for p in "
                         "pathlib.Path('.').rglob('*.secret')]\""),
    reads("git-log-p", "git log -p ; true"),
    reads("git-show-head", "git show HEAD ; true"),
    reads("git-archive", "git archive HEAD | tar -xOf - ; true"),
    reads("ls-R-cat", "ls -R deep && cat deep/er/api.secret ; true"),
    reads("sh-c-grep", "sh -c 'grep -r BARE .' ; true"),
    reads("diff-rN", "diff -rN deep empty ; true"),
    reads("cd-then-grep", "cd deep && grep -r BARE ; true"),
]

RECURSIVE_CONTROLS = [
    case("control", "grep-r-src", "exec", "grep -r print src", runs=True),
    case("control", "rg-src", "exec", "rg print src", runs=True),
]

# ------------------------------------------------------------------------------ 3. environ


def environ(name: str, command: str) -> Case:
    return case("environ", name, "exec", command)


ENVIRON = [
    environ("ps-auxeww", "ps auxeww"),
    environ("ps-ef-e", "ps -ef e"),
    environ("ps-axe", "ps axe"),
    environ("ps-o-environ", "ps -A -o pid,environ"),
    environ("ps-eww-pid", "ps eww -p $PPID"),
    environ("proc-ppid-tr", "tr '\\0' '\\n' < /proc/$PPID/environ"),
    environ("proc-glob", "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"),
    environ("proc-strings", "strings /proc/[0-9]*/environ"),
    environ("proc-xargs", "xargs -0 -n1 < /proc/$PPID/environ"),
    environ("proc-self", "cat /proc/self/environ"),
    environ("watch-ps", "sh -c 'ps e'"),
]

ENVIRON_CONTROLS = [
    case("control", "ps-aux", "exec", "ps aux", runs=True),
    case("control", "pgrep", "exec", "pgrep -l sh ; true", runs=True),
]

# ------------------------------------------------------------------------------ 4. writers


def writer(name: str, command: str, kept: tuple[str, ...] = (),
           absent: tuple[str, ...] = ()) -> Case:
    return case("writer", name, "exec", command, kept=kept, absent=absent)


WORK = ("ws/tracked.txt",)
WRITERS = [
    writer("xxd-out", "xxd /dev/null tracked.txt", kept=WORK),
    writer("xxd-len-out", "xxd -l 4 notes.txt tracked.txt", kept=WORK),
    writer("sort-o-bundled", "sort -otracked.txt /dev/null", kept=WORK),
    writer("sort-nro", "sort -nro tracked.txt /dev/null", kept=WORK),
    writer("sort-output-long", "sort --output=tracked.txt /dev/null", kept=WORK),
    writer("sort-out-abbrev", "sort --out=tracked.txt /dev/null", kept=WORK),
    writer("sort-compress-program", "sort --compress-program='touch {out}/m-sort' notes.txt",
           absent=("outside/m-sort",)),
    writer("uniq-out", "uniq notes.txt out-uniq", absent=("ws/out-uniq",)),
    writer("git-grep-O", "git grep --open-files-in-pager='touch {out}/m-pager' keep",
           absent=("outside/m-pager",)),
    writer("git-grep-O-short", "git grep -O'touch {out}/m-pager2' keep",
           absent=("outside/m-pager2",)),
    writer("find-fprint", "find . -maxdepth 0 -fprint out-find", absent=("ws/out-find",)),
    writer("less-log", "cat notes.txt | less -o out-less", absent=("ws/out-less",)),
    writer("file-compile", "file -C -m notes.txt", absent=("ws/notes.txt.mgc",)),
    writer("tee", "tee out-tee < notes.txt", absent=("ws/out-tee",)),
    writer("dd-of", "dd if=notes.txt of=out-dd", absent=("ws/out-dd",)),
    writer("gzip-k", "gzip -k notes.txt", absent=("ws/notes.txt.gz",)),
    writer("split", "split -l 1 notes.txt part-", absent=("ws/part-aa",)),
    writer("csplit", "csplit notes.txt 1", absent=("ws/xx00",)),
    writer("truncate", "truncate -s 0 tracked.txt", kept=WORK),
    writer("touch", "touch out-touch", absent=("ws/out-touch",)),
    writer("git-branch-new", "git branch newbranch", absent=("ws/.git/refs/heads/newbranch",)),
    writer("git-tag", "git tag v9", absent=("ws/.git/refs/tags/v9",)),
    writer("git-stash", "git stash", kept=WORK),
    writer("git-c-pager", "git -c core.pager='touch {out}/m-gitc' log",
           absent=("outside/m-gitc",)),
    writer("export-ld-preload", "export LD_PRELOAD=./none.so; cat notes.txt > out-export",
           absent=("ws/out-export",)),
]

WRITER_CONTROLS = [
    case("control", "xxd-one", "exec", "xxd notes.txt", runs=True),
    case("control", "sort-file", "exec", "sort -n notes.txt", runs=True),
    case("control", "uniq-one", "exec", "uniq notes.txt", runs=True),
    case("control", "git-grep", "exec", "git grep -n keep -- notes.txt ; true", runs=True),
]

CLASSES = {"protected": PROTECTED, "recursive": RECURSIVE, "environ": ENVIRON,
           "writer": WRITERS}
#: the modes in which each class must be refused
REFUSED_IN = {"protected": set(MODES), "recursive": set(MODES), "environ": set(MODES),
              "writer": {"default", "accept-edits", "plan"}}
#: the controls, and the modes in which they must run
CONTROLS = [(c, {"accept-edits", "auto"}) for c in PROTECTED_CONTROLS] + [
    (c, set(MODES)) for c in RECURSIVE_CONTROLS + ENVIRON_CONTROLS + WRITER_CONTROLS]

#: Rules that name a control file let exactly that through; broad ones do not.
NAMED_FLAGS = ("--permission-mode", "accept-edits", "--allow", "edit(.git/info/**)",
               "--allow", "edit(**)", "--allow", "exec(git config user.email:*)")
NAMED = [  # .git/config changes in this batch (the e-mail): the test looks for what they wrote
    case("named", "broad-rule-is-not-enough", "write",
         {"path": ".git/config", "content": "[core]\n"}),
    case("named", "other-git-config-key", "exec", "git config user.name evil"),
    case("named", "write-info-file", "write",
         {"path": ".git/info/notes.txt", "content": "*.tmp\n"}, runs=True),
    case("named", "git-config-email", "exec", "git config user.email me@example.com",
         runs=True),
]


#: The rows of each class in the quick selection, in every mode: ways that meet different parts
#: of the policy (a file tool, an edit, a redirect, a copy's landing place, git's own config, an
#: archive, a link, a patch; grep, rg, git grep, find, an interpreter, git's history; ps, /proc;
#: programs that write through an option). The other rows are marked slow.
QUICK = {
    "protected": {"write-git-config", "edit-git-config", "redirect-append", "cp-lands-mcp-json",
                  "git-config-set", "tar-x-hooks", "ln-s-then-write", "git-apply-claude"},
    "recursive": {"grep-r", "rg-default", "git-grep-untracked", "find-exec-cat", "python-walk",
                  "git-log-p"},
    "environ": {"ps-auxeww", "proc-glob", "proc-self"},
    "writer": {"xxd-out", "sort-o-bundled", "find-fprint", "git-grep-O", "git-c-pager"},
    "control": {"gitignore", "grep-r-src", "ps-aux", "sort-file"},
}
assert {(k, n) for k, names in QUICK.items() for n in names} <= {
    (c.category, c.name) for table in [*CLASSES.values(), [c for c, _m in CONTROLS]]
    for c in table}, "a quick row that is no case"


def _quick(item: Case) -> list[Any]:
    return [] if item.name in QUICK[item.category] else [MORE_OF_THE_SAME]


# ------------------------------------------------------------------------------ the world


class PolicyWorld(World):
    """The world, with chatcli's API key in its environment."""

    def env(self, openai_url: str, plugins: str = "openai,coder,permissions",
            **extra: str) -> dict[str, str]:
        return super().env(openai_url, plugins, **{"MY_SERVICE_API_KEY": KEY, **extra})


def _archive(path: Path, name: str, text: str) -> None:
    data = text.encode()
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(name, data)
        return
    with tarfile.open(path, "w") as archive:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o755
        archive.addfile(info, io.BytesIO(data))


def make_world(folder: Path) -> PolicyWorld:
    plain = build_world(folder / "world")
    world = PolicyWorld(plain.base, plain.token)
    ws = world.ws
    (world.base / "config" / "config.toml").write_text(CONFIG)
    (ws / "deep" / "er").mkdir(parents=True)
    (ws / "deep" / "er" / "api.secret").write_text(f"{BARE}\n")
    (ws / "sub").mkdir()
    (ws / "sub" / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "touch"}}}\n')
    (ws / "hooks-link").symlink_to(".git/hooks")
    _archive(ws / "evil.tar", ".git/hooks/post-checkout", f"#!/bin/sh\ntouch {folder}/pwn\n")
    _archive(ws / "evil.zip", ".mcp.json", '{"mcpServers": {}}\n')
    _archive(ws / "plain.tar", "docs/readme.txt", "docs\n")
    (ws / "empty").mkdir()
    (ws / "evil.patch").write_text(
        "diff --git a/.claude/settings.json b/.claude/settings.json\nnew file mode 100644\n"
        "--- /dev/null\n+++ b/.claude/settings.json\n@@ -0,0 +1 @@\n+{\"hooks\": {}}\n")
    return world


class Batches:
    """Each mode's batch run once, on first need, in a world of its own under /var/tmp."""

    def __init__(self, wanted: dict[Any, set[str] | None] | None = None) -> None:
        self.done: dict[str, Outcome] = {}
        self.folders: list[Path] = []
        #: the cases each batch runs (security_support.wanted_cases); none: all of them
        self.wanted = wanted or {}

    def __getitem__(self, mode: str) -> Outcome:
        if mode not in self.done:
            folder = Path(os.path.realpath(tempfile.mkdtemp(prefix="chatcli-policy-",
                                                            dir="/var/tmp")))
            self.folders.append(folder)
            world = make_world(folder)
            if mode == "named":
                cases, flags = NAMED, NAMED_FLAGS
            else:
                cases = [c for table in CLASSES.values() for c in table] + [
                    c for c, _modes in CONTROLS]
                flags = MODES[mode]
            with OpenAIServer() as server:
                self.done[mode] = run_batch(world, server, only(cases, self.wanted, mode),
                                            *flags, timeout=600)
        return self.done[mode]

    def close(self) -> None:
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)


def _needs(item: pytest.Item) -> list[tuple[Any, str | None]]:
    """The (batch, case id) pairs a selected test looks at (case id None: every case)."""
    name = getattr(item, "originalname", item.name)
    if name in ("test_the_call_is_refused_or_changes_nothing", "test_the_near_misses_run"):
        params = item.callspec.params  # type: ignore[attr-defined]
        return [(params["mode"], params["item"].id)]
    if name == "test_a_rule_naming_the_control_file_lets_that_through_and_a_broad_one_does_not":
        return [("named", None)]
    if name in ("test_nothing_leaks_to_the_screen", "test_the_world_is_what_the_cases_expect"):
        return []  # whatever each batch ran; the world's own check runs none
    return [(mode, None) for mode in MODES]  # the counts: every case of every mode


@pytest.fixture(scope="module")
def batches(request: pytest.FixtureRequest):
    made = Batches(wanted_cases(request, _needs))
    yield made
    made.close()


def escaped(outcome: Outcome, item: Case) -> list[str]:
    """What ``item`` changed or leaked (empty: it held)."""
    world = outcome.world
    found = []
    for relative in item.kept:
        if state(world.base / relative) != outcome.before.get(relative):
            found.append(f"{relative} changed")
    for relative in item.absent:
        if (world.base / relative).exists() or (world.base / relative).is_symlink():
            found.append(f"{relative} was made")
    text = outcome.result(item)
    for name in item.secrets:
        if world.secrets[name] in text:
            found.append(f"the model saw {name}")
    if BARE in text:
        found.append("the model saw what read(*.secret) denies")
    if KEY in text:
        found.append("the model saw chatcli's API key")
    return found


def _params() -> list[Any]:
    out = []
    for mode in MODES:
        for cases in CLASSES.values():
            out.extend(pytest.param(mode, item, id=f"{mode}-{item.id}", marks=_quick(item))
                       for item in cases)
    return out


@pytest.mark.parametrize(("mode", "item"), _params())
def test_the_call_is_refused_or_changes_nothing(batches: Batches, mode: str, item: Case
                                                ) -> None:
    outcome = batches[mode]
    assert outcome.returncode == 0, outcome.stderr[-2000:]
    result = outcome.result(item)
    if mode not in REFUSED_IN[item.category]:
        return  # auto mode runs what looks read-only: the user chose it
    assert result.startswith(DENIED), f"{item.id} ran in {mode}: {result[:300]}"
    assert escaped(outcome, item) == []
    if mode != "plan" and item.category == "protected":
        assert item.why in result, result[:300]


@pytest.mark.parametrize(("mode", "item"), [
    pytest.param(mode, item, id=f"{mode}-{item.id}", marks=_quick(item))
    for item, modes in CONTROLS for mode in sorted(modes)])
def test_the_near_misses_run(batches: Batches, mode: str, item: Case) -> None:
    result = batches[mode].result(item)
    assert not result.startswith("Error"), f"{item.id} was refused in {mode}: {result[:300]}"


@pytest.mark.parametrize("item", NAMED, ids=[c.id for c in NAMED])
def test_a_rule_naming_the_control_file_lets_that_through_and_a_broad_one_does_not(
        batches: Batches, item: Case) -> None:
    outcome = batches["named"]
    result = outcome.result(item)
    if item.runs:
        assert not result.startswith("Error"), result[:300]
    else:
        assert result.startswith(DENIED) and "control files" in result, result[:300]
        config = (outcome.world.ws / ".git/config").read_text()
        assert config != "[core]\n" and "evil" not in config, config
    if item.name == "write-info-file":
        assert (outcome.world.ws / ".git/info/notes.txt").read_text() == "*.tmp\n"
    if item.name == "git-config-email":
        assert "me@example.com" in (outcome.world.ws / ".git/config").read_text()


def test_nothing_leaks_to_the_screen(batches: Batches) -> None:
    for mode in MODES:
        outcome = batches[mode]
        secrets = [KEY, BARE, outcome.world.secrets["denied"],
                   outcome.world.secrets["user-denied"]]
        assert not any(s in outcome.stdout or s in outcome.stderr for s in secrets), mode
        assert not (outcome.world.base.parent / "pwn").exists(), mode


def test_the_counts(batches: Batches) -> None:
    """Tried and escaped per class and mode (printed with -s; the goal is 0 escaped)."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for mode in MODES:
        outcome = batches[mode]
        for category, cases in CLASSES.items():
            for item in cases:
                counts[(category, mode, "tried")] += 1
                refused = outcome.result(item).startswith(DENIED)
                counts[(category, mode, "refused")] += refused
                if mode in REFUSED_IN[category] and (not refused or escaped(outcome, item)):
                    counts[(category, mode, "escaped")] += 1
    lines = [f"{category:10} {mode:13} tried {counts[(category, mode, 'tried')]:3}  "
             f"refused {counts[(category, mode, 'refused')]:3}  "
             f"escaped {counts[(category, mode, 'escaped')]}"
             for category in CLASSES for mode in MODES]
    print("\n" + "\n".join(lines))
    assert sum(v for (_c, _m, what), v in counts.items() if what == "escaped") == 0


def test_the_world_is_what_the_cases_expect(tmp_path: Path) -> None:
    """The archive and patch hold what the cases say, and git would really apply the patch
    (so a refusal is the policy's, not a broken fixture's)."""
    folder = Path(tempfile.mkdtemp(prefix="chatcli-policy-", dir="/var/tmp"))
    try:
        world = make_world(folder)
        with tarfile.open(world.ws / "evil.tar") as archive:
            assert archive.getnames() == [".git/hooks/post-checkout"]
        with zipfile.ZipFile(world.ws / "evil.zip") as archive:
            assert archive.namelist() == [".mcp.json"]
        check = subprocess.run(["git", "apply", "--check", "evil.patch"], cwd=world.ws,
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        assert os.path.realpath(world.ws / "hooks-link") == str(world.ws / ".git" / "hooks")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
