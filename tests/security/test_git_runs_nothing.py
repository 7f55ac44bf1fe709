"""Git that runs nothing: a repository whose config (or attributes, or an include, or hooks, or the
user's global config) names a program makes none of chatcli's git processes run it.

Each row of :data:`VARIATIONS` plants one way of naming a program — the program is a canary script
that appends a line to a file in a folder under ``/var/tmp`` (not ``/tmp``: the sandbox hides it)
— then drives every chatcli path that runs git through the real CLI with a scripted model:

* ``checkpoint``: ``chatcli -p`` in ``accept-edits`` mode whose model writes a file, runs a command
  and writes again (a workspace snapshot before each step);
* ``rewind`` and ``undo``: ``chatcli -c -p "/rewind last"`` and ``… "/rewind undo"``;
* ``git tool``: ``chatcli -c -p`` whose model calls the coder's ``git`` tool: ``status``,
  ``diff`` (unstaged and staged), ``log``, ``changed``, ``branch``;
* in every one of those runs, the prompt's environment section (``status``, ``log``) and
  repository map (``ls-files``) of chatcli-repomap.

Each row also has a *control*: plain git doing what that path does (or what the key is for) runs
the canary, so the row is live — a row that proves nothing fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

CHATCLI = Path(sys.executable).parent / "chatcli"

#: Every hook git knows (``git help hooks``): planted as canaries in ``.git/hooks`` and in a
#: ``core.hooksPath`` folder.
HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
         "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
         "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
         "proc-receive", "post-receive", "post-update", "reference-transaction",
         "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
         "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
         "p4-pre-submit", "post-index-change")

P = "{prog}"  # the canary program, filled in per run


@dataclass(frozen=True)
class Variation:
    """One way a repository (or the user's config) names a program.

    ``config``: keys written to ``.git/config``; ``attributes`` / ``info_attributes``: the
    ``.gitattributes`` / ``.git/info/attributes`` text; ``include``: keys written to a separate
    file that ``.git/config`` includes with ``include_key`` (``include.path``,
    ``includeIf.<condition>.path``); ``global_config``: keys of the run's ``~/.gitconfig``;
    ``hooks``: canaries in ``.git/hooks``; ``signed``: HEAD becomes a commit with a signature of
    that format; ``control``: a plain git command (with ``stdin``) that runs the program."""

    name: str
    control: tuple[str, ...]
    config: dict[str, str] = field(default_factory=dict)
    attributes: str = ""
    info_attributes: str = ""
    include: dict[str, str] = field(default_factory=dict)
    include_key: str = "include.path"
    global_config: dict[str, str] = field(default_factory=dict)
    hooks: bool = False
    signed: str = ""
    stdin: str = ""
    tty: bool = False  # the control needs a terminal (pagers)
    prep: tuple[str, ...] = ()  # git arguments run (plainly, before planting) for the control
    submodule: dict[str, str] = field(default_factory=dict)  # keys of a submodule's own config


_CLEAN = ("add", "-A")
_STATUS = ("status", "--short")
_DIFF = ("diff",)
_CREDENTIAL = ("credential", "fill")
_ASK = "protocol=https\nhost=example.invalid\n\n"

VARIATIONS = [
    Variation("core.fsmonitor", _STATUS, config={"core.fsmonitor": P}),
    Variation("core.fsmonitor from an include", _STATUS, include={"core.fsmonitor": P}),
    Variation("core.fsmonitor from includeIf gitdir", _STATUS, include={"core.fsmonitor": P},
              include_key="includeIf.gitdir:/.path"),
    Variation("core.fsmonitor from includeIf onbranch", _STATUS,
              include={"core.fsmonitor": P}, include_key="includeIf.onbranch:main.path"),
    Variation("core.fsmonitor in the global config", _STATUS,
              global_config={"core.fsmonitor": P}),
    Variation("hooks in .git/hooks", ("commit", "--allow-empty", "-q", "-m", "x"), hooks=True),
    Variation("core.hooksPath", ("commit", "--allow-empty", "-q", "-m", "x"),
              config={"core.hooksPath": "{dir}/hooks"}),
    Variation("filter clean + .gitattributes", _CLEAN,
              config={"filter.evil.clean": P}, attributes="* filter=evil\n"),
    Variation("filter smudge + .gitattributes", ("checkout", "-f", "--", "tracked.txt"),
              config={"filter.evil.smudge": P}, attributes="* filter=evil\n"),
    Variation("filter process + .gitattributes", _CLEAN,
              config={"filter.evil.process": P}, attributes="* filter=evil\n"),
    Variation("filter required + .gitattributes", _CLEAN,
              config={"filter.evil.clean": P, "filter.evil.required": "true"},
              attributes="* filter=evil\n"),
    Variation("filter with '=' and '.' in its name", _CLEAN,
              config={"filter.a=b.c.clean": P}, attributes="* filter=a=b.c\n"),
    Variation("filter with an upper-case name", _CLEAN,
              config={"filter.EvIl.clean": P}, attributes="* filter=EvIl\n"),
    Variation("filter + .git/info/attributes", _CLEAN,
              config={"filter.evil.clean": P}, info_attributes="* filter=evil\n"),
    Variation("filter + core.attributesFile", _CLEAN,
              config={"filter.evil.clean": P, "core.attributesFile": "{dir}/attributes"}),
    Variation("filter from an include", _CLEAN, include={"filter.inc.clean": P},
              attributes="* filter=inc\n"),
    Variation("filter from includeIf gitdir", _CLEAN, include={"filter.inc.clean": P},
              include_key="includeIf.gitdir:/.path", attributes="* filter=inc\n"),
    Variation("filter in the global config", _CLEAN, global_config={"filter.glob.clean": P},
              attributes="* filter=glob\n"),
    Variation("filter smudge in the global config", ("checkout", "-f", "--", "tracked.txt"),
              global_config={"filter.glob.smudge": P}, attributes="* filter=glob\n"),
    Variation("a submodule's own fsmonitor and filter", _STATUS,
              submodule={"core.fsmonitor": P, "filter.sub.clean": P}),
    Variation("diff.external", _DIFF, config={"diff.external": P}),
    Variation("diff.<driver>.command + .gitattributes", _DIFF,
              config={"diff.evil.command": P}, attributes="* diff=evil\n"),
    Variation("diff.<driver>.textconv + .gitattributes", _DIFF,
              config={"diff.evil.textconv": P}, attributes="* diff=evil\n"),
    Variation("diff.<driver>.textconv + .git/info/attributes", _DIFF,
              config={"diff.evil.textconv": P}, info_attributes="* diff=evil\n"),
    Variation("diff.<driver>.textconv from an include", _DIFF,
              include={"diff.inc.textconv": P}, attributes="* diff=inc\n"),
    Variation("diff.external from includeIf onbranch", _DIFF, include={"diff.external": P},
              include_key="includeIf.onbranch:main.path"),
    Variation("core.pager", ("log", "-n1"), config={"core.pager": P}, tty=True),
    Variation("pager.<command>", _STATUS, tty=True,
              config={"pager.status": P, "pager.diff": P, "pager.log": P, "pager.branch": P}),
    Variation("core.editor", ("commit", "--allow-empty"), config={"core.editor": P}),
    Variation("sequence.editor", ("rebase", "-i", "--root"), config={"sequence.editor": P},
              prep=("reset", "-q", "--hard")),
    Variation("core.sshCommand", ("ls-remote", "ssh://example.invalid/x"),
              config={"core.sshCommand": P}),
    Variation("credential.helper", _CREDENTIAL, config={"credential.helper": "!" + P},
              stdin=_ASK),
    Variation("credential.<url>.helper", _CREDENTIAL,
              config={"credential.https://example.invalid.helper": "!" + P}, stdin=_ASK),
    Variation("core.askPass", _CREDENTIAL, config={"core.askPass": P}, stdin=_ASK),
    Variation("protocol.ext.allow + ext:: remote", ("ls-remote", "origin"),
              config={"protocol.ext.allow": "always", "remote.origin.url": "ext::" + P}),
    Variation("remote.<name>.uploadpack", ("ls-remote", "origin"),
              config={"protocol.file.allow": "always", "remote.origin.url": "{dir}/remote.git",
                      "remote.origin.uploadpack": P}),
    Variation("core.gitProxy", ("ls-remote", "git://example.invalid/x"),
              config={"core.gitProxy": P, "protocol.git.allow": "always"}),
    Variation("gpg.program + log.showSignature", ("log", "-n1"), signed="openpgp",
              config={"gpg.program": P, "log.showSignature": "true"}),
    Variation("gpg.x509.program + log.showSignature", ("log", "-n1"), signed="x509",
              config={"gpg.x509.program": P, "log.showSignature": "true"}),
    Variation("gpg.ssh.program + log.showSignature", ("log", "-n1"), signed="ssh",
              config={"gpg.ssh.program": P, "gpg.ssh.allowedSignersFile": "{dir}/signers",
                      "log.showSignature": "true"}),
    Variation("uploadpack.packObjectsHook (global)",
              ("clone", "-q", "--no-local", "file://{dir}/remote.git", "{dir}/cloned"),
              global_config={"uploadpack.packObjectsHook": P}),
    Variation("merge.<driver>.driver + .gitattributes", ("merge", "-q", "--no-edit", "feature"),
              config={"merge.evil.driver": P}, attributes="* merge=evil\n",
              prep=("reset", "-q", "--hard")),
    Variation("interactive.diffFilter", ("add", "-p"), tty=True,
              config={"interactive.diffFilter": P}),
]


# ------------------------------------------------------------------------------ the world

_GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_NOSYSTEM": "1"}

_SIGNATURES = {
    "openpgp": "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n=abcd\n"
               "-----END PGP SIGNATURE-----",
    "x509": "-----BEGIN SIGNED MESSAGE-----\nMIAGCSqGSIb3DQEHAqCAMIACAQEx\n"
            "-----END SIGNED MESSAGE-----",
    "ssh": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----",
}


@dataclass
class World:
    base: Path
    results: list[str] = field(default_factory=list)  # the tool results of the editing run

    @property
    def ws(self) -> Path:
        return self.base / "ws"

    @property
    def home(self) -> Path:
        return self.base / "home"

    @property
    def canaries(self) -> Path:
        return self.base / "canaries"

    @property
    def prog(self) -> Path:
        return self.base / "prog.sh"

    def env(self, url: str = "") -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                "CHATCLI_CONFIG_DIR": str(self.base / "config"),
                "CHATCLI_DATA_DIR": str(self.base / "data"),
                "CHATCLI_CACHE_DIR": str(self.base / "cache"),
                # (environment and repomap: every run's first request runs git status, log
                # and ls-files for the prompt's environment section and repository map)
                "CHATCLI_PLUGINS": "openai,coder,permissions,sessions,checkpoints,environment,"
                                   "repomap,print",
                "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": url, "GIT_CONFIG_NOSYSTEM": "1"}

    def ran(self) -> list[str]:
        """The canary's lines since the last call (and start again)."""
        path = self.canaries / "ran"
        if not path.exists():
            return []
        lines = path.read_text(errors="replace").splitlines()
        path.unlink()
        return lines

    def fill(self, text: str) -> str:
        return text.replace(P, str(self.prog)).replace("{dir}", str(self.base))


def git(cwd: Path, *args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), **_GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          input=stdin, timeout=60)


