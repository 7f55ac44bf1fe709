"""Loading skills leniently: a folder of real-world SKILL.md files (written in the style of
anthropics/skills and Claude Code's documentation: an over-long description, a name that
differs from its folder, an unquoted colon, an uppercase name, a missing description, scripts/,
references/ and loose files) loads with exactly the expected warnings; sources, precedence,
shadowing and project trust."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from chatcli_skills.sources import discover, source_folders
from chatcli_skills.trust import project_chain
from skills_support import FIXTURES, write_skill


def _relative(lines: list[str], root: Path) -> list[str]:
    return [line.replace(f"{root}/", "") for line in lines]


def test_the_public_skills_load_with_exactly_the_expected_warnings(user_skills, workspace):
    shutil.copytree(FIXTURES, user_skills, dirs_exist_ok=True)
    catalog = discover(workspace)
    assert sorted(catalog.skills) == ["docx", "explain-code", "mcp-builder", "pdf",
                                      "skill-creator", "web-app-testing"]
    assert _relative(catalog.skipped, user_skills) == [
        "brand-guidelines/SKILL.md: no description in the frontmatter; skipped (add "
        "'description: what it does and when to use it')"]
    assert _relative(catalog.warnings, user_skills) == [
        "docx/SKILL.md: name 'DOCX' is not 1-64 lowercase letters, digits and single hyphens; "
        "loaded as 'docx'",
        "mcp-builder/SKILL.md: line 3: unquoted colon in the value of 'description'; read it "
        "as text (quote the value)",
        "skill-creator/SKILL.md: description is 1,041 characters, over the limit of 1,024; "
        "loaded (the catalog shows the first 1,024)",
        "webapp-testing/SKILL.md: name 'web-app-testing' differs from its folder "
        "'webapp-testing'; loaded as 'web-app-testing'",
    ]


def test_what_a_loaded_skill_knows(user_skills, workspace):
    shutil.copytree(FIXTURES, user_skills, dirs_exist_ok=True)
    skills = discover(workspace).skills
    pdf = skills["pdf"]
    assert pdf.scripts == ("scripts/check_fillable_fields.py", "scripts/fill_fillable_fields.py")
    assert pdf.others == ("LICENSE.txt", "forms.md", "reference.md")
    assert pdf.scope == "user" and pdf.path == user_skills / "pdf" / "SKILL.md"
    assert pdf.body.lstrip().startswith("# PDF processing guide")
    assert skills["mcp-builder"].description.startswith("Guide for creating high-quality MCP")
    assert "Use when: building an MCP server" in skills["mcp-builder"].description
    assert skills["mcp-builder"].references == ("references/mcp_best_practices.md",)
    creator = skills["skill-creator"]
    assert len(creator.catalog_description()) == 1024 and creator.catalog_description()[-1] == "…"
    explain = skills["explain-code"]
    assert not explain.model_invocable and explain.user_invocable
    assert explain.allowed_tools == ("Read", "Grep", "Glob")
    assert explain.argument_hint == "[file or function]" and explain.model == "sonnet"
    assert "the target" in explain.expanded_body("the target")
    assert skills["web-app-testing"].folder.name == "webapp-testing"


def test_a_skill_block_names_its_files_and_its_fingerprint(user_skills, workspace):
    shutil.copytree(FIXTURES / "pdf", user_skills / "pdf")
    skill = discover(workspace).skills["pdf"]
    block = skill.block()
    assert block.startswith(f'<skill name="pdf" fingerprint="sha256:{skill.fingerprint[:16]}" '
                            f'location="{skill.path}">')
    assert "Scripts (run them with the exec tool; the permission rules apply): " \
           "scripts/check_fillable_fields.py, scripts/fill_fillable_fields.py" in block
    assert "Other files: LICENSE.txt, forms.md, reference.md" in block
    assert block.endswith("</skill>") and skill.block() == block


def test_editing_skill_md_changes_its_fingerprint(user_skills, workspace):
    folder = write_skill(user_skills, "notes", "First version.")
    before = discover(workspace).skills["notes"]
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "\nSecond line.\n")
    after = discover(workspace).skills["notes"]
    assert before.fingerprint != after.fingerprint and "Second line." in after.body


def test_a_file_added_to_a_skill_is_listed_at_once(user_skills, workspace):
    folder = write_skill(user_skills, "notes")
    assert discover(workspace).skills["notes"].references == ()
    (folder / "references").mkdir()
    (folder / "references" / "more.md").write_text("more")
    assert discover(workspace).skills["notes"].references == ("references/more.md",)


@pytest.mark.parametrize("text, skipped", [
    ("# no frontmatter at all\n", "no frontmatter: the file must start with a '---' line"),
    ("---\nname: x\ndescription: y\n", "the frontmatter is not closed by a '---' line"),
    ("---\n- a list\n---\nbody\n", "the frontmatter is not a mapping"),
    ("---\nname: [unclosed\n---\n", "the frontmatter is not valid YAML"),
    ("---\n---\nbody\n", "the frontmatter is empty"),
])
def test_unreadable_frontmatter_is_skipped_with_a_message(user_skills, workspace, text,
                                                          skipped):
    write_skill(user_skills, "broken", raw=text)
    catalog = discover(workspace)
    assert catalog.skills == {}
    assert len(catalog.skipped) == 1 and skipped in catalog.skipped[0]
    assert catalog.skipped[0].startswith(str(user_skills / "broken" / "SKILL.md"))


def test_a_missing_name_takes_the_folder_name(user_skills, workspace):
    write_skill(user_skills, "x", raw="---\ndescription: does things\n---\nbody\n",
                folder="from-folder")
    catalog = discover(workspace)
    assert list(catalog.skills) == ["from-folder"]
    assert catalog.warnings[0].endswith("no name in the frontmatter; loaded as 'from-folder' "
                                        "(its folder)")


def test_wrongly_typed_chatcli_fields_are_ignored_with_a_warning(user_skills, workspace):
    write_skill(user_skills, "odd", triggers={"a": 1}, user_invocable="yes")
    catalog = discover(workspace)
    skill = catalog.skills["odd"]
    assert skill.triggers == () and skill.user_invocable
    assert [w.split(": ", 1)[1] for w in catalog.warnings] == [
        "'triggers' must be text or a list of text, not a map; ignored",
        "'user-invocable' must be true or false, not text; ignored"]


def test_triggers_and_paths_are_read_as_lists_or_comma_separated_text(user_skills, workspace):
    write_skill(user_skills, "a", triggers="commit message, commit msg", paths="**/*.py")
    write_skill(user_skills, "b", triggers=["review this"], paths=["src/**", "*.toml"])
    skills = discover(workspace).skills
    assert skills["a"].triggers == ("commit message", "commit msg")
    assert skills["a"].paths == ("**/*.py",)
    assert skills["b"].paths == ("src/**", "*.toml")


# ------------------------------------------------------------------------------ sources


def test_sources_come_in_precedence_order(workspace, home, config):
    (workspace / "sub").mkdir()
    sources = source_folders(workspace / "sub", [("core", Path("/packs/core"))])
    assert [(s.scope, s.path) for s in sources] == [
        ("project", workspace / "sub" / ".chatcli/skills"),
        ("project", workspace / "sub" / ".agents/skills"),
        ("project", workspace / "sub" / ".claude/skills"),
        ("project", workspace / ".chatcli/skills"),
        ("project", workspace / ".agents/skills"),
        ("project", workspace / ".claude/skills"),
        ("user", config / "skills"),
        ("user", home / ".agents" / "skills"),
        ("user", home / ".claude" / "skills"),
        ("package", Path("/packs/core")),
    ]


def test_the_project_is_found_by_walking_up_to_git(tmp_path, home):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    assert project_chain(deep) == [deep, root / "a", root]
    plain = tmp_path / "plain" / "folder"
    plain.mkdir(parents=True)
    assert project_chain(plain) == [plain]
    assert project_chain(home) == []  # the home folder's skills are the user's


def test_the_earlier_source_wins_and_the_later_is_shadowed(workspace, project_skills,
                                                          user_skills, home, trusted):
    write_skill(project_skills, "style", "Project style.")
    write_skill(user_skills, "style", "User style.")
    claude = home / ".claude" / "skills"
    write_skill(claude, "style", "Claude style.")
    write_skill(claude, "only-claude")
    agents = workspace / ".agents" / "skills"
    write_skill(agents, "style", "Agents style.")
    catalog = discover(workspace)
    assert catalog.skills["style"].body.strip() == "Project style."
    assert sorted(catalog.skills) == ["only-claude", "style"]
    assert [(s.folder, w.folder) for s, w in catalog.shadowed] == [
        (agents / "style", project_skills / "style"),
        (user_skills / "style", project_skills / "style"),
        (claude / "style", project_skills / "style"),
    ]


def test_package_skills_come_last(workspace, user_skills, tmp_path):
    pack = tmp_path / "pack"
    write_skill(pack, "style", "Package style.")
    write_skill(pack, "extra")
    write_skill(user_skills, "style", "User style.")
    catalog = discover(workspace, [("pack", pack)])
    assert catalog.skills["style"].scope == "user"
    assert catalog.skills["extra"].scope == "package"
    assert catalog.skills["extra"].source == "package pack"


def test_two_folders_of_one_source_with_one_name_shadow_by_folder_order(user_skills, workspace):
    write_skill(user_skills, "tool", "First.", folder="a-tool")
    write_skill(user_skills, "tool", "Second.", folder="b-tool")
    catalog = discover(workspace)
    assert catalog.skills["tool"].folder.name == "a-tool"
    assert [s.folder.name for s, _ in catalog.shadowed] == ["b-tool"]


# ------------------------------------------------------------------------------ trust


def test_an_untrusted_projects_skills_are_listed_but_not_active(workspace, project_skills,
                                                                user_skills):
    write_skill(project_skills, "deploy", "Project deploy.")
    write_skill(project_skills, "style", "Project style.")
    write_skill(user_skills, "style", "User style.")
    catalog = discover(workspace, trusted=False)
    assert sorted(catalog.untrusted) == ["deploy", "style"]
    # an untrusted project does not shadow the user's own skill
    assert list(catalog.skills) == ["style"]
    assert catalog.skills["style"].body.strip() == "User style."


def test_trust_comes_from_chatcli_trust_never_the_projects_file(workspace, project_skills,
                                                               config, chat):
    from chatcli_workspace import trust_project

    write_skill(project_skills, "deploy")
    (workspace / ".chatcli" / "config.toml").write_text("[skills]\ntrust_project = true\n")
    assert chat().skills.core.trusted() is False
    # the settings that trusted folders before trust nothing now
    (config / "config.toml").write_text(f'[skills]\ntrust_project = ["{workspace}"]\n'
                                        "[hooks]\ntrust_project = true\n")
    assert chat().skills.core.trusted() is False
    c = chat()
    trust_project(workspace, c.skills.core.host)
    assert c.skills.core.trusted() is True
    assert chat().skills.core.trusted() is True


def test_a_change_to_a_skill_after_trust_asks_again(workspace, project_skills, chat):
    from chatcli_workspace import trust_project

    write_skill(project_skills, "deploy")
    c = chat()
    trust_project(workspace, c.skills.core.host)
    assert c.skills.core.trusted() is True
    (project_skills / "deploy" / "scripts").mkdir()
    (project_skills / "deploy" / "scripts" / "run.sh").write_text("rm -rf ~\n")
    assert c.skills.core.trusted() is False
    assert "deploy" in c.skills.core.catalog().untrusted


def test_skills_between_the_workspace_and_the_root_are_covered_by_trust(workspace, chat):
    from chatcli_workspace import trust_project

    deep = workspace / "pkg" / "app"
    write_skill(deep / ".claude" / "skills", "local")
    too_deep = workspace / "pkg" / "a" / "b"
    write_skill(too_deep / ".claude" / "skills", "too-deep")
    assert project_chain(deep) == [deep, workspace / "pkg", workspace]
    assert project_chain(too_deep) == [too_deep.parent, workspace / "pkg", workspace]  # not 3
    c = chat()
    core = c.skills.core
    core.workspace = deep
    trust_project(deep, core.host)  # the same trust as from the root
    assert core.trusted() is True and "local" in core.catalog().skills
    (deep / ".claude" / "skills" / "local" / "SKILL.md").write_text(
        "---\nname: local\ndescription: changed\n---\nx\n")
    assert core.trusted() is False  # its file was among those trusted


@pytest.mark.parametrize(("markers", "start"), [
    ((".git",), "a/b"),                      # the repository's top
    ((".git", "a/.chatcli"), "a/b"),         # the nearest .chatcli wins over .git
    (("a/.chatcli", "a/b/.git"), "a/b/c"),   # even above a nearer .git
    ((), "a/b"),                             # neither: the workspace itself
    (("a/.git",), "a"),                      # the workspace is the root
])
def test_the_skills_project_root_is_the_trust_root(tmp_path, markers, start):
    """The folders skills read up to end where workspace trust records the project."""
    from chatcli import PluginHost, project_trust

    base = tmp_path / "repo"
    for marker in markers:
        (base / marker).mkdir(parents=True)
    workspace = base / start
    workspace.mkdir(parents=True, exist_ok=True)
    assert project_chain(workspace)[-1] == project_trust(workspace, PluginHost()).root
