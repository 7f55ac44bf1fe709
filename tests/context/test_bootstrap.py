"""Bootstrap files (AGENTS.md, CLAUDE.md, SOUL.md, USER.md, IDENTITY.md, RULES.md, MEMORY.md):
found at the project root and in the user's config folder, the project's winning, read again
only when they change, capped with a note, placed last in the stable prompt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from chatcli_context.prompt import CACHE
from context_support import openai_stable_prefix, openai_system, write


def test_project_and_user_files_come_after_the_base_prompt_in_a_fixed_order(
        chat: Any, openai_server: Any, workspace: Path, config: Path) -> None:
    write(workspace, "MEMORY.md", "Remember: the deploy is on Fridays.\n")
    write(workspace, "AGENTS.md", "Run make test before committing.\n")
    write(config, "SOUL.md", "You are calm and precise.\n")
    write(config, "USER.md", "The user is Ana, a Go developer.\n")
    chat(system="Answer in English.").turn("hello")
    system = openai_system(openai_server.requests[0])
    order = ["You are chatcli", "Answer in English.", "Contents of AGENTS.md",
             "Contents of SOUL.md", "Contents of USER.md", "Contents of MEMORY.md", "Today is"]
    positions = [system.index(marker) for marker in order]
    assert positions == sorted(positions)  # after the user's system setting: last stable
    assert (f"Contents of AGENTS.md (project file {workspace / 'AGENTS.md'}):\n\n"
            "Run make test before committing.") in system
    assert f"Contents of SOUL.md (user file {config / 'SOUL.md'}):\n\n" in system


def test_the_projects_file_overrides_the_users_of_the_same_name(
        chat: Any, openai_server: Any, workspace: Path, config: Path) -> None:
    write(workspace, "CLAUDE.md", "project rules\n")
    write(config, "CLAUDE.md", "user rules\n")
    write(config, "IDENTITY.md", "user identity\n")
    chat().turn("hi")
    system = openai_system(openai_server.requests[0])
    assert "project rules" in system and "user rules" not in system
    assert "user identity" in system


def test_the_root_is_found_walking_up_to_dot_agent_or_dot_git(
        openai_server: Any, tmp_path: Path, home: Path) -> None:
    from context_support import Chat

    root = Path(os.path.realpath(tmp_path)) / "repo"
    (root / ".agent").mkdir(parents=True)
    deep = root / "src" / "pkg"
    deep.mkdir(parents=True)
    write(root, "RULES.md", "root rules\n")
    write(deep, "AGENTS.md", "not the root: ignored\n")
    chat = Chat(openai_server, deep)
    chat.turn("hi")
    system = openai_system(openai_server.requests[0])
    assert "root rules" in system and "not the root" not in system
    chat.close()


def test_a_file_is_read_again_only_when_it_changed(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    agents = write(workspace, "AGENTS.md", "version one\n")
    session = chat()
    session.turn("first")
    reads = CACHE.reads
    session.turn("second")
    assert CACHE.reads == reads  # unchanged: not read again
    stat = agents.stat()
    agents.write_text("version TWO\n")  # same size and time: the cache cannot tell
    os.utime(agents, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    session.turn("third")
    agents.write_text("version three, longer\n")
    session.turn("fourth")
    systems = [openai_system(r) for r in openai_server.requests]
    assert "version one" in systems[1] and "version one" in systems[2]
    assert "version three, longer" in systems[3]


def test_a_long_file_is_cut_with_the_call_that_reads_the_rest(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    write(workspace, "AGENTS.md", "".join(f"line {i:04d}\n" for i in range(500)))  # 5,000 chars
    session = chat(context={"bootstrap_max_chars": 1000})
    session.turn("hi")
    system = openai_system(openai_server.requests[0])
    assert "line 0098" in system and "line 0100" not in system
    note = ('[AGENTS.md is cut here: the first 1,000 of its 4,999 characters are above. The '
            'rest: context_pull {"kind":"bootstrap","name":"AGENTS.md","offset":1000}]')
    assert note in system
    assert "context_pull" in [t["function"]["name"] for t in openai_server.requests[0].json[
        "tools"]]
    # the call works and goes on where the prompt stopped
    from chatcli_testing import Reply, ToolCall

    openai_server.script(Reply(tool_calls=[ToolCall("context_pull", {
        "kind": "bootstrap", "name": "AGENTS.md", "offset": 1000})]), Reply(text="ok"))
    session.turn("read the rest")
    (result,) = session.results()
    assert not result.is_error and result.content.startswith("line 0100\n")
    assert result.content.rstrip().endswith("line 0499")


def test_with_pull_off_a_cut_names_the_file_instead(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    write(workspace, "AGENTS.md", "x" * 3000)
    chat(context={"bootstrap_max_chars": 1000, "pull": False}).turn("hi")
    request = openai_server.requests[0]
    system = openai_system(request)
    assert (f"The whole file: {workspace / 'AGENTS.md'}]") in system
    assert "context_pull" not in str(request.json)


def test_the_total_cap_shares_room_among_the_files(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    write(workspace, "AGENTS.md", "a" * 900)
    write(workspace, "MEMORY.md", "m" * 900)
    chat(context={"bootstrap_total_max_chars": 1200}).turn("hi")
    system = openai_system(openai_server.requests[0])
    assert "a" * 900 in system
    assert "m" * 300 in system and "m" * 301 not in system
    assert "the first 300 of its 900 characters" in system


def test_binary_and_wrong_settings_are_reported_once_and_skipped(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    (workspace / "SOUL.md").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    session = chat(context={"bootstrap_max_chars": "lots"})
    session.turn("one")
    session.turn("two")
    system = openai_system(openai_server.requests[0])
    assert "SOUL.md" not in system
    assert sum("SOUL.md is not used: it is binary" in w for w in session.warned) == 1
    assert sum("bootstrap_max_chars must be a whole number" in w for w in session.warned) == 1


def test_bootstrap_can_be_switched_off_and_the_prefix_stays_put(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    write(workspace, "AGENTS.md", "rules\n")
    chat(context={"bootstrap": False}).turn("hi")
    assert "AGENTS.md" not in openai_system(openai_server.requests[0])
    session = chat()
    session.turn("a")
    session.turn("b")
    first, second = openai_server.requests[1:]
    assert openai_stable_prefix(first) == openai_stable_prefix(second)