def build(base: Path, sandbox: str = "off") -> World:
    """A repository as a person leaves one: a change not committed, a staged one, an
    untracked file, a second branch; and the canary program. ``sandbox``: the coder's setting
    (git runs in chatcli's own process either way; the model's command runs in it)."""
    world = World(base)
    for folder in (world.ws, world.home, world.canaries, base / "config", base / "hooks"):
        folder.mkdir(parents=True)
    (base / "config" / "config.toml").write_text(f'[coder]\nsandbox = "{sandbox}"\n')
    world.prog.write_text(
        "#!/bin/sh\n"
        f'echo "$0 $* (parent: $(tr "\\0" " " < /proc/$PPID/cmdline))" >> {world.canaries}/ran\n')
    world.prog.chmod(0o755)
    for hook in HOOKS:
        (base / "hooks" / hook).write_text(f"#!/bin/sh\n{world.prog} hook {hook}\n")
        (base / "hooks" / hook).chmod(0o755)
    ws, home = world.ws, world.home

    def run(*args: str) -> None:
        done = git(ws, *args, home=home)
        assert done.returncode == 0, (args, done.stderr)

    run("init", "-q", "-b", "main")
    (ws / "tracked.txt").write_text("one\n")
    (ws / "staged.txt").write_text("one\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hi')\n")
    run("add", "-A")
    run("commit", "-q", "-m", "first")
    run("branch", "feature")
    run("checkout", "-q", "feature")
    (ws / "tracked.txt").write_text("one\nfeature\n")
    run("commit", "-q", "-am", "feature")
    run("checkout", "-q", "main")
    (ws / "tracked.txt").write_text("two\n")
    run("commit", "-q", "-am", "second")
    (ws / "tracked.txt").write_text("three, not committed\n")
    (ws / "staged.txt").write_text("staged\n")
    run("add", "staged.txt")
    (ws / "untracked.txt").write_text("untracked\n")
    run("init", "-q", "--bare", str(base / "remote.git"))
    run("push", "-q", str(base / "remote.git"), "main")
    (base / "attributes").write_text("* filter=evil\n")
    (base / "signers").write_text("")
    return world


