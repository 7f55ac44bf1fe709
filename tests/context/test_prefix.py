"""The stable prefix of the request (the system text up to the last stable section) is the same
bytes turn after turn — while rules come and go, tools run, material is pulled — on OpenAI and
Anthropic, and across ``chatcli -c -p`` runs of the real command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli_testing import Reply, ToolCall
from context_support import (
    anthropic_stable_prefix,
    cli,
    openai_stable_prefix,
    openai_system,
    write,
)


def _project(workspace: Path, config: Path) -> None:
    write(workspace, "AGENTS.md", "Run the tests before you answer.\n")
    write(config, "USER.md", "The user prefers short answers.\n")
    write(workspace, ".chatcli/rules/python.md", "---\npaths: ['*.py']\n---\nType hints.\n")
    write(workspace, ".chatcli/rules/always.md", "Be kind.\n")
    for index in range(3):
        write(workspace, f"docs/d{index}.md", f"# Doc {index}\n" + "d" * 1500 + "\n")
    write(workspace, "small/s.md", "small context\n")


def _conversation(session: Any, server: Any) -> None:
    session.command("create docs docs")
    session.command("create small small")
    session.command("attach small docs")
    server.script("first answer",
                  Reply(tool_calls=[ToolCall("context_pull", {"kind": "context", "name": "docs",
                                                              "file": "docs/d1.md"})]),
                  "read it", "third answer", "fourth answer")
    session.turn("hello")
    session.turn("what does doc 1 say about main.py?")  # a rule comes in; a pull
    session.turn("and app.py?")
    session.turn("thanks")


def test_the_openai_prefix_is_byte_identical_turn_after_turn(
        chat: Any, openai_server: Any, workspace: Path, config: Path) -> None:
    _project(workspace, config)
    session = chat(context={"prompt_budget": 1000})
    _conversation(session, openai_server)
    requests = openai_server.requests
    assert len(requests) == 5
    prefixes = {openai_stable_prefix(r) for r in requests}
    assert len(prefixes) == 1
    (prefix,) = prefixes
    for marker in ("small context", 'Attached context "docs" (3 files', "Be kind.",
                   "Run the tests", "The user prefers short answers."):
        assert marker in prefix
    assert ["Type hints." in openai_system(r) for r in requests] == [
        False, True, True, True, False]
    assert all(r.json["tools"] == requests[0].json["tools"] for r in requests)


def test_the_anthropic_prefix_holds_the_cache_breakpoint_and_does_not_move(
        anthropic_chat: Any, anthropic_server: Any, workspace: Path, config: Path) -> None:
    _project(workspace, config)
    session = anthropic_chat(context={"prompt_budget": 1000})
    _conversation(session, anthropic_server)
    requests = anthropic_server.requests
    prefixes = [anthropic_stable_prefix(r) for r in requests]
    assert all(p == prefixes[0] for p in prefixes)
    texts = [b["text"] for b in prefixes[0]]
    assert texts[0].startswith("You are chatcli")
    assert texts[-1].startswith("Rules from always.md")  # the workspace half, last
    for request in requests:  # the breakpoint is on the last stable block, the date after it
        system = request.json["system"]
        marked = [i for i, b in enumerate(system) if "cache_control" in b]
        assert marked == [len(prefixes[0]) - 1]


def test_the_prefix_survives_resume_with_chatcli_c(
        openai_server: Any, workspace: Path, config: Path, home: Path) -> None:
    _project(workspace, config)
    budget = {"CHATCLI_CONTEXT__PROMPT_BUDGET": "1000"}
    assert cli(home, workspace, openai_server, "-p", "/context create docs docs").returncode == 0
    assert cli(home, workspace, openai_server, "-p", "hello").returncode == 0
    done = cli(home, workspace, openai_server, "-c", "-p", "/context attach docs", **budget)
    assert 'attached "docs" (3 files, 4,527 characters): in the prompt as a digest' in (
        done.stdout), done.stderr
    for question in ("one about x.py", "two", "three"):
        done = cli(home, workspace, openai_server, "-c", "-p", question, **budget)
        assert done.returncode == 0, done.stderr
    first, *resumed = openai_server.requests
    assert 'Attached context "docs"' not in openai_system(first)
    prefixes = {openai_stable_prefix(r) for r in resumed}
    assert len(prefixes) == 1 and 'Attached context "docs" (3 files' in prefixes.pop()
    assert [len(r.json["messages"]) for r in resumed] == [4, 6, 8]  # the same conversation
