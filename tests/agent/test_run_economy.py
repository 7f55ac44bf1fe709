"""An agent run reads each step's whole previous request from the provider's cache.

``chatcli -p "/coder …"`` runs through the real anthropic and openai providers against their
wire servers, the model scripted to read files for five steps. The request bodies must show:

- the system prompt is the same bytes at every step (nothing that changes per step is in it);
- the anchor ("You are working on: … Step N of at most …") and the date travel after the
  history, in the newest message only, inside ``<system-reminder>`` tags;
- Anthropic: the prefix up to each step's newest ``cache_control`` breakpoint (tools, system,
  messages; the marks themselves aside) is byte-identical at the start of the next step, and
  the reminder is after that breakpoint; OpenAI (which caches exact prefixes): each body
  starts with the previous one, byte for byte, up to where its reminder began.

Moving a volatile section back before the history (into the system prompt) fails each of them.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import AnthropicServer, OpenAIServer, Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"
STEPS = 5
TASK = "read the notes and summarise them"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _anthropic_blocks(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The cached prefix as text blocks in the API's order (tools, system, messages), without
    the ``cache_control`` marks, and the indexes of the blocks that carried one."""
    blocks: list[str] = []
    marks: list[int] = []

    def add(prefix: str, block: dict[str, Any]) -> None:
        if "cache_control" in block:
            marks.append(len(blocks))
        blocks.append(prefix + _dump({k: v for k, v in block.items() if k != "cache_control"}))

    for tool in body.get("tools") or []:
        add("tool:", tool)
    for block in body.get("system") or []:
        add("system:", block)
    for message in body["messages"]:
        for index, block in enumerate(message["content"]):
            add(f"{message['role']}:" if index == 0 else "", block)
    return blocks, marks


@pytest.fixture(params=["anthropic", "openai"])
def run(request: Any, tmp_path: Path) -> tuple[str, list[bytes], subprocess.CompletedProcess]:
    kind = request.param
    repo = tmp_path / "repo"
    repo.mkdir()
    for index in range(STEPS):
        (repo / f"note{index}.md").write_text(f"# Note {index}\n" + "Some text. " * 40 + "\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    for folder in ("config", "data", "cache"):
        (tmp_path / folder).mkdir()
    env.update(CHATCLI_CONFIG_DIR=str(tmp_path / "config"),
               CHATCLI_DATA_DIR=str(tmp_path / "data"), CHATCLI_CACHE_DIR=str(tmp_path / "cache"),
               CHATCLI_PLUGINS=f"{kind},context,coder,agent,permissions,print")
    server = AnthropicServer() if kind == "anthropic" else OpenAIServer()
    with server:
        server.script(*[Reply(text=f"Reading note {i}.",
                              tool_calls=[ToolCall("read", {"path": f"note{i}.md"})])
                        for i in range(STEPS)], Reply(text="The notes say: some text."))
        prefix = "ANTHROPIC" if kind == "anthropic" else "OPENAI"
        env.update({f"{prefix}_API_KEY": "test", f"{prefix}_BASE_URL": server.url})
        done = subprocess.run([str(CHATCLI), "--provider", kind, "--model", "m", "-p",
                               f"/coder {TASK}"], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=180, stdin=subprocess.DEVNULL)
        bodies = [r.body for r in server.requests]
    assert done.returncode == 0, done.stderr
    assert len(bodies) == STEPS + 1
    return kind, bodies, done


def test_each_step_starts_with_the_previous_steps_cached_prefix(run: Any) -> None:
    kind, bodies, _ = run
    parsed = [json.loads(body) for body in bodies]
    if kind == "anthropic":
        systems = {_dump(body["system"]) for body in parsed}
    else:
        systems = {_dump(body["messages"][0]) for body in parsed}
    assert len(systems) == 1  # the same system prompt at every step
    assert "You are working on" not in systems.pop()

    for step, body in enumerate(parsed, start=1):
        newest = body["messages"][-1]
        content = newest["content"]
        text = content[-1]["text"] if isinstance(content, list) else content
        reminder = text[text.index("<system-reminder>\n"):]
        assert reminder.endswith("\n</system-reminder>")
        assert f"You are working on: {TASK}. Step {step} of at most 50." in reminder
        assert "Today is " in reminder
        # only the newest message carries the step's reminder
        assert "You are working on" not in json.dumps(body["messages"][:-1])

    if kind == "anthropic":
        steps = [_anthropic_blocks(body) for body in parsed]
        for (blocks, marks), (later, _) in itertools.pairwise(steps):
            newest = marks[-1]
            assert newest == len(blocks) - 2  # the reminder is the only block after it
            prefix = "".join(blocks[:newest + 1])
            assert "".join(later).startswith(prefix)  # the next step reads it all back
            assert len(prefix) > 0.9 * len("".join(blocks))
    else:
        for before, after in itertools.pairwise(bodies):
            alone = before.rfind(b'{"role":"user","content":"<system-reminder>')
            end = alone if alone >= 0 else before.rindex(b"\\n\\n<system-reminder>")
            assert after[:end] == before[:end]
            # after it, only the reminder (then the body's other fields: stream_options, tools)
            rest = before[end:before.index(b'],"stream_options"')]
            assert b"<system-reminder>" in rest and len(rest) < 400


def test_the_run_ends_well_and_its_system_prompt_is_the_coders_without_the_date(
        run: Any) -> None:
    kind, bodies, done = run
    assert "✔ coder: done in 6 steps · 5 tool calls" in done.stderr
    first = json.loads(bodies[0])
    system = (" ".join(b["text"] for b in first["system"]) if kind == "anthropic"
              else first["messages"][0]["content"])
    assert "coder mode" in system and "Today is" not in system
