"""The user's side: ``/skill NAME [ARGS]`` and ``/NAME`` activate a skill for a turn, ``/skill
pin`` puts it in the cached system prompt, ``/skills`` lists them and ``/skills trust`` trusts the
project; the catalog is a stable section, byte-identical turn after turn."""

from __future__ import annotations

import json

import pytest
from chatcli_skills.commands import RESERVED
from chatcli_skills.inject import NOTICE
from skills_support import FIXTURES, conversation_text, messages_of, system_of, write_skill


@pytest.fixture
def explain(user_skills):
    """A user-only skill taking arguments (Claude Code's documented example)."""
    import shutil

    shutil.copytree(FIXTURES / "explain-code", user_skills / "explain-code")
    return user_skills / "explain-code"


def test_skill_name_args_activates_it_with_the_arguments(chat, explain):
    c = chat()
    c.command("/skill explain-code the retry loop")
    request = c.server.requests[0]
    last = messages_of(request)[-1][1]
    assert last.startswith("the retry loop\n\n[chatcli skills")
    assert ('Skill "explain-code" applies (the user asked for it with /skill explain-code).'
            in last)
    assert "When explaining code for the retry loop, always include:" in last
    # a user-only skill is not in the model's catalog
    assert "explain-code" not in system_of(request)


def test_slash_name_runs_a_user_invocable_skill(chat, user_skills):
    write_skill(user_skills, "release-notes", "Group the changes by type. (RN-SENTINEL)",
                argument_hint="[version]")
    write_skill(user_skills, "hidden", user_invocable=False)
    write_skill(user_skills, "clear", "A skill named like a command.")
    c = chat()
    commands = c.host.slash_commands()
    assert commands["release-notes"].help.startswith("skill [version]: The release-notes")
    assert "hidden" not in commands
    assert "clear" not in commands and "clear" in RESERVED  # never shadows a command
    c.command("/release-notes")
    last = messages_of(c.server.requests[0])[-1][1]
    assert last.startswith("Use the release-notes skill.\n\n") and "RN-SENTINEL" in last
    c.command("/skill hidden go")  # /skill reaches every skill
    assert "Follow the hidden steps." in messages_of(c.server.requests[1])[-1][1]


def test_invoking_a_skill_whose_body_is_above_gives_the_notice(chat, user_skills):
    write_skill(user_skills, "style", "STYLE-SENTINEL")
    c = chat()
    c.command("/skill style check the module")
    c.command("/skill style check another")
    assert conversation_text(c.server.requests[1]).count("STYLE-SENTINEL") == 1
    assert NOTICE in messages_of(c.server.requests[1])[-1][1]


def test_an_unknown_skill_is_named_with_a_suggestion(chat, user_skills):
    write_skill(user_skills, "commit")
    c = chat()
    out = c.command("/skill comit now")
    assert out.strip() == "no skill named 'comit' — did you mean commit?"
    assert c.server.requests == []


def test_pinned_skills_live_in_the_stable_prefix(chat, user_skills):
    write_skill(user_skills, "house", "HOUSE-SENTINEL", triggers=["house"])
    c = chat()
    assert c.command("/skill pin house").startswith("pinned house")
    c.turn("the house rules?")
    c.turn("house again")
    first, second = c.server.requests
    system = system_of(first)
    assert "## Pinned skills" in system and "HOUSE-SENTINEL" in system
    # stable: before the volatile date, byte-identical on the next call
    assert system.index("HOUSE-SENTINEL") < system.index("Today is")
    assert system_of(second) == system
    # the trigger adds nothing: the body is in the system prompt already
    assert "HOUSE-SENTINEL" not in conversation_text(first)
    assert c.command("/skill pinned").strip() == "pinned: house"
    c.command("/skill unpin house")
    c.turn("house once more")
    assert "## Pinned skills" not in system_of(c.server.requests[2])
    assert "HOUSE-SENTINEL" in messages_of(c.server.requests[2])[-1][1]
    assert c.command("/skill pinned").strip() == "no skill is pinned (/skill pin NAME)"


def test_pins_can_come_from_the_settings(chat, user_skills):
    write_skill(user_skills, "house", "HOUSE-SENTINEL")
    c = chat(skills={"pinned": ["house"]})
    c.turn("hello")
    assert "HOUSE-SENTINEL" in system_of(c.server.requests[0])


