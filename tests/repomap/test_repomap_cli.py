"""The real command line with the scripted model: the environment section and the repository
map are in the request the model receives, in the stable part of the prompt, the same bytes at
every call of a run; the whole map comes back through context_pull."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from repomap_support import cli, git, imported, make_repo, section, system_of, tool_results


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "proj", commits=("first commit", "add the account views"))
    (root / "app" / "views.py").write_text((root / "app" / "views.py").read_text() + "# x\n")
    (root / "notes.txt").write_text("untracked\n")
    return root


def test_the_request_carries_the_environment_and_the_map(
        tmp_path: Path, repo: Path, openai_server: OpenAIServer) -> None:
    openai_server.script("ok")
    done = cli(tmp_path / "home", repo / "app", openai_server, "-p", "hello")
    assert done.returncode == 0, done.stderr
    system = system_of(openai_server.requests[0])
    environment = section(system, "Environment (")
    assert f"- Working directory: {repo / 'app'}" in environment
    assert f"- Project root: {repo} (a git repository)" in environment
    assert "- OS: Linux" in environment and "- Shell: " in environment
    assert "- Git branch: main" in environment
    assert "1 modified, 1 untracked — app/views.py, notes.txt" in environment
    assert environment.index("add the account views") < environment.index("first commit")
    repomap = section(system, "Repository map")
    assert "app/models.py:\n" in repomap
    assert "│class UserAccount:" in repomap and "│def load_account(name: str)" in repomap
    # the most used file comes first
    assert repomap.index("app/models.py:") < repomap.index("app/views.py:")
    # both are stable sections: in the system text, never in the turn's volatile reminder
    last = openai_server.requests[0].json["messages"][-1]["content"]
    assert "Environment (" not in last and "Repository map" not in last
    assert 'context_pull {"kind":"repomap"}' in repomap


def test_every_call_of_a_run_carries_the_same_bytes_and_the_whole_map_is_pulled(
        tmp_path: Path, repo: Path, openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(tool_calls=[ToolCall("context_pull", {"kind": "repomap"})]),
                         Reply(tool_calls=[ToolCall("context_pull", {"kind": "repomap",
                                                                     "file": "web"})]),
                         "done")
    done = cli(tmp_path / "home", repo, openai_server, "-p", "map it",
               config="[repomap]\ntokens = 40\n")
    assert done.returncode == 0, done.stderr
    first, second, third = (system_of(r) for r in openai_server.requests)
    for start in ("Environment (", "Repository map"):
        assert section(first, start) == section(second, start) == section(third, start)
    small = section(first, "Repository map")
    assert "lonely_helper_function" not in small  # 40 tokens: only the best definitions
    whole, web = tool_results(openai_server.requests[2])
    assert "│def lonely_helper_function():" in whole and "│class UserAccount:" in whole
    assert "web/client.ts:" in web and "fetchAccount" in web and "app/" not in web


def test_a_file_the_prompt_mentions_is_weighted_up(
        tmp_path: Path, repo: Path, openai_server: OpenAIServer) -> None:
    openai_server.script("ok", "ok")
    config = "[repomap]\ntokens = 60\n"
    cli(tmp_path / "home", repo, openai_server, "-p", "hello", config=config)
    cli(tmp_path / "home", repo, openai_server, "-p", "what does app/lonely.py do?",
        config=config)
    plain, asked = (section(system_of(r), "Repository map") for r in openai_server.requests)
    assert "lonely_helper_function" not in plain
    assert "│def lonely_helper_function():" in asked


def test_off_in_the_settings_and_for_lean_requests(
        tmp_path: Path, repo: Path, openai_server: OpenAIServer) -> None:
    openai_server.script("ok", "ok")
    cli(tmp_path / "home", repo, openai_server, "-p", "hello",
        config="[repomap]\nmap = false\nenvironment = false\n")
    cli(tmp_path / "home2", repo, openai_server, "-p", "hello",
        config="[providers.openai]\ntools = false\n")
    for request in openai_server.requests:
        system = system_of(request)
        assert "Repository map" not in system and "Environment (" not in system


def test_a_folder_without_git_is_walked_with_its_gitignore(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("def entry_point_function():\n    return 1\n")
    (root / "build").mkdir()
    (root / "generated").mkdir()
    (root / "generated" / "out.py").write_text("def generated_function():\n    pass\n")
    (root / ".gitignore").write_text("generated/\n")
    openai_server.script("ok")
    done = cli(tmp_path / "home", root, openai_server, "-p", "hello")
    assert done.returncode == 0, done.stderr
    system = system_of(openai_server.requests[0])
    assert f"- Project root: {root} (not a git repository)" in system
    assert "Git branch" not in system
    assert "entry_point_function" in system and "generated_function" not in system


def test_git_is_not_run_again_for_later_calls(
        tmp_path: Path, repo: Path, openai_server: OpenAIServer) -> None:
    """The environment is a snapshot of the session's start: a commit made during the run
    (here, between two runs of one chat would be the same) does not change the section."""
    openai_server.script(Reply(tool_calls=[ToolCall("context_pull", {"kind": "repomap"})]),
                         "done")
    done = cli(tmp_path / "home", repo, openai_server, "-p", "hello")
    assert done.returncode == 0, done.stderr
    git(repo, "commit", "-q", "--allow-empty", "-m", "a later commit")
    first, second = (system_of(r) for r in openai_server.requests)
    assert section(first, "Environment (") == section(second, "Environment (")


def test_tree_sitter_loads_only_for_a_cold_map(tmp_path: Path, repo: Path,
                                               openai_server: OpenAIServer) -> None:
    openai_server.script("ok", "ok", "ok")
    home = tmp_path / "home"
    cold = cli(home, repo, openai_server, "-p", "hello", importtime=True)
    warm = cli(home, repo, openai_server, "-p", "hello", importtime=True)
    off = cli(tmp_path / "home2", repo, openai_server, "-p", "hello", importtime=True,
              config="[repomap]\nmap = false\n")
    assert [d.returncode for d in (cold, warm, off)] == [0, 0, 0]
    assert "tree_sitter" in imported(cold) and "chatcli_repomap.rank" in imported(cold)
    assert "chatcli_repomap.environment" in imported(warm)  # (the list was read)
    assert "tree_sitter" not in imported(warm) and "chatcli_repomap.rank" not in imported(warm)
    assert not {"tree_sitter", "chatcli_repomap.build"} & imported(off)
    maps = [section(system_of(r), "Repository map") for r in openai_server.requests[:2]]
    assert maps[0] == maps[1]