def plant(world: World, row: Variation) -> None:
    """Plant the row's program (after the repository is built: building ran plain git)."""
    ws, home = world.ws, world.home
    if row.signed:
        tree = git(ws, "rev-parse", "HEAD^{tree}", home=home).stdout.strip()
        parent = git(ws, "rev-parse", "HEAD", home=home).stdout.strip()
        signature = "\n ".join(_SIGNATURES[row.signed].splitlines())
        body = (f"tree {tree}\nparent {parent}\nauthor t <t@x> 1700000000 +0000\n"
                f"committer t <t@x> 1700000000 +0000\ngpgsig {signature}\n\nsigned\n")
        commit = git(ws, "hash-object", "-t", "commit", "-w", "--stdin", home=home,
                     stdin=body).stdout.strip()
        assert git(ws, "update-ref", "refs/heads/main", commit, home=home).returncode == 0
    if row.hooks:
        for hook in HOOKS:
            target = ws / ".git" / "hooks" / hook
            shutil.copy(world.base / "hooks" / hook, target)
            target.chmod(0o755)
    if row.submodule:
        inner = world.base / "inner"
        for args in (("init", "-q", str(inner)), ("-C", str(inner), "commit", "-q",
                                                  "--allow-empty", "-m", "inner"),
                     ("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner),
                      "inner"), ("commit", "-q", "-m", "submodule")):
            done = git(ws, *args, home=home)
            assert done.returncode == 0, (args, done.stderr)
        for key, value in row.submodule.items():
            assert git(ws / "inner", "config", key, world.fill(value), home=home).returncode == 0
        (ws / "inner" / ".gitattributes").write_text("* filter=sub\n")
        (ws / "inner" / "dirty.txt").write_text("uncommitted\n")
    if row.include:
        lines = []
        for key, value in row.include.items():
            section, _, rest = key.partition(".")
            sub, _, name = rest.rpartition(".")
            head = f'[{section} "{sub}"]' if sub else f"[{section}]"
            lines += [head, f"\t{name} = {json.dumps(world.fill(value))}"]
        (world.base / "included.cfg").write_text("\n".join(lines) + "\n")
        done = git(ws, "config", row.include_key, str(world.base / "included.cfg"), home=home)
        assert done.returncode == 0, done.stderr
    for key, value in row.config.items():
        done = git(ws, "config", key, world.fill(value), home=home)
        assert done.returncode == 0, done.stderr
    for key, value in row.global_config.items():
        done = git(ws, "config", "--global", key, world.fill(value), home=home)
        assert done.returncode == 0, done.stderr
    if row.attributes:
        (ws / ".gitattributes").write_text(row.attributes)
    if row.info_attributes:
        (ws / ".git" / "info").mkdir(exist_ok=True)
        (ws / ".git" / "info" / "attributes").write_text(row.info_attributes)


