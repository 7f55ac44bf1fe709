"""The ``context_pull`` kinds ``skills`` and ``skill``, fetched directly: the catalog with
descriptions, a skill's block (what a turn injects), one of its files, and errors the model can
act on."""

from __future__ import annotations

import shutil

import pytest
from chatcli_skills.pull import SkillPullError
from skills_support import FIXTURES, pull_kinds, write_skill


@pytest.fixture
def kinds(chat, user_skills):
    shutil.copytree(FIXTURES, user_skills, dirs_exist_ok=True)
    c = chat()
    context = c.session.engine.tool_context()
    found = pull_kinds(c.host)
    return (lambda kind, **arguments: found[kind].fetch(arguments, context)), c


def test_the_kinds_are_registered_with_their_arguments(kinds):
    _, c = kinds
    found = pull_kinds(c.host)
    assert found["skill"].arguments.startswith("name: the skill; file (optional)")
    assert found["skills"].description.startswith("the installed skills")


def test_skills_lists_what_the_model_may_use(kinds, user_skills):
    fetch, _ = kinds
    text = fetch("skills")
    lines = text.splitlines()
    assert lines[0] == '5 skills; load one with context_pull {"kind": "skill", "name": "<name>"}:'
    assert [line.split()[1] for line in lines[1:]] == ["docx", "mcp-builder", "pdf",
                                                       "skill-creator", "web-app-testing"]
    assert "explain-code" not in text  # the user runs it; the model does not
    assert f"(location: {user_skills}/pdf/SKILL.md) [the user can run /pdf]" in text


def test_skill_returns_its_block(kinds, user_skills):
    fetch, c = kinds
    block = fetch("skill", name="pdf")
    skill = c.skills.core.catalog().skills["pdf"]
    assert block == skill.block()
    assert fetch("skill", name="PDF") == block  # case does not matter
    assert fetch("skill", name="mcp") == fetch("skill", name="mcp-builder")  # a unique prefix


def test_skill_returns_one_of_its_files(kinds, user_skills):
    fetch, _ = kinds
    assert fetch("skill", name="pdf", file="forms.md") == (
        user_skills / "pdf" / "forms.md").read_text()
    assert fetch("skill", name="mcp-builder", file="references/mcp_best_practices.md"
                 ).startswith("# MCP best practices")


@pytest.mark.parametrize("arguments, message", [
    ({}, 'say which skill: {"kind": "skill", "name": "<name>"} (the skills: docx, '),
    ({"name": "pfd"}, "no skill named 'pfd'; did you mean pdf?"),
    ({"name": "explain-code"}, "skill 'explain-code' is run by the user only "
                               "(/skill explain-code); do not load it yourself"),
    ({"name": "pdf", "file": "form.md"}, "skill 'pdf' has no file 'form.md'; did you mean "
                                         "forms.md"),
    ({"name": "pdf", "file": "../docx/SKILL.md"}, "'../docx/SKILL.md' is outside skill "
                                                  "'pdf''s folder"),
])
def test_errors_say_what_to_do(kinds, arguments, message):
    fetch, _ = kinds
    with pytest.raises(SkillPullError) as caught:
        fetch("skill", **arguments)
    assert str(caught.value).startswith(message), str(caught.value)


def test_an_untrusted_projects_skill_is_refused_with_the_way_to_trust_it(chat,
                                                                        project_skills):
    write_skill(project_skills, "deploy")
    c = chat()
    with pytest.raises(SkillPullError, match="the user can trust it with /skills trust"):
        pull_kinds(c.host)["skill"].fetch({"name": "deploy"},
                                           c.session.engine.tool_context())


def test_a_long_body_comes_in_pages(chat, user_skills):
    write_skill(user_skills, "long", "x" * 5_000)
    c = chat()
    context = c.session.engine.tool_context()
    context.max_output = 1_300
    kind = pull_kinds(c.host)["skill"]
    first = kind.fetch({"name": "long"}, context)
    assert first.endswith('the next page: context_pull {"kind": "skill", "name": "long", '
                          '"offset": 1000}]')
    rest = kind.fetch({"name": "long", "offset": 1000}, context)
    assert rest.startswith("x")
