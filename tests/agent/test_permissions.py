"""The permission policy: rules and how they match, the modes, where rules come from, what an
answer remembers, /permissions, and how it sits with other plugins' answers. Turns are real:
a scripted model calls stand-in tools through chatcli's Engine and Session."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from agent_support import Recorder, call
from chatcli import Approval, Decision, Verdict, hookimpl
from chatcli_agent._shell import analyse
from chatcli_agent.permissions.command import describe
from chatcli_agent.permissions.programs import suggest_rule
from chatcli_agent.permissions.rules import (
    RuleError,
    match_command,
    match_path,
    parse_rule,
    path_rule,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# ------------------------------------------------------------------------------------ rules


def test_rules_are_read_in_the_tool_specifier_form() -> None:
    rule = parse_rule("exec(npm run test:*)", "allow", "user config")
    assert (rule.tool, rule.specifier, rule.effect) == ("exec", "npm run test:*", "allow")
    assert parse_rule("exec").specifier is None
    assert parse_rule("Bash(ls:*)").tool == "exec"  # Claude Code's names
    assert parse_rule("Read(./x)").tool == "read" and parse_rule("Write(x)").tool == "edit"
    assert parse_rule("edit(a(b).py)").specifier == "a(b).py"
    for bad in ("", "exec()", "exec(ls", "ex ec", "(x)", "a/b(c)"):
        with pytest.raises(RuleError):
            parse_rule(bad)


def test_tool_groups_and_mcp_names() -> None:
    edit, read = parse_rule("edit(src/**)"), parse_rule("read")
    assert all(edit.covers(n) for n in ("write", "edit", "multiedit", "apply_patch"))
    assert not edit.covers("read") and not edit.covers("exec")
    assert all(read.covers(n) for n in ("read", "search", "glob", "tree"))
    assert not read.covers("write")
    server = parse_rule("mcp__github")
    assert server.covers("mcp__github__create_issue") and not server.covers("mcp__gitlab__x")
    assert parse_rule("mcp__github__create_issue").covers("mcp__github__create_issue")
    assert not parse_rule("mcp__github__create_issue").covers("mcp__github__delete_repo")
    assert parse_rule("mcp__*__list*").covers("mcp__db__list_tables")
    assert parse_rule("write").covers("write") and not parse_rule("write").covers("edit")


@pytest.mark.parametrize(("spec", "command", "matches"), [
    ("npm run test:*", "npm run test", True),
    ("npm run test:*", "npm run test -- --watch", True),
    ("npm run test:*", "npm run testx", False),
    ("npm run test:*", "npm run", False),
    ("npm test", "npm test", True),
    ("npm test", "npm test -k x", False),
    ("git log *", "git log --oneline", True),
    ("git * main", "git push origin main", True),
    ("git * main", "git push origin dev", False),
    ("*", "anything at all", True),
    ("python -c 'print(1)'", "python -c print(1)", True),
    ("docker*:*", "docker-compose up", True),
])
def test_command_specifiers(spec: str, command: str, matches: bool) -> None:
    assert match_command(spec, command) is matches


@pytest.mark.parametrize(("spec", "relative", "matches"), [
    ("src/**", "src/app.py", True),
    ("src/**", "src/a/b/c.py", True),
    ("src/**", "lib/src/app.py", False),
    ("./secrets/**", "secrets/key.txt", True),
    ("secrets", "secrets/key.txt", True),  # a name without a slash: in any folder, contents too
    ("secrets", "deep/secrets/key.txt", True),
    ("*.env", "config/prod.env", True),
    ("*.env", "config/prod.envx", False),
    ("src/*.py", "src/app.py", True),
    ("src/*.py", "src/a/app.py", False),
    ("**/test_*.py", "tests/unit/test_x.py", True),
    ("src/app.py", "src/app.py", True),
    ("src/app.py", "src/app.pyc", False),
    ("./", "anything.txt", True),
])
def test_path_specifiers_relative_to_the_workspace(ws, spec, relative, matches) -> None:
    assert match_path(spec, ws.root / relative, ws.root, ws.home) is matches


def test_path_specifiers_for_home_and_absolute_paths(ws) -> None:
    assert match_path("~/notes/**", ws.home / "notes" / "a.md", ws.root, ws.home)
    assert match_path(f"{ws.outside}/**", ws.outside / "data.txt", ws.root, ws.home)
    assert match_path(f"/{ws.outside}/**", ws.outside / "data.txt", ws.root, ws.home)  # //abs
    assert not match_path("~/notes/**", ws.root / "notes" / "a.md", ws.root, ws.home)


def test_a_pattern_through_a_symlinked_folder_matches_the_real_path(ws) -> None:
    (ws.root / "link").symlink_to(ws.root / "secrets")
    assert match_path("./link/**", ws.root / "secrets" / "key.txt", ws.root, ws.home)


def test_suggested_path_rules_are_the_narrowest(ws) -> None:
    assert path_rule("edit", ws.root / "src/app.py", ws.root, ws.home) == "edit(src/app.py)"
    assert path_rule("read", ws.root / ".env", ws.root, ws.home) == "read(./.env)"
    assert path_rule("read", ws.home / "n.txt", ws.root, ws.home) == "read(~/n.txt)"
    assert path_rule("edit", ws.root / "a[1]*.py", ws.root, ws.home) == "edit(./a[[]1][*].py)"
    escaped = parse_rule("edit(./a[[]1][*].py)")
    assert match_path(escaped.specifier, ws.root / "a[1]*.py", ws.root, ws.home)
    assert not match_path(escaped.specifier, ws.root / "a1x.py", ws.root, ws.home)


@pytest.mark.parametrize(("command", "rule"), [
    ("npm test -- -k x", "exec(npm test:*)"),
    ("npm run test:unit -- --ci", "exec(npm run test:unit:*)"),
    ("python -m pytest -q tests", "exec(python -m pytest:*)"),
    ("pytest -q tests/", "exec(pytest:*)"),
    ("git commit -m 'fix it'", "exec(git commit:*)"),
    ("cargo build --release", "exec(cargo build:*)"),
    ("rm -rf build", "exec(rm -rf build)"),
    ("python script.py --flag", "exec(python script.py:*)"),
    ("make", "exec(make:*)"),
])
def test_suggested_command_rules(command: str, rule: str) -> None:
    [simple] = analyse(command).commands
    assert suggest_rule("exec", simple) == rule


@pytest.mark.parametrize("command", ["npm test -- -k x", "git commit -m 'a b'", "make test",
                                     "python -m pytest -q", "touch 'a file.txt'",
                                     "node scripts/build.js --prod"])
def test_a_suggested_rule_allows_the_command_it_was_made_for(policy, command) -> None:
    asked = policy().judge(*call("exec", command=command))
    assert asked.verdict.decision == Decision.ASK and asked.rules
    allowed = policy(rules=tuple(("allow", r) for r in asked.rules)).judge(
        *call("exec", command=command))
    assert allowed.verdict.decision == Decision.ALLOW, (command, asked.rules)


def test_deny_beats_ask_beats_allow(policy) -> None:
    both = policy(rules=(("allow", "exec(git:*)"), ("ask", "exec(git push:*)"),
                         ("deny", "exec(git push --tags:*)")))
    assert both.judge(*call("exec", command="git commit -m x")).verdict.decision == \
        Decision.ALLOW
    assert both.judge(*call("exec", command="git push")).verdict.decision == Decision.ASK
    denied = both.judge(*call("exec", command="git push --tags")).verdict
    assert denied.decision == Decision.DENY and "exec(git push --tags:*)" in denied.reason
    files = policy(mode="accept-edits", rules=(("allow", "edit"), ("ask", "edit(src/**)"),
                                               ("deny", "edit(src/gen/**)")))
    assert files.judge(*call("edit", path="README.md")).verdict.decision == Decision.ALLOW
    assert files.judge(*call("edit", path="src/app.py")).verdict.decision == Decision.ASK
    assert files.judge(*call("write", path="src/gen/x.py")).verdict.decision == Decision.DENY


# ------------------------------------------------------------------------------------ modes


def test_default_mode_runs_reads_and_asks_for_the_rest(drive, ws) -> None:
    out = drive(("read", {"path": "src/app.py"}), ("search", {"pattern": "x"}),
                ("exec", {"command": "git status && ls -la src"}),
                ("edit", {"path": "src/app.py", "old": "hi", "new": "ho"}),
                ("exec", {"command": "npm test -- -k x"}))
    assert [name for name, _ in out.ran] == ["read", "search", "exec"]
    assert out.texts[3] == ("denied: writes src/app.py (edits ask in default mode); it needs the "
                            "user's approval and nobody can be asked in this run (allow it with "
                            "--allow 'edit(src/app.py)' or --permission-mode accept-edits)")
    assert out.texts[4] == ("denied: runs `npm test -- -k x` (commands ask in default mode); it "
                            "needs the user's approval and nobody can be asked in this run (allow "
                            "it with --allow 'exec(npm test:*)' or --permission-mode auto)")


def test_accept_edits_mode_runs_edits_inside_the_workspace(drive, ws) -> None:
    out = drive(("edit", {"path": "src/app.py"}), ("write", {"path": "new/file.txt"}),
                ("multiedit", {"edits": [{"path": "README.md"}, {"path": "src/app.py"}]}),
                ("apply_patch", {"patch": "--- a/src/app.py\n+++ b/src/app.py\n@@\n-x\n+y\n"}),
                ("write", {"path": str(ws.outside / "x.txt")}),
                ("exec", {"command": "make"}), mode="accept-edits")
    assert [name for name, _ in out.ran] == ["edit", "write", "multiedit", "apply_patch"]
    assert "outside the workspace" in out.texts[4] and "make" in out.texts[5]


def test_plan_mode_is_read_only(drive) -> None:
    out = drive(("read", {"path": "README.md"}), ("exec", {"command": "git log --oneline"}),
                ("edit", {"path": "src/app.py"}), ("exec", {"command": "npm install"}),
                ("exec", {"command": "python -c 'import os'"}), mode="plan")
    assert [name for name, _ in out.ran] == ["read", "exec"]
    for text in out.texts[2:]:
        assert text.startswith("denied: plan mode is read-only")
        assert "/permissions default" in text and "\n" not in text


def test_auto_mode_runs_everything_but_what_is_dangerous(drive) -> None:
    out = drive(("exec", {"command": "npm install && npm test"}), ("edit", {"path": "a.py"}),
                ("exec", {"command": "rm -rf src"}), mode="auto")
    assert [name for name, _ in out.ran] == ["exec", "edit"]
    assert out.texts[2].startswith("denied: dangerous: deletes folders recursively")


def test_the_mode_comes_from_the_flag_then_the_config(ws, driver) -> None:
    from chatcli import load_settings

    ws.user_config.write_text('[permissions]\nmode = "accept-edits"\n')
    merged = load_settings().plugin_table("permissions")
    from_config = driver(settings={"permissions": merged})
    state = from_config.plugin.state_for(from_config.session)
    assert (state.mode, state.mode_source) == ("accept-edits", "user config")
    flagged = driver(mode="plan", settings={"permissions": merged})
    state = flagged.plugin.state_for(flagged.session)
    assert (state.mode, state.mode_source) == ("plan", "--permission-mode")
    ws.user_config.unlink()
    plain = driver()
    assert plain.plugin.state_for(plain.session).mode == "default"


def test_a_project_may_choose_plan_but_not_auto(ws, driver) -> None:
    (ws.root / ".chatcli").mkdir()
    (ws.root / ".chatcli" / "config.toml").write_text('[permissions]\nmode = "auto"\n')
    loose = driver(settings={"permissions": {"mode": "auto"}})
    state = loose.plugin.state_for(loose.session)
    assert state.mode == "default" and any("may only choose" in n for n in state.notes)
    (ws.root / ".chatcli" / "config.toml").write_text('[permissions]\nmode = "plan"\n')
    strict = driver(settings={"permissions": {"mode": "plan"}})
    state = strict.plugin.state_for(strict.session)
    assert (state.mode, state.mode_source) == ("plan", "project config")


# ------------------------------------------------------------------------------------ sources


def test_rules_from_the_user_file_the_project_file_settings_and_flags(ws, driver) -> None:
    ws.user_config.write_text('[permissions]\nallow = ["exec(make:*)"]\n'
                              'deny = ["read(./secrets/**)"]\n')
    (ws.root / ".chatcli").mkdir()
    (ws.root / ".chatcli" / "config.toml").write_text(
        '[permissions]\nallow = ["exec(curl:*)", "edit"]\nask = ["exec(make deploy:*)"]\n'
        'deny = ["exec(npm publish:*)"]\n')
    session = driver(allow=frozenset({"exec(npm test:*)", "write"}),
                     settings={"permissions": {"allow": ["exec(cargo build:*)"]}})
    state = session.plugin.state_for(session.session)
    sources = {(r.effect, r.text): r.source for r in state.policy.rules}
    assert sources == {
        ("allow", "exec(make:*)"): "user config",
        ("deny", "read(./secrets/**)"): "user config",
        ("ask", "exec(make deploy:*)"): "project config",
        ("deny", "exec(npm publish:*)"): "project config",
        ("allow", "exec(cargo build:*)"): "settings",
        ("allow", "exec(npm test:*)"): "--allow",
    }
    assert any("ignored 2 allow rule(s) in the project config" in n for n in state.notes)
    out = session.turn(("exec", {"command": "make"}), ("exec", {"command": "make deploy"}),
                       ("exec", {"command": "curl https://x"}), ("exec", {"command": "npm test"}),
                       ("exec", {"command": "cargo build"}), ("edit", {"path": "README.md"}),
                       ("exec", {"command": "cat secrets/key.txt"}))
    assert [a["command"] if n == "exec" else n for n, a in out.ran] == [
        "make", "npm test", "cargo build", "edit"]
    assert "the rule exec(make deploy:*) (project config) asks" in out.texts[1]
    assert "denies" in out.texts[6] and "read(./secrets/**) (user config)" in out.texts[6]


def test_bad_rules_are_noted_and_skipped(ws, driver) -> None:
    ws.user_config.write_text('[permissions]\nallow = ["exec(", 3, "read"]\n')
    session = driver()
    state = session.plugin.state_for(session.session)
    assert [r.text for r in state.policy.rules] == ["read"]
    assert len([n for n in state.notes if n.startswith("ignored")]) == 2


def test_risk_classes_from_allow(drive) -> None:
    out = drive(("edit", {"path": "a.py"}), ("exec", {"command": "make"}),
                allow=frozenset({"write"}))
    assert [n for n, _ in out.ran] == ["edit"]
    out = drive(("exec", {"command": "make"}), ("exec", {"command": "git push -f"}),
                allow=frozenset({"execute"}))
    assert [n for n, _ in out.ran] == ["exec"] and "dangerous" in out.texts[1]


# ------------------------------------------------------------------------------------ answers


def test_a_session_answer_is_remembered_for_the_session_only(ws, driver) -> None:
    approver = Recorder(answers=[Approval(True, scope="session")])
    session = driver(interactive=True, approver=approver)
    first = session.turn(("exec", {"command": "npm test -- -k a"}))
    assert len(first.ran) == 1 and approver.questions[0][3] == "exec(npm test:*)"
    assert approver.questions[0][2] == "runs `npm test -- -k a` (commands ask in default mode)"
    second = session.turn(("exec", {"command": "npm test -- -k b"}))
    assert len(second.ran) == 1 and len(approver.questions) == 1
    assert not ws.user_config.exists() or "npm test" not in ws.user_config.read_text()
    other = driver(interactive=True, approver=Recorder())
    assert other.turn(("exec", {"command": "npm test"})).ran == []


def _saved() -> dict:
    """The rules saved for each project ("always" answers), by project root."""
    import json

    from chatcli_agent.permissions.state import project_rules_path

    path = project_rules_path()
    return json.loads(path.read_text())["projects"] if path.exists() else {}


def test_an_always_answer_is_saved_for_this_project_only(ws, driver) -> None:
    import os

    ws.user_config.write_text('# my settings\n[permissions]\nallow = ["exec(make:*)"]  # keep\n')
    before = ws.user_config.read_text()
    approver = Recorder(answers=[Approval(True, scope="always")])
    session = driver(interactive=True, approver=approver)
    session.turn(("edit", {"path": "src/app.py"}))
    # not in the user config (it would hold in every project)...
    assert ws.user_config.read_text() == before
    # ...but for this project, in the user's own config folder, and the person is told where
    from chatcli_agent.permissions.state import project_rules_path

    root = os.path.realpath(ws.root)
    assert _saved() == {root: {"allow": ["edit(src/app.py)"]}}
    path = project_rules_path()
    assert path.parent == ws.user_config.parent and path.stat().st_mode & 0o777 == 0o600
    assert (f"permissions: saved edit(src/app.py) for this project ({root}) in {path}; other "
            "projects still ask (/permissions lists the rules)") in session.warnings
    later = driver(interactive=True, approver=Recorder())
    assert [n for n, _ in later.turn(("edit", {"path": "src/app.py"})).ran] == ["edit"]
    assert later.turn(("edit", {"path": "src/other.py"})).ran == []
    lines = describe(later.plugin.state_for(later.session))
    assert "  edit(src/app.py)  (saved for this project)" in lines
    assert any(str(path) in line for line in lines)
    # another project asks again
    other = ws.root.parent / "other"
    (other / "src").mkdir(parents=True)
    (other / "src" / "app.py").write_text("x\n")
    # (the classes of this folder's conftest: `from conftest import` may find another folder's)
    elsewhere = type(session)(type(ws)(other, ws.home, ws.outside), interactive=True,
                              approver=Recorder())
    try:
        assert elsewhere.turn(("edit", {"path": "src/app.py"})).ran == []
        assert len(elsewhere.approver.questions) == 1
    finally:
        elsewhere.close()


#: What a cloned repository may ship to try to allow itself what only the person may: each
#: row a file in the project and its text. None of them may make the edit or the command run
#: without asking.
PLANTED = [
    (".chatcli/project-permissions.json",
     '{"projects": {"{root}": {"allow": ["exec(make:*)", "edit(src/app.py)"]}}}'),
    ("project-permissions.json",
     '{"projects": {"{root}": {"allow": ["exec(make:*)", "edit(src/app.py)"]}}}'),
    (".chatcli/config.toml", '[permissions]\nallow = ["exec(make:*)"]\n'),
    (".chatcli/config.toml", 'config_dir = "."\n[permissions]\nallow = ["exec(make:*)"]\n'),
]


@pytest.mark.parametrize(("name", "text"), PLANTED)
def test_a_project_cannot_plant_rules_saved_for_it(ws, driver, name, text) -> None:
    import os

    ws.file(name, text.replace("{root}", os.path.realpath(ws.root)))
    session = driver(interactive=True, approver=Recorder())
    assert session.turn(("exec", {"command": "make"})).ran == []
    assert len(session.approver.questions) == 1


def test_a_broken_file_of_saved_rules_is_noted_and_an_always_answer_still_holds(
        ws, driver) -> None:
    from chatcli_agent.permissions.state import project_rules_path

    project_rules_path().parent.mkdir(parents=True, exist_ok=True)
    project_rules_path().write_text("{not json")
    session = driver(interactive=True, approver=Recorder(answers=[Approval(True, "always")]))
    assert len(session.turn(("edit", {"path": "src/app.py"})).ran) == 1
    assert project_rules_path().read_text() == "{not json"  # left alone
    assert session.warnings[0].startswith("permissions: could not save edit(src/app.py) for "
                                          "this project: ")
    assert session.warnings[0].endswith("allowed for this session only")
    assert len(session.turn(("edit", {"path": "src/app.py"})).ran) == 1  # this session


def test_a_once_answer_is_not_remembered_and_a_no_says_why(driver) -> None:
    approver = Recorder(answers=[Approval(True, scope="once"),
                                 Approval(False, reason="use make instead")])
    session = driver(interactive=True, approver=approver)
    assert len(session.turn(("exec", {"command": "npm test"})).ran) == 1
    refused = session.turn(("exec", {"command": "npm test"}))
    assert refused.ran == [] and refused.texts == ["denied by the user: use make instead"]
    assert len(approver.questions) == 2


def test_an_answer_for_several_parts_saves_every_rule(ws, driver) -> None:
    approver = Recorder(answers=[Approval(True, scope="always")])
    session = driver(interactive=True, approver=approver)
    session.turn(("exec", {"command": "npm test > out.txt && make"}))
    assert approver.questions[0][3] == "edit(./out.txt), exec(npm test:*), exec(make:*)"
    import os

    saved = _saved()[os.path.realpath(ws.root)]["allow"]
    assert saved == ["edit(./out.txt)", "exec(npm test:*)", "exec(make:*)"]


# ------------------------------------------------------------------------------------ /permissions


class FakeApp:
    def __init__(self, session) -> None:
        from rich.console import Console

        self.out = io.StringIO()
        self.console = Console(file=self.out, width=200, color_system=None)
        self.session = session

    def lines(self) -> list[str]:
        text, self.out = self.out.getvalue(), io.StringIO()
        self.console.file = self.out
        return text.splitlines()


def _command(plugin):
    registered = []
    plugin.register_slash_commands(registered.append)
    [command] = registered
    return command


def test_slash_permissions_shows_switches_and_cycles(ws, driver) -> None:
    ws.user_config.write_text('[permissions]\ndeny = ["read(./secrets/**)"]\n')
    session = driver(allow=frozenset({"exec(npm test:*)"}))
    command = _command(session.plugin)
    app = FakeApp(session.session)
    command.run(app, "")
    shown = app.lines()
    assert shown[0].startswith("permission mode: default (")
    assert "  read(./secrets/**)  (user config)" in shown
    assert "  exec(npm test:*)  (--allow)" in shown
    command.run(app, "cycle")
    assert app.lines() == ["permission mode: accept-edits (file edits inside the workspace run "
                           "without asking too)"]
    command.run(app, "cycle")
    assert app.lines()[0].startswith("permission mode: plan")
    command.run(app, "cycle")
    assert app.lines()[0].startswith("permission mode: default")
    command.run(app, "auto")
    assert session.turn(("exec", {"command": "make"})).ran  # the switch holds for turns
    command.run(app, "cycle")
    command.run(app, "nonsense")
    assert "unknown mode" in app.lines()[-1]
    assert command.complete(app, "a") == ["accept-edits", "auto"]


def test_describe_lists_notes_and_allowed_folders(ws, driver) -> None:
    session = driver(settings={"allowed_dirs": [str(ws.outside)]})
    lines = describe(session.plugin.state_for(session.session))
    assert any(str(ws.outside) in line for line in lines)


def test_allowed_dirs_are_inside(drive, ws) -> None:
    out = drive(("read", {"path": str(ws.outside / "data.txt")}),
                ("exec", {"command": f"cat {ws.outside}/data.txt"}),
                settings={"allowed_dirs": [str(ws.outside)]})
    assert [n for n, _ in out.ran] == ["read", "exec"]


# ------------------------------------------------------------------------------------ other plugins


class Answering:
    def __init__(self, answer) -> None:
        self.answer = answer

    @hookimpl
    def authorize_tool_call(self, call, tool, context):
        return self.answer


def test_another_plugins_allow_cannot_pass_a_dangerous_call(drive) -> None:
    out = drive(("exec", {"command": "rm -rf src"}), ("exec", {"command": "make"}),
                ("read", {"path": ".env"}), plugins=(Answering(Decision.ALLOW),))
    assert [a["command"] for _, a in out.ran] == ["make"]
    assert "dangerous" in out.texts[0] and "credential" in out.texts[2]


def test_another_plugins_deny_or_ask_holds(drive) -> None:
    out = drive(("read", {"path": "README.md"}),
                plugins=(Answering(Verdict(Decision.DENY, "blocked by a hook")),))
    assert out.ran == [] and out.texts == ["denied: blocked by a hook"]
    out = drive(("read", {"path": "README.md"}),
                plugins=(Answering(Verdict(Decision.ASK, "a hook wants to know")),))
    assert out.ran == [] and out.texts[0].startswith("denied: a hook wants to know; it needs")


def test_other_tools_follow_their_risk_and_rules(policy) -> None:
    from chatcli import Risk, ToolCallPart, ToolSpec

    mcp = ToolSpec("mcp__github__create_issue", "", risk=Risk.NETWORK, subject="title")
    ask = policy().judge(ToolCallPart(name=mcp.name, arguments={"title": "x"}), mcp)
    assert ask.verdict.decision == Decision.ASK
    assert ask.verdict.rule == "mcp__github__create_issue(x)"
    for rule in ("mcp__github", "mcp__github__create_issue", "mcp__github__create_issue(x)"):
        allowed = policy(rules=(("allow", rule),)).judge(
            ToolCallPart(name=mcp.name, arguments={"title": "x"}), mcp)
        assert allowed.verdict.decision == Decision.ALLOW, rule
    assert policy(mode="plan").judge(ToolCallPart(name=mcp.name, arguments={}), mcp
                                     ).verdict.decision == Decision.DENY
    assert policy().judge(*call("git", action="status")).verdict.decision == Decision.ALLOW
    assert policy().judge(*call("git", action="log", path="/etc")).verdict.decision == \
        Decision.ASK
    assert policy().judge(*call("test")).verdict.decision == Decision.ASK
    assert policy(rules=(("allow", "exec(pytest:*)"),)).judge(
        *call("test", command="pytest -q")).verdict.decision == Decision.ALLOW
    assert policy().judge(*call("exec", command="ls", network=True)).verdict.decision == \
        Decision.ASK
    assert policy(classes=("network",)).judge(*call("exec", command="ls", network=True)
                                              ).verdict.decision == Decision.ALLOW


def test_the_entry_module_is_light_and_registers_the_hooks() -> None:
    import subprocess
    import sys

    code = ("import sys, chatcli_agent.permissions.plugin as p; "
            "assert 'tree_sitter' not in sys.modules and 'chatcli_agent.permissions.policy' "
            "not in sys.modules; print(sorted(n for n in ('configure', 'session_start', "
            "'authorize_tool_call', 'tool_call_decided', 'register_slash_commands') "
            "if hasattr(getattr(p, n), 'chatcli_impl')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parent)
    assert out.stdout.strip() == str(sorted(["authorize_tool_call", "configure",
                                             "register_slash_commands", "session_start",
                                             "tool_call_decided"]))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(st.text(st.characters(exclude_categories=()), max_size=20),
                                 max_size=4), min_size=1, max_size=3))
def test_rules_saved_for_a_project_come_back_as_they_were(ws, batches) -> None:
    import os

    from chatcli_agent.permissions.state import (
        project_rules_path,
        save_project_allow_rules,
        saved_project_rules,
    )

    project_rules_path().unlink(missing_ok=True)
    expected: list[str] = []
    for rules in batches:
        root, path = save_project_allow_rules(ws.root, rules)
        expected += [r for r in rules if r not in expected]
    assert root == os.path.realpath(ws.root)
    assert saved_project_rules(ws.root) == (root, expected)
    if expected:
        assert path.stat().st_mode & 0o777 == 0o600


def test_rules_saved_at_once_by_several_sessions_are_all_kept(ws) -> None:
    import threading

    from chatcli_agent.permissions.state import save_project_allow_rules, saved_project_rules

    start = threading.Barrier(8)

    def save(number: int) -> None:
        start.wait()
        for step in range(5):
            save_project_allow_rules(ws.root, [f"exec(tool{number}-{step}:*)"])

    threads = [threading.Thread(target=save, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _, saved = saved_project_rules(ws.root)
    assert sorted(saved) == sorted(f"exec(tool{n}-{s}:*)" for n in range(8) for s in range(5))
