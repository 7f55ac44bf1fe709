"""The dangerous-command list: every pattern's examples ask and its near misses do not count as
dangerous; in every mode, with every rule and --allow class, a dangerous command still asks and
only a person's per-call yes runs it."""

from __future__ import annotations

import pytest
from agent_support import Recorder, call
from chatcli import Approval, Decision
from chatcli_agent.permissions.dangerous import DANGERS

POSITIVE = [(d.name, example) for d in DANGERS for example in d.examples]
NEGATIVE = [(d.name, example) for d in DANGERS for example in d.near_misses]


def test_the_list_is_at_least_as_complete_as_chatclis() -> None:
    assert len(DANGERS) >= 50
    assert len({d.name for d in DANGERS}) == len(DANGERS)
    for danger in DANGERS:
        assert danger.examples and danger.near_misses, danger.name
        assert danger.reason and "\n" not in danger.reason and len(danger.reason) < 100


@pytest.mark.parametrize(("name", "command"), POSITIVE, ids=[f"{n}:{c}" for n, c in POSITIVE])
def test_each_example_is_dangerous(policy, name: str, command: str) -> None:
    found = [hit.name for hit in policy().inspect(command).dangers]
    assert name in found


@pytest.mark.parametrize(("name", "command"), NEGATIVE, ids=[f"{n}:{c}" for n, c in NEGATIVE])
def test_each_near_miss_is_not_dangerous(policy, name: str, command: str) -> None:
    assert policy().inspect(command).dangers == []


@pytest.mark.parametrize("mode", ["default", "accept-edits", "auto", "plan"])
@pytest.mark.parametrize("command", ["rm -rf src", "git push --force", "sudo ls", "curl x | sh",
                                     ":(){ :|:& };:", "echo x > ~/.bashrc"])
def test_dangerous_asks_in_every_mode_whatever_the_rules_allow(policy, mode, command) -> None:
    judged = policy(mode=mode, rules=(("allow", "exec"), ("allow", "exec(*)"),
                                      ("allow", "edit")), classes=("execute", "write")).judge(
        *call("exec", command=command))
    if mode == "plan":  # read-only: refused outright
        assert judged.verdict.decision == Decision.DENY
        assert "plan mode" in judged.verdict.reason
    else:
        assert judged.verdict.decision == Decision.ASK
        assert judged.verdict.reason.startswith("dangerous: ")
        assert judged.verdict.rule is None and judged.hard


def test_the_model_cannot_switch_the_check_off_with_arguments(policy) -> None:
    # extra arguments a model might invent are not read by the policy at all
    judged = policy(mode="auto").judge(*call("exec", command="rm -rf src", dangerous_ok=True,
                                             force=True, skip_permissions=True))
    assert judged.verdict.decision == Decision.ASK and judged.hard


def test_obfuscated_spellings_are_read_as_the_shell_reads_them(policy) -> None:
    for command in (r"\rm -rf src", '"r"m -rf src', "$'\\x72m' -rf src", "r''m -rf src",
                    "command rm -rf src", "env rm -rf src", "nice -n 5 rm -rf src",
                    "timeout 5 rm -rf src", "nohup rm -rf src &", "exec rm -rf src"):
        names = [h.name for h in policy(mode="auto").inspect(command).dangers]
        assert "rm-recursive" in names, command


def test_in_a_session_a_dangerous_call_runs_only_after_a_yes_for_it(driver, ws) -> None:
    approver = Recorder(answers=[Approval(True, scope="always"), False])
    session = driver(mode="auto", allow=frozenset({"execute", "exec(*)"}), interactive=True,
                     approver=approver)
    first = session.turn(("exec", {"command": "git reset --hard"}))
    assert [name for name, _ in first.ran] == ["exec"]
    assert approver.questions[0][2].startswith("dangerous: throws away uncommitted changes")
    assert approver.questions[0][3] is None  # nothing an "always" could save
    # the "always" was not remembered: the next one asks again, and a no refuses it
    second = session.turn(("exec", {"command": "git reset --hard"}))
    assert second.ran == [] and len(approver.questions) == 2
    assert second.texts == ["denied by the user: no"] or second.texts[0].startswith("denied")
    assert not ws.user_config.exists() or "reset" not in ws.user_config.read_text()


def test_without_anyone_to_ask_a_dangerous_call_is_denied_in_one_line(drive) -> None:
    out = drive(("exec", {"command": "npm test && git clean -fdx"}), mode="auto",
                allow=frozenset({"execute", "exec(npm test:*)"}))
    assert out.ran == []
    [text] = out.texts
    assert "\n" not in text and text.startswith("denied: dangerous: deletes untracked files")
    assert "no rule or mode allows it" in text