def control(world: World, row: Variation) -> list[str]:
    """Plain git doing what the row's key is for, in a copy of the planted repository (so the
    workspace stays as it was): the lines the canary wrote."""
    copy = world.base / "control"
    shutil.copytree(world.ws, copy, symlinks=True)
    if row.prep:
        assert git(copy, *row.prep, home=world.home).returncode == 0
    args = [world.fill(a) for a in row.control]
    if row.tty:  # stdout and stderr on a terminal: git starts pagers and colours diffs
        import pty

        leader, follower = pty.openpty()
        try:
            done = subprocess.run(["git", *args], cwd=copy, stdin=subprocess.DEVNULL,
                                  stdout=follower, stderr=follower, timeout=60,
                                  env={"PATH": os.environ.get("PATH", ""), "TERM": "xterm",
                                       "HOME": str(world.home), **_GIT_ENV})
        finally:
            os.close(follower)
            os.close(leader)
    else:
        done = git(copy, *args, home=world.home, stdin=row.stdin)
    del done
    shutil.rmtree(copy)
    return world.ran()


# ------------------------------------------------------------------------------ chatcli's paths


def chatcli(world: World, server: OpenAIServer, *args: str, replies: list[Reply] | None = None
            ) -> subprocess.CompletedProcess[str]:
    """A run of chatcli in the workspace; ``replies``: the model's steps (None: a run that does
    not ask the model, such as ``/rewind``)."""
    if replies is not None:
        server.script(*replies, Reply(text="Done."))
    return subprocess.run([str(CHATCLI), "--provider", "openai", "--model", "m", *args],
                          cwd=world.ws, env=world.env(server.url), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)


