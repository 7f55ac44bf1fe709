"""``/memory list|search|add|forget|edit|status|export`` in a session and ``chatcli memory
…`` from the shell (the real command line): what each prints, one-line refusals, and MEMORY.md
export and import (automatic when the file changed, idempotent)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from chatcli_memory_api import MemoryKind
from chatcli_testing import Reply
from memory_support import chat_requests, cli, stable_prefix

TODAY = datetime.date.today().isoformat()


def test_the_slash_commands(chat: Any, openai_server: Any) -> None:
    session = chat()
    assert session.command("list") == "memory is empty (archived items: --all)\n"
    added = session.command("add --global prefers tabs over spaces")
    assert "(everywhere)" in added
    session.command("add --subject ci the CI runs on GitHub Actions")
    session.command("add --profile role backend engineer")
    project_role = session.command("add --project --profile role tech lead here")
    assert "(this project)" in project_role
    assert [i.text for i in session.runtime.memory.profile()] == ["tech lead here"]
    session.command("forget " + project_role.split()[2])
    listed = session.command("list").splitlines()
    assert len(listed) == 3 and "profile:role" in listed[0] and "[project]" in listed[1]
    assert "conf 0.90 strength 0.90  prefers tabs over spaces" in listed[2]
    found = session.command("search github ci").splitlines()
    assert len(found) == 1 and "the CI runs on GitHub Actions" in found[0]
    assert "score " in found[0]
    assert session.command("search nothing-like-it") == \
        "nothing in memory matches 'nothing-like-it'\n"
    short = listed[1].split()[0]
    assert session.command(f"forget {short}").startswith(f"forgot {short}: the CI runs")
    assert len(session.command("list").splitlines()) == 2
    assert session.command("forget zzzz") == \
        "no memory item matches 'zzzz' (see /memory list --all for ids)\n"
    assert session.command("edit").startswith("say which item and its new text")
    assert session.command("frobnicate").startswith("no /memory frobnicate; long-term memory")
    status = session.command("status")
    assert "backend: sqlite (" in status and "items: 1 fact, 1 profile, 0 topic" in status
    assert "last extraction: none yet" in status


def test_forget_rebuilds_the_index_at_once(chat: Any, openai_server: Any) -> None:
    seed = chat()
    seed.command("add the secret project name is bluebird")
    seed.close()
    session = chat()
    session.turn("hi")
    assert "bluebird" in stable_prefix(chat_requests(openai_server)[-1])
    short = session.command("list").split()[0]
    session.command(f"forget {short}")
    session.turn("hi again")
    assert "bluebird" not in str(chat_requests(openai_server)[-1].json)


def test_export_and_import_round_trip(chat: Any, workspace: Path, home: Path) -> None:
    session = chat()
    session.command("add --profile name Ada")
    session.command("add --profile directive never touch the staging database")
    session.command("add --global prefers terse answers")
    session.command("add the project uses uv")
    exported = session.command("export")
    assert exported.startswith("# Memory\n\n## Profile\n- name: Ada\n")
    assert "## Facts (global)\n- prefers terse answers" in exported
    assert "## Facts (this project)\n- the project uses uv" in exported
    assert session.command("export MEMORY.md").startswith("exported 4 items to ")
    session.close()
    session.runtime.close()

    for name in ("memory.db", "memory.db-wal", "memory.db-shm", "state.json"):
        (home / "data" / "memory" / name).unlink(missing_ok=True)  # a new machine
    fresh = chat()  # the project's MEMORY.md is imported when the session starts
    backend = fresh.runtime.memory.backend
    items = sorted((i.kind.value, i.key, i.text, i.scope.split(":")[0])
                   for i in backend.list())
    assert items == [("fact", "", "prefers terse answers", "global"),
                     ("fact", "", "the project uses uv", "project"),
                     ("profile", "directive", "never touch the staging database", "global"),
                     ("profile", "name", "Ada", "global")]
    assert fresh.command("import MEMORY.md") == \
        f"imported {workspace / 'MEMORY.md'}: 4 merged\n"  # nothing new
    assert len(backend.list()) == 4


def test_a_hand_written_memory_md(chat: Any, home: Path) -> None:
    (home / "config" / "MEMORY.md").write_text(
        "# My notes\n\n- Always answer in British English\n* uses fish shell\n\n"
        "## Profile\nname: Grace\nI like dark themes\n\n## Tooling\n- ruff for linting\n"
        "```\n- not a fact: code\n```\n## Daily notes\n### " + TODAY + "\n- shipped v1\n")
    session = chat()
    got = sorted((i.kind.value, i.key, i.category, i.text) for i in
                 session.runtime.memory.backend.list())
    assert got == [("daily", TODAY, "", "shipped v1"),
                   ("fact", "", "", "Always answer in British English"),
                   ("fact", "", "", "uses fish shell"),
                   ("fact", "", "Tooling", "ruff for linting"),
                   ("profile", "name", "", "Grace"),
                   ("profile", "preference", "", "I like dark themes")]
    session.close()
    again = chat()  # unchanged: not read again
    assert len(again.runtime.memory.backend.list()) == 6


def test_the_command_line(home: Path, workspace: Path, openai_server: Any) -> None:
    def run(*args: str) -> Any:
        return cli(home, workspace, None, "memory", *args, model_flags=False)

    done = run("add", "--subject", "database", "we use postgres 16")
    assert done.returncode == 0 and done.stdout.startswith("remembered as "), done.stderr
    short = done.stdout.split()[2]
    assert "we use postgres 16" in run("list").stdout
    assert short in run("search", "postgres").stdout
    edited = run("edit", short, "we use postgres 17")
    assert edited.stdout.startswith("corrected: "), edited.stderr
    listed = run("list", "--all").stdout
    assert "we use postgres 17" in listed and "archived→" in listed
    assert "## Facts\n- we use postgres 17\n" in run("export").stdout
    out = home / "out.md"
    assert run("export", "-o", str(out)).returncode == 0 and "postgres 17" in out.read_text()
    status = run("status").stdout
    assert "items: 1 fact" in status and "; 1 archived" in status
    new = run("list").stdout.split()[0]
    assert run("forget", new).stdout.startswith("forgot ")
    missing = run("forget", "nosuch")
    assert missing.returncode == 1 and missing.stderr.startswith("Error: no memory item")
    assert run("import").returncode == 1  # no MEMORY.md anywhere
    (workspace / "MEMORY.md").write_text("- from the file\n")
    assert "1 stored" in run("import").stdout

    openai_server.script("hello")  # /memory in a one-shot run
    done = cli(home, workspace, openai_server, "-p", "/memory list")
    assert done.returncode == 0 and "from the file" in done.stdout, done.stderr


def test_the_memory_tools_and_context_pull(chat: Any, openai_server: Any) -> None:
    import chatcli_context.plugin as context_plugin
    from chatcli_testing import ToolCall

    seed = chat()
    seed.command("add the billing service is written in Go")
    seed.close()
    openai_server.script(
        Reply(tool_calls=[ToolCall("memory_search", {"query": "billing"})]), "It is Go.",
        Reply(tool_calls=[ToolCall("context_pull", {"kind": "memory", "query": "billing"})]),
        "Still Go.")
    session = chat(extra_plugins=(context_plugin.ContextPlugin(),),
                   memory={"index_items": 0, "extract": False})
    session.turn("what language is billing in?")
    requests = chat_requests(openai_server)
    tools = [t["function"]["name"] for t in requests[0].json["tools"]]
    assert {"memory_search", "memory_save", "context_pull"} <= set(tools)
    result = requests[1].json["messages"][-1]["content"]
    assert "Memory matching 'billing'" in result and "billing service is written in Go" in result
    session.turn("and again?")
    pulled = chat_requests(openai_server)[3].json["messages"][-1]["content"]
    assert "billing service is written in Go" in pulled
    (item,) = session.runtime.memory.backend.list(kind=MemoryKind.FACT)
    assert item.uses >= 2  # recalled, searched, pulled: touched each time


def test_memory_save_is_a_write_tool(chat: Any, openai_server: Any) -> None:
    from chatcli_testing import ToolCall

    openai_server.script(
        Reply(tool_calls=[ToolCall("memory_save", {"text": "lint with ruff"})]), "Denied.",
        Reply(tool_calls=[ToolCall("memory_save", {"text": "lint with ruff",
                                                   "subject": "linter"})]), "Saved.",
        Reply(tool_calls=[ToolCall("memory_save", {"text": "key sk-abcdefghijklmnop123456"})]),
        "Refused.")
    session = chat(memory={"extract": False})  # nobody approves: a write tool is refused
    session.turn("remember to lint with ruff")
    assert session.runtime.memory.backend.list() == []
    session.close()

    asked: list[str] = []

    def approve(call: Any, tool: Any, verdict: Any) -> bool:
        asked.append(f"{tool.name}:{tool.risk.value}")
        return True

    allowed = chat(approver=approve, memory={"extract": False})
    allowed.turn("remember to lint with ruff")
    (item,) = allowed.runtime.memory.backend.list()
    assert (item.text, item.subject, asked) == ("lint with ruff", "linter",
                                                ["memory_save:write"])
    allowed.turn("and my key")
    result = chat_requests(openai_server)[-1].json["messages"][-1]["content"]
    assert "not remembered: the text holds an API key" in result
    assert len(allowed.runtime.memory.backend.list()) == 1
