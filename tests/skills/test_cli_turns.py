"""Skills through the real command line against the OpenAI wire server: ``chatcli -p`` injects a
matching skill; ``chatcli -c -p`` (a session loaded by chatcli-sessions in a new process, whose
store never held the injected text) gets the body again; ``/skill NAME`` and ``/NAME`` run from
the shell; the core pack's skills activate by their triggers."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli_skills.inject import NOTICE
from skills_support import conversation_text, messages_of, run_cli, write_skill

BODY = "Keep the summary line under 60 characters. (CLI-SENTINEL)"


@pytest.fixture
def env(openai_server: Any) -> dict[str, str]:
    return {"OPENAI_BASE_URL": openai_server.url, "OPENAI_API_KEY": "sk-test",
            "CHATCLI_PROVIDER": "openai", "CHATCLI_MODEL": "m"}


@pytest.fixture
def commit(user_skills):
    return write_skill(user_skills, "commit", f"# Commits\n\n{BODY}\n",
                       triggers=["commit message"])


def test_a_one_shot_run_injects_the_matching_skill(openai_server, env, workspace, commit):
    openai_server.script("Fix the parser")
    done = run_cli("-p", "write a commit message for this", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Fix the parser"
    last = messages_of(openai_server.requests[0])[-1][1]
    assert last.startswith("write a commit message for this\n\n[chatcli skills")
    assert BODY in last


def test_a_continued_session_gets_the_body_again(openai_server, env, workspace, commit):
    openai_server.script("first", "second", "third")
    assert run_cli("-p", "a commit message please", cwd=workspace, env=env).returncode == 0
    done = run_cli("-c", "-p", "another commit message", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    resumed = openai_server.requests[1]
    # the stored log has what the user typed; the body comes back with the new message
    assert messages_of(resumed)[0] == ("user", "a commit message please")
    assert conversation_text(resumed).count(BODY) == 1
    assert BODY in messages_of(resumed)[-1][1]


def test_skill_name_from_the_shell(openai_server, env, workspace, commit):
    openai_server.script("done")
    done = run_cli("-p", "/skill commit fix the typo in the README", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    last = messages_of(openai_server.requests[0])[-1][1]
    assert last.startswith("fix the typo in the README\n\n")
    assert BODY in last


def test_slash_name_from_the_shell(openai_server, env, workspace, commit):
    openai_server.script("done")
    done = run_cli("-p", "/commit the parser fix", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert BODY in messages_of(openai_server.requests[0])[-1][1]


def test_the_core_packs_skills_activate_by_their_triggers(openai_server, env, workspace):
    openai_server.script("ok")
    done = run_cli("-p", "Please do a code review of my change", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    request = openai_server.requests[0]
    last = messages_of(request)[-1][1]
    assert 'Skill "code-review" applies (the message mentions "code review").' in last
    assert "# Code review" in last and "references/checklist.md" in last
    system = request.json["messages"][0]["content"]
    for name in ("code-review", "commit-message", "debugging", "writing-tests"):
        assert f"- {name}: " in system
    assert NOTICE not in last