def _call(name: str, **arguments: object) -> Reply:
    return Reply(tool_calls=[ToolCall(name, arguments)])


GIT_ACTIONS = [{"action": "status"}, {"action": "diff"}, {"action": "diff", "staged": True},
               {"action": "log"}, {"action": "changed"}, {"action": "branch"}]


def tool_results(server: OpenAIServer) -> list[str]:
    chats = [r for r in server.requests if r.path.split("?")[0].endswith("/chat/completions")]
    return [m["content"] for m in chats[-1].json["messages"] if m.get("role") == "tool"]


def drive(world: World, server: OpenAIServer, command: str = "echo made > made.txt",
          after_rewind: Callable[[], None] | None = None) -> dict[str, list[str]]:
    """Every chatcli path that runs git, in order; what the canary wrote during each.
    ``command``: what the model runs between its writes; ``after_rewind``: checks made right
    after the rewind."""
    seen: dict[str, list[str]] = {}
    done = chatcli(world, server, "-p", "change the files", "--permission-mode",
                   "accept-edits", "--allow", "execute", replies=[
                       _call("read", path="tracked.txt"),
                       _call("write", path="tracked.txt", content="by the agent\n"),
                       _call("exec", command=command),
                       _call("write", path="src/agent.py", content="print('agent')\n")])
    assert done.returncode == 0, done.stderr
    world.results = tool_results(server)
    assert (world.ws / "made.txt").exists() and (world.ws / "src/agent.py").exists(), (
        world.results)
    assert not any(r.startswith("Error") for r in tool_results(server)), tool_results(server)
    assert list((world.base / "data" / "checkpoints" / "git").iterdir())  # snapshots taken
    seen["checkpoint"] = world.ran()

    done = chatcli(world, server, "-c", "-p", "/rewind last")
    assert done.returncode == 0, done.stderr
    assert "Restored" in done.stdout, done.stdout
    assert (world.ws / "tracked.txt").read_text() == "three, not committed\n"
    assert not (world.ws / "made.txt").exists()
    if after_rewind is not None:
        after_rewind()
    seen["rewind"] = world.ran()

    done = chatcli(world, server, "-c", "-p", "/rewind undo")
    assert done.returncode == 0, done.stderr
    assert "Code rewind undone" in done.stdout, done.stdout
    assert (world.ws / "made.txt").exists()
    seen["undo"] = world.ran()

    done = chatcli(world, server, "-c", "-p", "look at git", "--permission-mode",
                   "accept-edits", replies=[_call("git", **a) for a in GIT_ACTIONS])
    assert done.returncode == 0, done.stderr
    results = tool_results(server)[-len(GIT_ACTIONS):]
    assert not any(r.startswith("Error") for r in results), results
    assert "tracked.txt" in results[0] and "by the agent" in results[1]  # status, diff
    assert "main" in results[5]  # branch
    seen["git tool"] = world.ran()
    return seen


@pytest.fixture
def base() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="chatcli-git-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # four chatcli runs a row
@pytest.mark.parametrize("row", VARIATIONS, ids=[v.name for v in VARIATIONS])
def test_no_git_path_of_chatcli_runs_the_program(base: Path, row: Variation) -> None:
    world = build(base)
    plant(world, row)
    assert control(world, row), f"{row.name}: plain git did not run the program: the row is dead"
    with OpenAIServer() as server:
        seen = drive(world, server)
    ran = {path: lines for path, lines in seen.items() if lines}
    assert not ran, f"{row.name}: a program ran: {ran}"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.parametrize("name", ["core.fsmonitor", "filter clean + .gitattributes",
                                  "filter in the global config", "diff.<driver>.textconv + "
                                  ".gitattributes"])