def test_a_model_without_tools_gets_the_pinned_skill_but_no_catalog(chat, user_skills):
    # a lean request (a small model, [providers.NAME] tools = false): what the user pinned
    # stays, the catalog of what context_pull could fetch does not
    write_skill(user_skills, "house", "HOUSE-SENTINEL")
    write_skill(user_skills, "commit")
    c = chat(skills={"pinned": ["house"]}, provider_options={"tools": False})
    c.turn("hello")
    request = c.server.requests[0]
    assert "HOUSE-SENTINEL" in system_of(request)
    assert "tools" not in request.json and "commit" not in system_of(request)


def test_the_catalog_is_stable_and_names_the_pull_call(chat, user_skills):
    write_skill(user_skills, "alpha", description="Does alpha things. Use for alpha.")
    write_skill(user_skills, "beta", description="Does beta things.", triggers=["beta"])
    c = chat()
    c.turn("hello")
    c.turn("beta please")
    c.turn("bye")
    systems = [system_of(r) for r in c.server.requests]
    assert systems[0] == systems[1] == systems[2]
    catalog = systems[0][systems[0].index("## Skills"):systems[0].index("Today is")]
    assert 'call context_pull with {"kind": "skill", "name": "<name>"}' in catalog
    assert (f"- alpha: Does alpha things. Use for alpha. (location: {user_skills}/alpha/"
            "SKILL.md)") in catalog
    assert catalog.index("- alpha:") < catalog.index("- beta:")


def test_skills_lists_them(chat, user_skills, project_skills):
    write_skill(user_skills, "alpha")
    write_skill(project_skills, "local")
    out = chat().command("/skills")
    lines = out.splitlines()
    assert lines[0] == "skills (1 active, 1 untrusted):"
    assert lines[1].startswith("  alpha (user): The alpha skill.")
    assert lines[2] == "  local [untrusted project] (.chatcli/skills)"


def test_an_untrusted_projects_skill_stays_off_until_skills_trust(chat, project_skills,
                                                                 workspace, config):
    write_skill(project_skills, "deploy", "DEPLOY-SENTINEL", triggers=["deploy"])
    c = chat()
    assert not any("deploy" in w for w in c.warned)  # the kernel's one line names the files
    c.turn("deploy it")
    assert "DEPLOY-SENTINEL" not in conversation_text(c.server.requests[0])
    assert "deploy" not in system_of(c.server.requests[0])
    assert sum("project skill 'deploy' matches" in w for w in c.warned) == 1
    out = c.command("/skills trust")
    assert out.splitlines()[0] == f"trusted {workspace} for this session (/skills trust " \
                                  "always: for good)"
    c.turn("deploy it now")
    assert "DEPLOY-SENTINEL" in messages_of(c.server.requests[1])[-1][1]
    assert not (config / "config.toml").exists()


def test_skills_trust_always_trusts_the_project(chat, project_skills, workspace, config):
    write_skill(project_skills, "deploy")
    (config / "config.toml").write_text('# mine\nmodel = "m"\n')
    c = chat()
    record = config.parent / "data" / "trusted-projects.json"
    # chatcli -p "/skills trust always" (or a piped file starting so) never trusts by itself
    out = c.command("/skills trust always")
    assert out.startswith("not in a chat: nothing recorded; run `chatcli trust`")
    assert not record.exists() and not chat().skills.core.trusted()
    c.session.interactive = True  # a person at the chat
    out = c.command("/skills trust always")
    assert out.splitlines()[0].startswith(f"trusted {workspace} for good, as its files are now "
                                          "(1 file that change chatcli")
    assert (config / "config.toml").read_text() == '# mine\nmodel = "m"\n'  # not the config
    assert list(json.loads(record.read_text())["projects"]) == [str(workspace)]
    assert chat().skills.core.trusted()


def test_a_bad_setting_is_reported_once_and_the_default_used(chat, user_skills):
    write_skill(user_skills, "commit", "COMMIT-SENTINEL", triggers=["commit"])
    c = chat(skills={"budget": "lots"})
    c.turn("commit it")
    c.turn("commit again")
    assert c.warned.count("skills.budget must be a whole number ≥ 0, not 'lots'; "
                          "using 12,000") == 1
    assert "COMMIT-SENTINEL" in conversation_text(c.server.requests[0])
