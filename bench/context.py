"""Injected context billed at full price over a 10-turn session: the curated prompt against a
naive resend of everything every turn.

A session plays 10 user turns in a project with three bootstrap files (AGENTS.md, MEMORY.md and
the user's USER.md), two rules (one for ``*.py`` paths, one always), two attached contexts (a
large one, about 30,000 characters of API docs, and a small style guide), a catalog of 10 tools
and a pinned project brief at the head of the conversation. The model (scripted) answers, reads a
file with a tool now and then (bringing the Python rule in), and pulls deferred material back
with ``context_pull``.

*Injected context* is what is sent besides the conversation itself: the tool definitions, every
system section and the pinned brief. Each model call is counted:

- **naive**: the same session with pull off (the uncurated prompt: everything whole), every
  character of it billed at full price on every call;
- **curated**: pull on. The cacheable prefix (tools, the stable sections in order, the pinned
  brief) is billed at full price only where it differs from the previous call's (a cache
  write: the first call, or after a change); the part that is the same is a cache read (0.1×,
  not full price). Volatile sections (the date, path rules, the archived-history note) are
  billed in full on every call. What was deferred costs nothing in the prompt — and every
  deferral the prompt cites is then fetched through ``context_pull`` to prove it is reachable.

The goal is curated ≤ 20 % of naive. A second ratio weighs cache writes at 1.25× and cache
reads at 0.1× (Anthropic's 5-minute prices), which is closer to the money.

Run: .venv/bin/python bench/context.py [--turns N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

GOAL = 0.20
CALL = re.compile(r"context_pull (\{[^\n]*?\})(?=[\]\s:]|$)")

TOOLS = [
    ("read_file", "Read a text file of the workspace, whole or a range of lines."),
    ("write_file", "Write a text file of the workspace, replacing its content."),
    ("edit_file", "Replace one exact string of a file by another; fails when it is not unique."),
    ("search", "Search the workspace for a regular expression; results as path:line:text."),
    ("list_dir", "List a folder of the workspace, with sizes, newest first."),
    ("run_tests", "Run the project's test command and report failures with their output."),
    ("git_log", "Show the recent commits touching a path, with their messages."),
    ("git_diff", "Show the working tree's changes against HEAD, or between two commits."),
    ("http_get", "Fetch a URL and return its body as text (HTML converted to markdown)."),
    ("ask_user", "Ask the user a question and wait for the answer."),
]


def _project(root: Path, config: Path) -> Path:
    workspace = root / "project"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "AGENTS.md").write_text(
        "# Working on this project\n" + "".join(
            f"- Rule {i}: keep modules small, typed and documented; run `make test` before "
            f"answering (detail {i}).\n" for i in range(40)))
    (workspace / "MEMORY.md").write_text(
        "# Memory\n" + "".join(f"- {i}: the payments service retries three times; the "
                               f"deploy is on Fridays (note {i}).\n" for i in range(30)))
    config.mkdir(parents=True, exist_ok=True)
    (config / "USER.md").write_text("The user is Ana, a backend developer who likes short, "
                                    "precise answers with code.\n" * 8)
    rules = workspace / ".chatcli" / "rules"
    rules.mkdir(parents=True)
    (rules / "python.md").write_text("---\npaths: ['**/*.py']\n---\n" + "Use type hints, "
                                     "dataclasses and pathlib; no bare except.\n" * 12)
    (rules / "always.md").write_text("Never push to main; open a pull request.\n")
    docs = workspace / "docs" / "api"
    docs.mkdir(parents=True)
    for index in range(12):
        (docs / f"endpoint{index:02d}.md").write_text(
            f"# Endpoint {index}\n" + f"GET /v1/items/{index} returns the item as JSON. " * 60)
    (workspace / "STYLE.md").write_text("# Style\n" + "Prefer early returns. " * 90)
    return workspace


def _tools_plugin() -> Any:
    from chatcli import Risk, Tool, hookimpl
    from pydantic import BaseModel, Field

    class PathArgs(BaseModel):
        path: str = Field(description="a path relative to the workspace")
        start: int | None = Field(None, description="first line")
        end: int | None = Field(None, description="last line")

    class Tools:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            for name, description in TOOLS:
                register(Tool(name=name, description=description, args_model=PathArgs,
                              risk=Risk.READ, run=lambda args, ctx: f"contents of {args.path}"))

    return Tools()


BRIEF = ("Project brief (pinned): we are moving the payments service from the monolith to its "
         "own package; every change must keep the public API and its tests. ") * 12


def _script(curated: bool) -> list[tuple[str, list[Any]]]:
    """The user's turns and what the model does in each (tool calls, then the answer)."""
    from chatcli_testing import Reply, ToolCall

    def pull(**arguments: Any) -> Any:
        return Reply(tool_calls=[ToolCall("context_pull", arguments)])

    def read(path: str) -> Any:
        return Reply(tool_calls=[ToolCall("read_file", {"path": path})])

    turns: list[tuple[str, list[Any]]] = [
        ("Where do we start with the payments move?", ["Start with the client module."]),
        ("What does endpoint 3 return?",
         [pull(kind="context", name="api-docs", file="docs/api/endpoint03.md"),
          "It returns the item."] if curated else ["It returns the item."]),
        ("Look at payments/client.py", [read("payments/client.py"), "It retries thrice."]),
        ("And how is it tested?", [read("tests/test_client.py"), "With a fake server."]),
        ("Summarise the API docs for me.",
         [pull(kind="contexts", name="api-docs"), pull(kind="context", name="api-docs"),
          "Twelve GET endpoints."] if curated else ["Twelve GET endpoints."]),
        ("Write the new package layout.", ["payments/ with client, models, retry."]),
        ("Which rule applies to models.py?", [read("payments/models.py"), "Type hints."]),
        ("What did we decide about deploys?", ["Fridays."]),
        ("Any risk in the retry code?", [read("payments/retry.py"), "Retries lack jitter."]),
        ("Thanks, write the plan down.", ["Plan: client, models, retry, tests."]),
    ]
    return turns


