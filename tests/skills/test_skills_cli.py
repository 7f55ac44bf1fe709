"""``chatcli skills list|show|validate|path`` through the real command line: ``validate`` reports
exactly the specification's violations (exit 1), ``list`` shows sources, states and shadowing,
and ``chatcli --help`` loads neither PyYAML nor the loader."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from skills_support import FIXTURES, run_cli, write_skill

EXPECTED_PROBLEMS = [
    "brand-guidelines/SKILL.md: 'description' is missing (required)",
    "docx/SKILL.md: 'name' 'DOCX' has uppercase letters (use lowercase)",
    "docx/SKILL.md: 'name' 'DOCX' differs from its folder's name 'docx'",
    "explain-code/SKILL.md: 'metadata' value of 'version' must be text, not a number (1.0) "
    "(quote it)",
    "mcp-builder/SKILL.md: line 3: the frontmatter is not valid YAML: a colon followed by a "
    "space inside an unquoted value (quote the value)",
    "skill-creator/SKILL.md: 'description' is 1,041 characters, over the limit of 1,024",
    "webapp-testing/SKILL.md: 'name' 'web-app-testing' differs from its folder's name "
    "'webapp-testing'",
]


def test_validate_reports_exactly_the_specifications_violations(workspace):
    done = run_cli("skills", "validate", str(FIXTURES), cwd=workspace)
    assert done.returncode == 1, done.stderr
    assert done.stdout.replace(f"{FIXTURES}/", "").splitlines() == EXPECTED_PROBLEMS
    assert done.stderr.strip() == "7 skills checked: 7 problems"


def test_validate_with_spec_refuses_chatclis_extra_fields_too(workspace):
    done = run_cli("skills", "validate", "--spec", str(FIXTURES / "explain-code"),
                   cwd=workspace)
    assert done.returncode == 1
    assert done.stdout.replace(f"{FIXTURES}/", "").splitlines() == [
        "explain-code/SKILL.md: unknown fields 'disable-model-invocation', 'argument-hint', "
        "'model' (the specification allows name, description, license, compatibility, "
        "metadata, allowed-tools)",
        "explain-code/SKILL.md: 'metadata' value of 'version' must be text, not a number (1.0) "
        "(quote it)",
    ]


def test_a_valid_skill_passes_by_folder_or_by_file(workspace):
    for target in (FIXTURES / "pdf", FIXTURES / "pdf" / "SKILL.md"):
        done = run_cli("skills", "validate", str(target), cwd=workspace)
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
        assert done.stderr.strip() == "1 skill checked: no problems"


def test_validate_reports_every_rule(workspace, tmp_path):
    root = tmp_path / "bad"
    write_skill(root, "x", raw=(
        "---\nname: -Bad--Name_\ndescription: ''\ncompatibility: " + "c" * 501 + "\n"
        "license: 3\nmetadata: [a]\nallowed-tools: {a: 1}\ntriggers: 5\nuser-invocable: 1\n"
        "argument-hint: ''\nname: again\ncolour: blue\n---\nbody\n"), folder="bad-folder")
    done = run_cli("skills", "validate", str(root / "bad-folder"), cwd=workspace)
    assert done.returncode == 1
    prefix = f"{root}/bad-folder/SKILL.md: "
    assert [line.removeprefix(prefix) for line in done.stdout.splitlines()] == [
        "field 'name' appears more than once",
        "unknown field 'colour' (the specification allows name, description, license, "
        "compatibility, metadata, allowed-tools; chatcli also reads triggers, paths, "
        "user-invocable, disable-model-invocation, argument-hint, model)",
        "'name' 'again' differs from its folder's name 'bad-folder'",
        "'description' is empty",
        "'license' must be text, not a number (3)",
        "'compatibility' is 501 characters, over the limit of 500",
        "'metadata' must be a map of text to text, not a list",
        "'allowed-tools' must be a space-separated string or a list of strings, not a map",
        "'triggers' must be text or a list of text, not a number (5)",
        "'user-invocable' must be true or false, not a number (1)",
        "'argument-hint' must be non-empty text, not text",
    ]


def test_validate_without_a_path_checks_every_skill_found(workspace, user_skills, home):
    write_skill(user_skills, "good")
    write_skill(user_skills, "bad", raw="---\nname: bad\n---\n")
    done = run_cli("skills", "validate", cwd=workspace)
    assert done.returncode == 1
    assert f"{user_skills}/bad/SKILL.md: 'description' is missing (required)" in done.stdout
    assert "good" not in done.stdout


def test_validate_a_missing_path_is_a_usage_error(workspace):
    done = run_cli("skills", "validate", str(workspace / "nope"), cwd=workspace)
    assert done.returncode == 2
    assert "nope: no such file or folder" in done.stderr


def test_list_shows_sources_states_shadowing_and_warnings(workspace, project_skills,
                                                          user_skills):
    write_skill(project_skills, "deploy", "Project deploy.")
    write_skill(user_skills, "deploy", "User deploy.")
    write_skill(user_skills, "helper", description="Helps: with an unquoted colon",
                raw="---\nname: helper\ndescription: Helps: with things\n---\nbody\n")
    done = run_cli("skills", "list", cwd=workspace)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows[[r[0] for r in rows].index("deploy")][:3] == ["deploy", "user", "active"]
    assert ["deploy", ".chatcli/skills", "untrusted"] in [r[:3] for r in rows]
    assert ("untrusted: the project's skills stay off until you trust it: `chatcli trust`, or "
            "/skills trust in the chat") in done.stdout
    assert (f"skills: {user_skills}/helper/SKILL.md: line 3: unquoted colon in the value of "
            "'description'; read it as text (quote the value)") in done.stderr.splitlines()
    assert run_cli("trust", "--yes", cwd=workspace).returncode == 0
    trusted = run_cli("skills", "list", cwd=workspace)
    assert (f"shadowed: deploy in {user_skills}/deploy (user) by {project_skills}/deploy "
            "(.chatcli/skills)") in trusted.stdout


def test_list_includes_the_core_pack(workspace):
    done = run_cli("skills", "list", cwd=workspace)
    names = {line.split()[0] for line in done.stdout.splitlines()[1:] if line.strip()}
    assert {"commit-message", "code-review", "writing-tests", "debugging"} <= names


def test_show_prints_a_skills_fields_and_body(workspace, user_skills):
    shutil.copytree(FIXTURES / "pdf", user_skills / "pdf")
    done = run_cli("skills", "show", "pdf", cwd=workspace)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "name: pdf"
    assert f"location: {user_skills}/pdf/SKILL.md" in lines
    assert "scripts: scripts/check_fillable_fields.py, scripts/fill_fillable_fields.py" in lines
    assert "other files: LICENSE.txt, forms.md, reference.md" in lines
    assert "# PDF processing guide" in lines
    missing = run_cli("skills", "show", "pfd", cwd=workspace)
    assert missing.returncode == 2 and "did you mean pdf?" in missing.stderr


def test_path_lists_every_folder_in_precedence_order(workspace, user_skills, config, home):
    write_skill(user_skills, "one")
    done = run_cli("skills", "path", cwd=workspace)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows[0] == ["SCOPE", "FOLDER", "SKILLS"]
    assert rows[1] == ["project", str(workspace / ".chatcli" / "skills"), "(missing)"]
    assert ["user", str(config / "skills"), "1"] in rows
    assert ["user", str(home / ".claude" / "skills"), "(missing)"] in rows
    assert rows[-1][:2] == ["project:", str(workspace)]


@pytest.mark.parametrize("argv", [["--help"], ["skills", "--help"]])
def test_help_imports_neither_yaml_nor_the_loader(argv, workspace):
    code = (f"import sys; from chatcli_cli.root import run; code = run({argv!r}); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'yaml' or m in "
            "('chatcli_skills.core', 'chatcli_skills.sources', 'chatcli_skills.skill', "
            "'chatcli_skills.frontmatter')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=workspace, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
