"""search (ripgrep and the Python fallback alike), glob and tree: .gitignore honoured,
credential files left out, results capped with a count of what was left."""

from __future__ import annotations

import chatcli_coder._find as find
import pytest
from chatcli import Settings
from coder_support import Agent


@pytest.fixture
def project(workspace):
    (workspace / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "pkg" / "core.py").write_text(
        "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef save(path):\n"
        "    pass  # TODO: write it\n")
    (workspace / "src" / "pkg" / ".gitignore").write_text("generated.py\n")
    (workspace / "src" / "pkg" / "generated.py").write_text("# TODO generated\n")
    (workspace / "src" / "app.ts").write_text("// TODO: port\nexport const x = 1;\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.py").write_text("# TODO built\n")
    (workspace / "debug.log").write_text("TODO in a log\n")
    (workspace / "keep.log").write_text("TODO kept log\n")
    (workspace / ".env").write_text("TODO_TOKEN=hunter2\n")
    (workspace / ".github").mkdir()
    (workspace / ".github" / "ci.yml").write_text("# TODO ci\n")
    (workspace / "image.png").write_bytes(b"\x89PNG\x00\x00TODO")
    return workspace


@pytest.fixture(params=["rg", "python"])
def engine_kind(request, monkeypatch):
    """Every search test runs with ripgrep and with the Python fallback."""
    if request.param == "python":
        monkeypatch.setattr(find, "rg_binary", lambda: None)
    else:
        assert find.rg_binary() is not None, "the ripgrep wheel ships rg"
    return request.param


def test_search_honours_gitignore_at_every_level_and_skips_secrets_and_binaries(
        project, engine_kind):
    agent = Agent(project)
    text = agent.ok("search", pattern="TODO")
    found = sorted({line.split(":")[0] for line in text.splitlines() if ":" in line
                    and not line.startswith("[")})
    assert found == [".github/ci.yml", "keep.log", "src/app.ts", "src/pkg/core.py"]
    assert "hunter2" not in text
    assert "1 credential file(s) left out" in text
    assert ("[searched with Python's re module" in text) == (engine_kind == "python")
    everything = agent.ok("search", pattern="TODO", include_ignored=True)
    assert "build/out.py:1:# TODO built" in everything
    assert "src/pkg/generated.py" in everything


def test_search_lines_context_glob_literal_and_case(project, engine_kind):
    agent = Agent(project)
    text = agent.ok("search", pattern=r"def \w+\(path\)", path="src", context=1)
    assert text.splitlines()[:7] == [
        "src/pkg/core.py-3-",
        "src/pkg/core.py:4:def load(path):",
        "src/pkg/core.py-5-    return open(path).read()",
        "--",
        "src/pkg/core.py-7-",
        "src/pkg/core.py:8:def save(path):",
        "src/pkg/core.py-9-    pass  # TODO: write it",
    ]
    assert "[2 matching lines in 1 file]" in text
    only_ts = agent.ok("search", pattern="todo", ignore_case=True, glob="*.ts")
    assert only_ts.splitlines()[0] == "src/app.ts:1:// TODO: port"
    assert "core.py" not in only_ts
    literal = agent.ok("search", pattern="open(path).read()", literal=True)
    assert "src/pkg/core.py:5:" in literal
    assert agent.ok("search", pattern="nothing-like-this").startswith("no matches")


def test_search_caps_results_and_says_how_many_more(workspace, engine_kind):
    for n in range(30):
        (workspace / f"f{n:02d}.txt").write_text("hit\n" * 10)
    agent = Agent(workspace)
    text = agent.ok("search", pattern="hit", max_results=15)
    assert len([line for line in text.splitlines() if ":hit" in line]) == 15
    assert ("[15 of 300 matching lines shown, from 2 of 30 files; narrow the pattern, path or "
            "glob, or raise max_results]") in text
    small = Agent(workspace, Settings(tool_output_max=1_500))
    capped = small.ok("search", pattern="hit", max_results=2_000)
    assert len(capped) <= 1_500
    assert "of 300 matching lines shown" in capped


def test_a_bad_regex_is_one_clear_error(project, engine_kind):
    error = Agent(project).fails("search", pattern="open(")
    assert "the pattern is not a valid regular expression" in error
    assert "literal=true" in error


def test_search_in_one_file_and_a_missing_path(project, engine_kind):
    agent = Agent(project)
    text = agent.ok("search", pattern="def", path="src/pkg/core.py")
    assert "src/pkg/core.py:4:def load(path):" in text
    assert "did you mean src" in agent.fails("search", pattern="x", path="srx")


# ------------------------------------------------------------------------------ glob


def test_glob_matches_names_at_any_depth_or_anchored_paths(project):
    agent = Agent(project)
    assert agent.ok("glob", pattern="*.py") == "src/pkg/core.py\n[1 file]"
    assert agent.ok("glob", pattern="src/*.ts") == "src/app.ts\n[1 file]"
    assert agent.ok("glob", pattern="*.py", path="src").startswith("src/pkg/core.py")
    assert "src/pkg/generated.py" in agent.ok("glob", pattern="**/*.py", include_ignored=True)
    assert "build/out.py" in agent.ok("glob", pattern="**/*.py", include_ignored=True)
    secrets = agent.ok("glob", pattern=".env*")
    assert secrets.startswith("no files match") and "1 credential file(s) left out" in secrets
    plenty = agent.ok("glob", pattern="*", max_results=3)
    assert plenty.splitlines()[:3] == [".github/ci.yml", ".gitignore", "image.png"]
    assert "[3 of 7 files shown; narrow the pattern or the path, or raise max_results]" in plenty


def test_listing_credentials_can_be_allowed_in_settings(project):
    agent = Agent(project, Settings(coder={"list_credentials": True}))
    assert agent.ok("glob", pattern=".env") == ".env\n[1 file]"
    assert "hunter2" in agent.ok("search", pattern="hunter2")


# ------------------------------------------------------------------------------ tree


def test_tree_shows_folders_first_to_a_depth_with_counts_below_it(project):
    text = Agent(project).ok("tree", depth=2)
    assert text.splitlines() == [
        "./",
        "  .github/",
        "    ci.yml",
        "  src/",
        "    pkg/ (… 2 entries)",
        "    app.ts",
        "  .gitignore",
        "  image.png",
        "  keep.log",
        "[3 folders, 5 files shown]",
        "[1 credential file(s) left out (.env, keys…)]",
    ]


def test_tree_caps_entries_and_per_folder_and_shows_links(workspace):
    (workspace / "many").mkdir()
    for n in range(150):
        (workspace / "many" / f"{n:03d}.txt").write_text("")
    (workspace / "link").symlink_to("many/000.txt")
    agent = Agent(workspace)
    text = agent.ok("tree")
    assert "    … 50 more entries" in text
    assert "  link -> many/000.txt" in text
    short = agent.ok("tree", max_entries=10)
    assert "the listing stopped at 10 entries" in short
    assert "is a file, not a folder" in agent.fails("tree", path="link")
