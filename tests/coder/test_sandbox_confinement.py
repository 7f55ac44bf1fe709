"""The sandbox honours the call's :class:`chatcli.Confinement`, for real (bubblewrap, real
commands): hidden paths are not there for any way of reading, a workspace not granted for
writing is read-only, chatcli's and git's control files stay read-only unless approved (and one
a command creates is moved out of the way), chatcli's process is not in the command's process
table, nothing can unmount what hides; the search, glob and tree tools skip hidden paths without
a word; exec and test say they are confined exactly when bubblewrap is used.

Canaries live in a folder made under ``/var/tmp`` (the sandbox gives commands a private
``/tmp``, so a canary there would prove nothing), removed afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
from chatcli import Confinement, Decision, Settings, Verdict, hookimpl
from chatcli_coder import _run
from chatcli_coder._walk import Hidden
from chatcli_workspace import glob_regex
from coder_support import Agent, git
from hypothesis import given, settings
from hypothesis import strategies as st

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (.ci/run installs it)")

TOKEN = uuid.uuid4().hex[:10]
ENV_SECRET = f"ENVSECRET-{TOKEN}"
DIR_SECRET = f"DIRSECRET-{TOKEN}"
DEEP_SECRET = f"DEEPSECRET-{TOKEN}"


class Confine:
    """A policy that allows every call with one confinement."""

    def __init__(self, confinement: Confinement) -> None:
        self.confinement = confinement

    @hookimpl
    def authorize_tool_call(self, call, tool):
        return Verdict(Decision.ALLOW, confinement=self.confinement)


def confined_agent(workspace: Path, confinement: Confinement,
                   settings: Settings | None = None) -> Agent:
    agent = Agent(workspace, settings)
    agent.host.register(Confine(confinement), "confine")
    return agent


@pytest.fixture
def world():
    """A workspace under /var/tmp (a git repository) holding a denied .env, a denied folder, a
    denied file deep down, a file to keep and git's and chatcli's control files."""
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="chatcli-confine-", dir="/var/tmp")))
    ws = base / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    (ws / "keep.txt").write_text("keep me\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / ".gitattributes").write_text("*.txt text\n")
    (ws / ".chatcli").mkdir()
    (ws / ".chatcli" / "config.toml").write_text("# project\n")
    (ws / ".mcp.json").write_text("{}\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "start")
    (ws / ".env").write_text(f"API_TOKEN={ENV_SECRET}\n")
    (ws / "secrets").mkdir()
    (ws / "secrets" / "key.txt").write_text(f"{DIR_SECRET}\n")
    (ws / "src" / "deep").mkdir()
    (ws / "src" / "deep" / ".env").write_text(f"{DEEP_SECRET}\n")
    (ws / "innocent.txt").symlink_to("secrets/key.txt")
    yield ws
    shutil.rmtree(base, ignore_errors=True)


def hidden_for(ws: Path) -> tuple[str, ...]:
    """What a policy with deny = ["read(**/.env)", "read(./secrets/**)"] hides."""
    return (f"{ws}/**/.env", f"{ws}/secrets/**")


# ------------------------------------------------------------------------------ the argv


def test_the_argv_binds_hidden_paths_last_and_drops_every_capability(tmp_path):
    ws = tmp_path / "ws"
    (ws / "secrets").mkdir(parents=True)
    (ws / ".env").write_text("x")
    argv = _run.sandboxed(["true"], "bwrap", ws, [ws], False,
                          protected=[ws / ".env"],  # a protected path that is hidden too
                          hidden=[(ws / "secrets", True), (ws / ".env", False)])
    text = " ".join(argv)
    assert f"--bind {ws} {ws}" in text
    assert f"--tmpfs {ws}/secrets --remount-ro {ws}/secrets" in text
    assert f"--ro-bind /dev/null {ws}/.env" in text
    # the hiding comes after the protecting (a later mount covers an earlier one)
    assert text.index(f"--ro-bind {ws}/.env") < text.index(f"--ro-bind /dev/null {ws}/.env")
    assert "--unshare-pid" in argv and argv[argv.index("--cap-drop") + 1] == "ALL"
    assert argv[-2:] == ["--", "true"]


def test_the_argv_binds_a_read_only_workspace_read_only(tmp_path):
    ws, cache = tmp_path / "ws", tmp_path / "cache"
    ws.mkdir()
    cache.mkdir()
    argv = _run.sandboxed(["true"], "bwrap", ws, [cache], True, readonly=[ws])
    text = " ".join(argv)
    assert f"--ro-bind {ws} {ws}" in text and f"--bind {ws} {ws}" not in text
    assert f"--bind {cache} {cache}" in text
    assert "--unshare-net" not in argv  # network asked for


def test_hidden_globs_expand_to_what_exists(world):
    hidden = Hidden(hidden_for(world))
    found, complete = hidden.expand()
    assert complete
    assert found == [(world / ".env", False), (world / "secrets", True),
                     (world / "src" / "deep" / ".env", False)]
    assert hidden.covers(world / "secrets" / "new.txt")  # inside a hidden folder
    assert hidden.covers(world / "innocent.txt")  # a link to a hidden file
    assert not hidden.covers(world / "keep.txt")
    assert not hidden.covers(world / "secretsx")


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("/w/**/.env", "/w/.env", True),
    ("/w/**/.env", "/w/a/b/.env", True),
    ("/w/*.env", "/w/a/x.env", False),
    ("/w/*.pem", "/w/k.pem", True),
    ("/w/secrets/**", "/w/secrets", True),
    ("/w/secrets/**", "/w/secrets2/x", False),
    ("/w/[ab].txt", "/w/b.txt", True),
    ("/w/[!ab].txt", "/w/b.txt", False),
    ("/w/a?c", "/w/abc", True),
    ("/w/a?c", "/w/a/c", False),
])
def test_hidden_patterns_follow_the_rules_glob_syntax(pattern, path, hit):
    assert Hidden([pattern]).covers(path) is hit


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_any_pattern_and_path_are_judged_without_failing(pattern, path):
    hidden = Hidden(["/" + pattern.replace("\x00", "")])
    result = hidden.covers("/" + path.replace("\x00", ""))
    assert isinstance(result, bool)
    glob_regex(pattern)  # compiles whatever it is given


# ------------------------------------------------------------------------------ hidden paths

#: Ways of reading a denied file or folder (each must find nothing of it).
READS = [
    ("grep -r", "grep -r SECRET . ; true"),
    ("grep -R", "grep -R SECRET . ; true"),
    ("grep -ra deep", "grep -ra SECRET src ; true"),
    ("rg -uu", "rg -uu SECRET ; true"),
    ("rg hidden no-ignore", "rg --hidden --no-ignore SECRET ; true"),
    ("git grep untracked", "git grep --untracked -e SECRET ; true"),
    ("git grep no-index", "git grep --no-index -e SECRET ; true"),
    ("tar", "tar cf - . 2>/dev/null | strings"),
    ("python open", "python3 -c \"print(open('.env').read())\" ; true"),
    ("python walk", "python3 -c \"import pathlib;[print(p.read_text()) for p in "
                    "pathlib.Path('.').rglob('*') if p.is_file() and '.git' not in p.parts]\""
                    " ; true"),
    ("cat", "cat .env secrets/key.txt src/deep/.env ; true"),
    ("find exec cat", "find . -name .git -prune -o -type f -exec cat {} + ; true"),
    ("xargs cat", "find . -path ./.git -prune -o -type f -print0 | xargs -0 cat ; true"),
    ("awk", "awk 1 .env secrets/key.txt ; true"),
    ("sed", "sed -n p .env secrets/key.txt ; true"),
    ("cp -r then cat", "cp -r secrets /tmp/s && cp .env /tmp/e ; cat /tmp/s/* /tmp/e ; true"),
    ("symlink", "ln -s .env l1 ; cat l1 innocent.txt ; rm -f l1 ; true"),
    ("proc root", "cat /proc/self/root$PWD/.env /proc/1/root$PWD/secrets/key.txt ; true"),
    ("dd", "dd if=.env status=none ; true"),
    ("head tail", "head -c 500 .env ; tail secrets/key.txt ; true"),
    ("base64", "base64 .env | base64 -d ; true"),
    ("ls and cat the listing", "ls -A secrets | sed s,^,secrets/, | xargs cat ; true"),
    ("umount then cat", "umount .env ; umount secrets ; umount -l secrets ; cat .env "
                        "secrets/key.txt ; true"),
    ("unshare then cat", "unshare -rm sh -c 'umount .env; cat .env' ; true"),
    ("mount proc", "mount -t proc proc /tmp ; true"),
    ("debugfs", "debugfs -R 'cat .env' /dev/sda1 2>&1 ; true"),
    ("od xxd strings", "od -c .env ; xxd secrets/key.txt ; strings src/deep/.env ; true"),
    ("git diff no-index", "git diff --no-index /dev/null .env ; git diff --no-index "
                          "/dev/null secrets/key.txt ; true"),
    ("diff", "diff .env /dev/null ; diff -r secrets /tmp ; true"),
    ("proc self cwd", "cat /proc/self/cwd/.env /proc/$$/cwd/secrets/key.txt ; true"),
    ("absolute and dotted", "cat $PWD/.env ./secrets/../secrets/key.txt src/../.env ; true"),
    ("hard link", "ln .env hard ; ln secrets/key.txt hard2 ; cat hard hard2 ; true"),
    ("mount bind", "mkdir -p /tmp/m && mount --bind $PWD /tmp/m ; cat /tmp/m/.env ; true"),
    ("nsenter", "nsenter -t 1 -m cat $PWD/.env ; true"),
    ("mv the cover", "mv .env /tmp/e ; mv secrets /tmp/s ; cat /tmp/e /tmp/s/* .env ; true"),
    ("rsync", "rsync -a secrets .env /tmp/r/ 2>&1 ; cat /tmp/r/* /tmp/r/secrets/* ; true"),
    ("python os.walk", "python3 -c \"import os\nfor d, _, fs in os.walk('.'):\n for f in fs:"
                       "\n  p = os.path.join(d, f)\n  if '.git' not in p:\n   try: print("
                       "open(p).read())\n   except OSError: pass\"; true"),
]


@needs_bwrap
@pytest.mark.parametrize(("name", "command"), READS, ids=[r[0] for r in READS])
def test_a_hidden_path_is_not_there_for_any_way_of_reading(world, name, command):
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)))
    text = agent.ok("exec", command=command)
    assert "sandbox: bwrap" in text.splitlines()[0], text
    for secret in (ENV_SECRET, DIR_SECRET, DEEP_SECRET):
        assert secret not in text, f"{name}: {text}"
    assert (world / ".env").read_text() == f"API_TOKEN={ENV_SECRET}\n"  # nothing changed


@needs_bwrap
def test_the_same_reads_find_the_secret_without_hiding(world):
    """The control: without a hidden path the commands above do find the secrets (so the test
    would notice the sandbox stopped hiding)."""
    agent = confined_agent(world, Confinement())
    text = agent.ok("exec", command="grep -r SECRET . ; cat /proc/self/root$PWD/.env")
    assert ENV_SECRET in text and DIR_SECRET in text and DEEP_SECRET in text


@needs_bwrap
def test_the_workspace_stays_usable_around_hidden_paths(world):
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)))
    text = agent.ok("exec", command="echo new > made.txt && cat src/app.py && git status "
                                    "--short >/dev/null && echo fine")
    assert "print('hi')" in text and "fine" in text
    assert (world / "made.txt").read_text() == "new\n"


# ------------------------------------------------------------------------------ search, glob


def test_search_glob_and_tree_skip_hidden_paths_without_a_word(world):
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)),
                           Settings(coder={"list_credentials": True}))
    found = agent.ok("search", pattern="SECRET", include_ignored=True)
    assert found.startswith("no matches"), found
    assert "secrets" not in found and ".env" not in found and "credential" not in found
    listed = agent.ok("glob", pattern="**/*", include_ignored=True)
    assert "keep.txt" in listed and "src/app.py" in listed
    assert "secrets" not in listed and ".env" not in listed, listed
    shown = agent.ok("tree", include_ignored=True)
    assert "keep.txt" in shown and "secrets" not in shown and ".env" not in shown, shown
    # the search, glob or tree of a hidden folder itself finds nothing either
    inside = agent.ok("search", pattern="SECRET", path="secrets")
    assert inside.startswith("no matches"), inside
    assert agent.ok("glob", pattern="*", path="secrets").startswith("no files match")
    assert "key.txt" not in agent.ok("tree", path="secrets")
    # control: nothing hidden, the same calls see them
    plain = confined_agent(world, Confinement(), Settings(coder={"list_credentials": True}))
    assert DIR_SECRET in plain.ok("search", pattern="SECRET", include_ignored=True)
    assert "secrets/key.txt" in plain.ok("glob", pattern="**/*", include_ignored=True)


def test_search_without_ripgrep_skips_hidden_paths_too(world, monkeypatch):
    from chatcli_coder import _find

    monkeypatch.setattr(_find, "rg_binary", lambda: None)
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)),
                           Settings(coder={"list_credentials": True}))
    found = agent.ok("search", pattern="SECRET", include_ignored=True)
    assert found.startswith("no matches"), found


# ------------------------------------------------------------------------------ read-only

#: Ways of writing keep.txt (each must leave it as it was in a read-only workspace).
WRITES = [
    ("xxd", "xxd /dev/null keep.txt"),
    ("sort -o", "sort -okeep.txt /dev/null"),
    ("dd of", "dd if=/dev/null of=keep.txt"),
    ("tee", "echo gone | tee keep.txt"),
    ("redirect", "echo gone > keep.txt"),
    ("truncate", "truncate -s 0 keep.txt"),
    ("rm", "rm -f keep.txt"),
    ("mv", "mv keep.txt gone.txt"),
    ("touch", "touch keep.txt new.txt"),
    ("sed -i", "sed -i s/keep/gone/ keep.txt"),
    ("python open w", "python3 -c \"open('keep.txt', 'w').write('gone')\""),
    ("perl -i", "perl -pi -e s/keep/gone/ keep.txt"),
    ("cp over", "cp /etc/hostname keep.txt"),
    ("ln -sf", "ln -sf /etc/hostname keep.txt"),
    ("chmod", "chmod 000 keep.txt"),
    ("find -delete", "find . -name keep.txt -delete"),
    ("git checkout", "git checkout -- keep.txt"),
    ("git rm", "git rm -q keep.txt"),
    ("proc root", "echo gone > /proc/self/root$PWD/keep.txt"),
    ("remount", "mount -o remount,rw $PWD ; echo gone > keep.txt"),
]


@needs_bwrap
@pytest.mark.parametrize(("name", "command"), WRITES, ids=[w[0] for w in WRITES])
def test_a_read_only_workspace_keeps_every_file(world, name, command):
    (world / "keep.txt").write_text("uncommitted work\n")
    before = sorted(p.name for p in world.iterdir())
    agent = confined_agent(world, Confinement(writable=False))
    text = agent.ok("exec", command=command)
    assert "the workspace read-only" in text.splitlines()[0], text
    assert (world / "keep.txt").read_text() == "uncommitted work\n", f"{name}: {text}"
    assert (world / "keep.txt").stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in world.iterdir()) == before, f"{name}: {text}"


@needs_bwrap
def test_a_read_only_workspace_still_runs_reading_commands_and_says_why_writes_fail(world):
    agent = confined_agent(world, Confinement(writable=False))
    text = agent.ok("exec", command="cat keep.txt && echo x > keep.txt")
    assert "keep me" in text
    assert "it was not approved for writing" in text.splitlines()[-1], text
    made = agent.ok("exec", command="echo scratch > /tmp/x && cat /tmp/x")  # /tmp stays
    assert "scratch" in made


@needs_bwrap
def test_sandbox_writable_stays_writable_and_allowed_dirs_follow_the_workspace(world):
    base = world.parent
    cache, other = base / "cache", base / "other"
    cache.mkdir()
    other.mkdir()
    settings = Settings(allowed_dirs=[str(other)], coder={"sandbox_writable": [str(cache)]})
    command = f"echo c > {cache}/c.txt; echo o > {other}/o.txt; echo w > {world}/w.txt"
    confined_agent(world, Confinement(writable=False), settings).ok("exec", command=command)
    assert (cache / "c.txt").exists()
    assert not (other / "o.txt").exists() and not (world / "w.txt").exists()
    confined_agent(world, Confinement(), settings).ok("exec", command=command)
    assert (other / "o.txt").exists() and (world / "w.txt").exists()
    # a sandbox_writable entry that is the workspace does not make a read-only call write it
    same = Settings(coder={"sandbox_writable": [str(world)]})
    confined_agent(world, Confinement(writable=False), same).ok(
        "exec", command="echo x > same.txt")
    assert not (world / "same.txt").exists()


# ------------------------------------------------------------------------------ protected

#: Writes to chatcli's and git's control files: (name, command, the path that must not change).
PROTECTED = [
    ("git config", "echo '[core]' >> .git/config", ".git/config"),
    ("fsmonitor", "git config core.fsmonitor 'touch /var/tmp/pwned'", ".git/config"),
    ("new hook", "printf '#!/bin/sh\\ntouch x\\n' > .git/hooks/pre-commit",
     ".git/hooks/pre-commit"),
    ("info attributes", "echo '* filter=x' > .git/info/attributes", ".git/info/attributes"),
    ("gitattributes", "echo '* filter=x' >> .gitattributes", ".gitattributes"),
    ("gitattributes rm", "rm -f .gitattributes", ".gitattributes"),
    ("chatcli config", "echo '[coder]' >> .chatcli/config.toml", ".chatcli/config.toml"),
    ("chatcli new file", "echo x > .chatcli/hooks.toml", ".chatcli/hooks.toml"),
    ("chatcli rm -rf", "rm -rf .chatcli", ".chatcli/config.toml"),
    ("chatcli mv", "mv .chatcli old", ".chatcli/config.toml"),
    ("mcp.json", "echo '{\"mcpServers\":{}}' > .mcp.json", ".mcp.json"),
    ("mcp.json python", "python3 -c \"open('.mcp.json','w').write('x')\"", ".mcp.json"),
    ("git dir mv", "mv .git .git-old", ".git/config"),
    ("proc root", "echo x >> /proc/self/root$PWD/.git/config", ".git/config"),
    ("sub gitattributes", "echo '* filter=x' > src/.gitattributes", "src/.gitattributes"),
    ("gitmodules", "echo '[submodule]' > .gitmodules", ".gitmodules"),
    ("claude settings", "mkdir -p .claude && echo '{}' > .claude/settings.json",
     ".claude/settings.json"),
    ("new chatcli link", "ln -s /var/tmp .chatcli2 ; ln -sfn keep.txt .mcp.json", ".mcp.json"),
]


def _state(path: Path) -> object:
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_file():
        return ("file", path.read_bytes())
    return "dir" if path.is_dir() else "missing"


@needs_bwrap
@pytest.mark.parametrize(("name", "command", "watched"), PROTECTED,
                         ids=[p[0] for p in PROTECTED])
def test_control_files_stay_as_they_were(world, name, command, watched):
    before = _state(world / watched)
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)))
    text = agent.ok("exec", command=command)
    assert _state(world / watched) == before, f"{name}: {text}"
    assert not os.path.exists("/var/tmp/pwned")
    assert (world / "keep.txt").read_text() == "keep me\n"


@needs_bwrap
def test_a_control_file_the_command_creates_is_moved_away_and_said(world):
    (world / ".mcp.json").unlink()
    agent = confined_agent(world, Confinement())
    text = agent.ok("exec", command="echo '{}' > .mcp.json && mkdir -p src/x && "
                                    "echo '* filter=x' > src/x/.gitattributes && echo ok")
    assert not (world / ".mcp.json").exists()
    assert (world / ".mcp.json.refused").read_text() == "{}\n"
    assert not (world / "src" / "x" / ".gitattributes").exists()
    assert "the command created .mcp.json" in text and "moved to .mcp.json.refused" in text
    assert "src/x/.gitattributes" in text


#: Ways of creating a control file that did not exist: (command, what it made).
CREATIONS = [
    ("echo '{}' > .mcp.json", ".mcp.json"),
    ("echo '{}' > .mcp.json && touch -d 2001-01-01 . && touch -d 2001-01-01 .mcp.json",
     ".mcp.json"),  # the folder's mtime set back: its ctime still says
    ("ln -s keep.txt .mcp.json", ".mcp.json"),  # a link: moved, never followed
    ("mkdir -p a/b/c && echo '* filter=x' > a/b/c/.gitattributes", "a/b/c/.gitattributes"),
    ("echo '* filter=x' > src/.gitattributes", "src/.gitattributes"),
    ("mkdir -p .claude && echo '{}' > .claude/settings.local.json",
     ".claude/settings.local.json"),
    ("echo '[submodule]' > .gitmodules", ".gitmodules"),
    ("mkdir -p sub && git init -q sub", "sub/.git"),
    ("mkdir -p sub/.chatcli && echo x > sub/.chatcli/config.toml", "sub/.chatcli"),
    ("echo x > .MCP.JSON", ".MCP.JSON"),  # what a case-insensitive file system would fold
]


@needs_bwrap
@pytest.mark.parametrize(("command", "made"), CREATIONS, ids=[c[1] + str(i)
                                                               for i, c in enumerate(CREATIONS)])
def test_a_new_control_file_does_not_stay(world, command, made):
    (world / ".mcp.json").unlink()
    agent = confined_agent(world, Confinement())
    text = agent.ok("exec", command=command)
    assert not os.path.lexists(world / made), text
    assert os.path.lexists(world / (made + ".refused")), text
    assert f"the command created {made}" in text
    assert (world / "keep.txt").read_text() == "keep me\n"
    assert (world / ".gitattributes").read_text() == "*.txt text\n"  # the old one untouched


@needs_bwrap
def test_approved_writes_to_control_files_go_through(world):
    agent = confined_agent(world, Confinement(protected_writable=True))
    agent.ok("exec", command="echo '[x]' >> .git/config && echo '{\"a\":1}' > .mcp.json && "
                             "echo y > .chatcli/new.toml")
    assert "[x]" in (world / ".git" / "config").read_text()
    assert (world / ".mcp.json").read_text() == '{"a":1}\n'
    assert (world / ".chatcli" / "new.toml").exists()


@needs_bwrap
def test_a_new_repository_is_not_made_without_approval(tmp_path):
    base = Path(os.path.realpath(tempfile.mkdtemp(dir="/var/tmp")))
    try:
        ws = base / "ws"
        ws.mkdir()
        text = confined_agent(ws, Confinement()).ok("exec", command="git init -q && echo ok")
        assert not (ws / ".git").exists() and (ws / ".git.refused").is_dir()
        assert "the command created .git" in text
    finally:
        shutil.rmtree(base)


# ------------------------------------------------------------------------------ processes


@needs_bwrap
@pytest.mark.parametrize("command", [
    "ps auxeww", "ps -ef e", "cat /proc/*/environ | tr '\\0' '\\n'",
    "cat /proc/*/cmdline | tr '\\0' ' '", "strings /proc/1/environ",
    "for p in /proc/[0-9]*; do cat $p/environ; done | tr '\\0' '\\n'"])
def test_chatcli_and_its_keys_are_not_in_the_commands_process_table(world, monkeypatch,
                                                                     command):
    key = f"sk-ant-{TOKEN}canarycanarycanary"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)  # chatcli's (this process's) environment
    text = confined_agent(world, Confinement()).ok("exec", command=command)
    assert text.splitlines()[0].startswith("exit code 0"), text
    assert key not in text


@needs_bwrap
def test_the_command_sees_only_its_own_processes(world):
    text = confined_agent(world, Confinement()).ok("exec", command="ps -eo pid=,comm=")
    rows = [line.split() for line in text.splitlines()[1:] if line.strip()]
    assert rows and {comm for _pid, comm in rows} <= {"bwrap", "bash", "ps"}, text
    assert max(int(pid) for pid, _comm in rows) < 20
    assert str(os.getpid()) not in {pid for pid, _comm in rows} or os.getpid() < 20


# ------------------------------------------------------------------------------ the tools


def test_exec_and_test_say_they_are_confined_when_bubblewrap_is_used(workspace):
    from chatcli_coder._tools import make_tools

    def confined(settings: Settings) -> dict[str, bool]:
        return {t.name: t.confined for t in make_tools(settings, workspace)
                if t.name in ("exec", "test", "read", "git")}

    off = confined(Settings(coder={"sandbox": "off"}))
    assert off == {"exec": False, "test": False, "read": False, "git": False}
    on = confined(Settings())
    expected = shutil.which("bwrap") is not None
    assert on == {"exec": expected, "test": expected, "read": False, "git": False}


@needs_bwrap
def test_a_confinement_reaches_the_test_tool_too(world):
    agent = confined_agent(world, Confinement(writable=False, hidden=hidden_for(world)))
    text = agent.ok("test", command="grep -r SECRET . ; echo x > keep.txt ; true")
    assert DIR_SECRET not in text and ENV_SECRET not in text
    assert (world / "keep.txt").read_text() == "keep me\n"


def test_unsandboxed_runs_ignore_the_confinement_but_run(world):
    """Without a sandbox nothing can hide or lock (the policy is the guard there): the command
    runs as before."""
    agent = confined_agent(world, Confinement(writable=False),
                           Settings(coder={"sandbox": "off"}))
    text = agent.ok("exec", command="echo made > made.txt && echo ok")
    assert "no sandbox" in text.splitlines()[0] and (world / "made.txt").exists()


@needs_bwrap
def test_a_denied_file_in_gits_history_is_out_of_reach_too(world):
    """secrets/ committed: git would read it from the object store (git grep X HEAD, git show
    HEAD:path, git log -p); the sandbox hides the object store then, and says why when git
    fails."""
    git(world, "add", "-f", "secrets", ".env")
    git(world, "commit", "-q", "-m", "oops")
    agent = confined_agent(world, Confinement(hidden=hidden_for(world)))
    for command in ("git grep SECRET HEAD", "git show HEAD:secrets/key.txt",
                    "git log -p | cat", "git cat-file -p HEAD:.env",
                    "cat .git/objects/*/* | python3 -c \"import sys, zlib; "
                    "print(zlib.decompress(sys.stdin.buffer.read()))\"",
                    "git archive HEAD | tar -xOf -"):
        text = agent.ok("exec", command=command + " ; echo done")
        assert DIR_SECRET not in text and ENV_SECRET not in text, f"{command}: {text}"
    failed = agent.ok("exec", command="git log --oneline")
    assert "git's object store is hidden" in failed, failed
    # nothing tracked is hidden: git works as usual
    plain = confined_agent(world, Confinement(hidden=(f"{world}/nothing-here",)))
    assert "oops" in plain.ok("exec", command="git log --oneline")


@needs_bwrap
def test_chatclis_key_file_is_hidden_from_every_command(world, monkeypatch):
    """keys.toml (chatcli keys set) holds the API keys: no sandboxed command reads it, whatever
    the rules say; the same command without the sandbox does (the policy guards that case)."""
    config = world.parent / "config"
    config.mkdir()
    key = f"sk-ant-{TOKEN}keyfilecanary"
    (config / "keys.toml").write_text(f'anthropic = "{key}"\n')
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(config))
    command = (f"cat {config}/keys.toml; grep -r sk- {config}; cp {config}/keys.toml /tmp/k; "
               "cat /tmp/k")
    text = confined_agent(world, Confinement()).ok("exec", command=command)
    assert key not in text, text
    assert (config / "keys.toml").read_text() == f'anthropic = "{key}"\n'
    off = confined_agent(world, Confinement(), Settings(coder={"sandbox": "off"}))
    assert key in off.ok("exec", command=f"cat {config}/keys.toml")


@needs_bwrap
def test_many_new_control_files_are_summed_up(world):
    command = "for i in 1 2 3 4 5 6 7 8; do mkdir -p pkg$i && echo x > pkg$i/.gitattributes; done"
    text = confined_agent(world, Confinement()).ok("exec", command=command)
    assert text.count("the command created pkg") == 5
    assert "… and 3 more control files it created" in text
    assert not any((world / f"pkg{i}" / ".gitattributes").exists() for i in range(1, 9))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_name_is_judged_as_a_control_file_or_not_without_failing(name):
    from chatcli_coder._shell import _fold, _is_control

    result = _is_control(Path("/w"), name)
    assert result is (_fold(name) in {".git", ".chatcli", ".mcp.json", ".gitattributes",
                                      ".gitmodules"})
    assert _is_control(Path("/w/.claude"), "settings" + name + ".json") or (
        not _fold("settings" + name + ".json").endswith(".json"))


@needs_bwrap
def test_a_control_file_made_before_a_timeout_does_not_stay(world):
    (world / ".mcp.json").unlink()
    agent = confined_agent(world, Confinement())
    text = agent.ok("exec", command="echo '{}' > .mcp.json; sleep 30", timeout=1)
    assert text.startswith("timed out"), text
    assert not (world / ".mcp.json").exists() and (world / ".mcp.json.refused").exists()