def test_with_the_sandbox_too(base: Path, name: str) -> None:
    """The same with the model's command in bubblewrap: checkpoints, rewind and the git tool run
    git from chatcli itself, outside the sandbox, and still run nothing."""
    row = next(v for v in VARIATIONS if v.name == name)
    world = build(base, sandbox="bwrap")
    plant(world, row)
    assert control(world, row)
    with OpenAIServer() as server:
        seen = drive(world, server)
    assert not any(seen.values()), seen
    assert any("sandbox: bwrap" in r for r in world.results), world.results


def test_the_rows_are_distinct() -> None:
    assert len({v.name for v in VARIATIONS}) == len(VARIATIONS)


# ------------------------------------------------------------------------------ legitimate use


def test_a_normal_repository_still_works(base: Path) -> None:
    """Attributes that run nothing keep working (line endings, binary, a built-in diff
    driver's function headers), checkpoints restore, and the git tool answers."""
    from chatcli_workspace import safe_git

    world = build(base)
    ws = world.ws
    (ws / ".gitattributes").write_text("*.txt text eol=lf\n*.py diff=python\n*.bin binary\n")
    (ws / "src" / "mod.py").write_text("def hello():\n" + "    x = 1\n" * 12)
    (ws / "data.bin").write_bytes(b"\0\1\2")
    assert git(ws, "add", ".gitattributes", "src/mod.py", "data.bin", home=world.home
               ).returncode == 0
    assert git(ws, "commit", "-q", "-m", "attributes", "--", ".gitattributes", "src/mod.py",
               "data.bin", home=world.home).returncode == 0
    (ws / "src" / "mod.py").write_text("def hello():\n" + "    x = 1\n" * 10 + "    x = 2\n")
    (ws / "data.bin").write_bytes(b"\0\1\3")
    before = {p: (ws / p).read_bytes() for p in ("src/mod.py", "data.bin", "tracked.txt")}

    diff = safe_git(["diff"], ws).stdout.decode()
    assert "@@ def hello():" in diff  # diff=python: the function header is still found
    assert "Binary files a/data.bin and b/data.bin differ" in diff
    status = safe_git(["status", "--short"], ws).stdout.decode()
    assert " M src/mod.py" in status and "M  staged.txt" in status

    def restored() -> None:
        assert {p: (ws / p).read_bytes() for p in before} == before  # byte for byte

    command = "echo made > made.txt && printf x >> data.bin && echo '# agent' >> src/mod.py"
    with OpenAIServer() as server:  # writes, a command, rewind, undo, the git tool
        seen = drive(world, server, command, after_rewind=restored)
    assert not any(seen.values())
    assert (ws / "data.bin").read_bytes() == b"\0\1\3x"  # the undo brought the agent's back
    assert (ws / "src" / "mod.py").read_text().endswith("# agent\n")


# ------------------------------------------------------------------------------ any name


@pytest.fixture(scope="module")
def plain_repo() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="chatcli-git-names-", dir="/var/tmp"))
    try:
        assert git(folder, "init", "-q", "repo", home=folder).returncode == 0
        yield folder / "repo"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0\n"),
                    min_size=1, max_size=24),
       variable=st.sampled_from(["clean", "smudge", "process", "textconv", "command"]))
def test_a_driver_of_any_name_is_turned_off(plain_repo: Path, name: str, variable: str) -> None:
    """Whatever a driver is called (quotes, ``=``, dots, spaces, any script), the override
    reaches it: git itself reads back the value that runs nothing."""
    from chatcli_workspace import safe_git_env

    section = "diff" if variable in ("textconv", "command") else "filter"
    key = f"{section}.{name}.{variable}"
    config = plain_repo / ".git" / "config"
    kept = config.read_bytes()
    try:
        planted = git(plain_repo, "config", key, "/var/tmp/never-run", home=plain_repo)
        assume(planted.returncode == 0)  # a name git cannot store
        env = safe_git_env(plain_repo)
        seen = subprocess.run(["git", "config", "--get", key], cwd=plain_repo, env=env,
                              capture_output=True, text=True)
        assert seen.returncode == 0 and seen.stdout == "\n", (key, seen.stdout)
    finally:
        config.write_bytes(kept)