def _blocks(request: Any, pinned: str) -> tuple[list[tuple[str, str]], int]:
    """The cacheable prefix of ``request`` as (name, text) blocks, and the volatile characters."""
    tools = json.dumps([[t.name, t.description, t.parameters] for t in request.tools],
                       sort_keys=True)
    stable = [("tools", tools)] if request.tools else []
    stable += [(s.name, s.text) for s in request.ordered_system() if s.stable and s.text]
    stable.append(("pinned", pinned))
    volatile = sum(len(s.text) for s in request.ordered_system() if not s.stable)
    return stable, volatile


def _play(workspace: Path, turns: int, curated: bool) -> tuple[Any, Any, Any, list[int]]:
    from chatcli import Message, PluginHost, Session, SessionOptions, Settings
    from chatcli_context.plugin import ContextPlugin
    from chatcli_testing import ScriptedProvider, scripted_plugin
    from rich.console import Console

    provider = ScriptedProvider()
    host = PluginHost(warn=lambda line: print(f"warning: {line}", file=sys.stderr))
    host.register(scripted_plugin(provider), "scripted")
    plugin = ContextPlugin()
    host.register(plugin, "context")
    host.register(_tools_plugin(), "bench-tools")
    settings = Settings(provider="scripted", context={"pull": curated})
    session = Session(host, settings, SessionOptions(), workspace=workspace).open()

    class App:
        console = Console(file=open(os.devnull, "w"))  # noqa: SIM115 - lives with the run

        def __init__(self) -> None:
            self.session, self.host = session, host

        settings = property(lambda self: session.settings)
        conversation = property(lambda self: session.conversation)

    command = host.slash_commands()["context"]
    for line in ("create api-docs docs/api", "create style STYLE.md",
                 "attach style api-docs"):
        command.run(App(), line)
    brief = session.conversation.append(Message.user(BRIEF))
    brief.pinned = True
    session.conversation.append(Message.assistant("Understood; I will keep the API."))
    calls_per_turn = []
    for question, answers in _script(curated)[:turns]:
        provider.script(*answers)
        before = len(provider.requests)
        events = list(session.run(Message.user(question)))
        assert events[-1].error is None, events[-1].error
        calls_per_turn.append(len(provider.requests) - before)
    return provider, session, plugin, calls_per_turn


