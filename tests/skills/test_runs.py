"""Skills in runs of many model calls (what ``/agent`` and ``/coder`` make): a ``paths`` glob
matched by a file a tool call touches fires mid-run, its body riding on that tool result; a
skill fires at most once per run; old bodies age to a stub that says how to read them again."""

from __future__ import annotations

import pytest
from chatcli_skills.inject import NOTICE
from chatcli_testing import Reply, ToolCall
from skills_support import PullTool, ReadTool, conversation_text, messages_of, write_skill

PY_BODY = "Use type hints and pathlib in every Python module. (PY-SENTINEL)"


@pytest.fixture
def python_style(user_skills):
    return write_skill(user_skills, "python-style", f"# Python style\n\n{PY_BODY}\n",
                       paths=["**/*.py"])


def _read(path):
    return Reply(tool_calls=[ToolCall("read", {"path": path})])


def test_a_path_a_tool_call_touches_fires_the_skill_on_that_result(chat, python_style,
                                                                  workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('hi')\n")
    c = chat(plugins=(PullTool(), ReadTool(workspace)))
    c.turn("look at the app", _read("src/app.py"), _read("src/app.py"), "It prints hi.")
    first, second, third = c.server.requests
    assert PY_BODY not in conversation_text(first)
    tool = [text for role, text in messages_of(second) if role == "tool"]
    assert tool[-1].startswith("print('hi')\n\n\n[chatcli skills")
    assert 'Skill "python-style" applies (this turn touches src/app.py).' in tool[-1]
    assert PY_BODY in tool[-1]
    # at most once per run: the second read of a .py file adds nothing
    assert conversation_text(third).count(PY_BODY) == 1
    assert conversation_text(third).count('Skill "python-style" applies') == 1


def test_a_path_in_the_message_fires_the_skill_at_once(chat, python_style, workspace):
    c = chat()
    c.turn("why does @src/tool.py fail?")
    assert 'applies (this turn touches src/tool.py)' in messages_of(c.server.requests[0])[-1][1]
    c.turn("and /abs/elsewhere/thing.py?")
    assert NOTICE in messages_of(c.server.requests[1])[-1][1]


def test_absolute_paths_inside_the_workspace_match_relative_globs(chat, user_skills,
                                                                 workspace):
    write_skill(user_skills, "api", "API rules (API-SENTINEL).", paths=["src/api/**"])
    c = chat()
    c.turn(f"open {workspace}/src/api/routes.py")
    assert "API-SENTINEL" in conversation_text(c.server.requests[0])


def test_bodies_age_to_a_stub_in_a_long_run(chat, python_style, workspace, user_skills):
    for name in "abc":
        (workspace / f"{name}.py").write_text(f"{name} = 1\n")
    c = chat(plugins=(PullTool(), ReadTool(workspace)), skills={"age_after": 2})
    c.turn("check a.py", _read("b.py"), _read("c.py"), _read("a.py"), "done")
    requests = c.server.requests
    assert len(requests) == 4
    assert PY_BODY in conversation_text(requests[0])
    assert PY_BODY in conversation_text(requests[1])
    aged = conversation_text(requests[2])
    assert PY_BODY not in aged
    assert ('[skill "python-style": its instructions were given here earlier in this run and '
            "are shortened now to save context; to read them again, call context_pull with "
            '{"kind": "skill", "name": "python-style"}]') in aged
    # the stub stays (the same bytes from then on), and counts as no copy: a later match
    # injects the body again
    assert conversation_text(requests[3]).count("[skill \"python-style\"") == 1
    c.turn("and a.py again?")
    assert PY_BODY in messages_of(c.server.requests[4])[-1][1]


def test_age_after_zero_never_ages(chat, python_style, workspace):
    for index in range(8):
        (workspace / f"m{index}.py").write_text("x = 1\n")
    c = chat(plugins=(PullTool(), ReadTool(workspace)), skills={"age_after": 0})
    c.turn("check m0.py", *[_read(f"m{i}.py") for i in range(8)], "done")
    assert len(c.server.requests) == 9
    assert PY_BODY in conversation_text(c.server.requests[-1])


def test_a_skill_fires_once_per_run_even_when_the_trigger_and_the_path_both_match(
        chat, user_skills, workspace):
    write_skill(user_skills, "both", "BOTH-SENTINEL", triggers=["lint"], paths=["*.py"])
    (workspace / "x.py").write_text("x = 1\n")
    c = chat(plugins=(PullTool(), ReadTool(workspace)))
    c.turn("lint x.py", _read("x.py"), "clean")
    assert conversation_text(c.server.requests[1]).count("BOTH-SENTINEL") == 1
    assert conversation_text(c.server.requests[1]).count('Skill "both" applies') == 1


def test_a_run_with_the_text_tool_protocol_fires_each_skill_once(chat, python_style,
                                                                 user_skills, workspace):
    """Tool results reach a model without native tools as user text: they are not the run's
    prompt, so the run (and what fired in it) holds across its calls."""
    write_skill(user_skills, "review", "REVIEW-SENTINEL", triggers=["review"])
    (workspace / "a.py").write_text("a = 1\n")
    (workspace / "b.py").write_text("b = 2\n")
    c = chat(plugins=(PullTool(), ReadTool(workspace)), provider_options={"tool_calls": "text"})
    c.turn("review the code",
           Reply(text="<tool_call name=\"read\" args='{\"path\": \"a.py\"}'/>"),
           Reply(text="<tool_call name=\"read\" args='{\"path\": \"b.py\"}'/>"),
           "Looks fine.")
    last = c.server.requests[-1]
    assert len(c.server.requests) == 3
    text = conversation_text(last)
    assert text.count("REVIEW-SENTINEL") == 1 and text.count(PY_BODY) == 1
    assert text.count("applies (") == 2 and NOTICE not in text
    assert "tools" not in last.json