def _reachable(provider: Any, session: Any, plugin: Any) -> tuple[list[str], list[str]]:
    """Every context_pull call the curated prompts cited, and those that did not work."""
    cited: dict[str, None] = {}
    for request in provider.requests:
        for match in CALL.finditer(request.system_text()):
            cited.setdefault(match.group(1))
    tool = session.engine.tools["context_pull"]
    failed = []
    for call in cited:
        plugin.counter.reset(session.conversation)  # one pull per turn, as a model would
        context = session.engine.tool_context()
        context.conversation = session.conversation
        try:
            text = tool.run(tool.parse_arguments(json.loads(call)), context)
        except Exception as err:
            failed.append(f"{call}: {err}")
            continue
        if not text.strip():
            failed.append(f"{call}: empty")
    return list(cited), failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for variable, folder in (("CHATCLI_CONFIG_DIR", "config"), ("CHATCLI_DATA_DIR", "data"),
                                 ("CHATCLI_CACHE_DIR", "cache")):
            os.environ[variable] = str(root / folder)
        os.environ.pop("CHATCLI_CHAT_CONTEXT_PULL", None)
        workspace = _project(root, root / "config")
        docs = sum(len(p.read_text()) for p in (workspace / "docs" / "api").iterdir())
        naive_run = _play(workspace, args.turns, curated=False)
        curated_run = _play(workspace, args.turns, curated=True)
        cited, failed = _reachable(*curated_run[:3])

    naive_turns, curated_turns = [], []
    writes = reads = volatile_total = 0
    for run, totals in ((naive_run, naive_turns), (curated_run, curated_turns)):
        provider, _session, _plugin, calls = run
        index = 0
        previous: list[tuple[str, str]] = []
        for count in calls:
            full = 0
            for request in provider.requests[index:index + count]:
                blocks, volatile = _blocks(request, BRIEF)
                if run is naive_run:
                    full += sum(len(text) for _, text in blocks) + volatile
                    continue
                same = 0
                while same < min(len(blocks), len(previous)) and blocks[same] == previous[same]:
                    same += 1
                written = sum(len(text) for _, text in blocks[same:])
                reads += sum(len(text) for _, text in blocks[:same])
                writes += written
                volatile_total += volatile
                full += written + volatile
                previous = blocks
            index += count
            totals.append(full)

    naive, curated = sum(naive_turns), sum(curated_turns)
    print(f"context bench: {args.turns} turns · bootstrap AGENTS.md, MEMORY.md, USER.md · rules "
          f"python.md (paths) and always.md · contexts api-docs ({docs:,} characters) and style "
          f"· {len(TOOLS)} tools + context_pull · a pinned brief")
    print(f"{'turn':>4}  {'calls naive/curated':>19}  {'naive full-price':>16}  "
          f"{'curated full-price':>18}")
    for number, (n, c) in enumerate(zip(naive_turns, curated_turns, strict=True), start=1):
        calls = f"{naive_run[3][number - 1]}/{curated_run[3][number - 1]}"
        print(f"{number:>4}  {calls:>19}  {n:>16,}  {c:>18,}")
    ratio = curated / naive
    print(f"injected characters billed at full price: curated {curated:,} · naive {naive:,} "
          f"→ {ratio:.1%} of naive (goal ≤ {GOAL:.0%}: {'met' if ratio <= GOAL else 'MISSED'})")
    weighted = writes * 1.25 + reads * 0.1 + volatile_total
    print(f"weighted bill (cache writes 1.25×, reads 0.1×, volatile 1×): curated "
          f"{weighted:,.0f} · naive {naive:,} → {weighted / naive:.1%} of naive")
    print(f"deferred items: {len(cited)} context_pull calls cited by the prompts, "
          f"{len(cited) - len(failed)} fetched through context_pull"
          + ("" if not failed else " — UNREACHABLE: " + "; ".join(failed)))
    return 0 if not failed and ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
