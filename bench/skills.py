"""Skill text billed at full price over a 10-turn session where the same skill matches every
turn: the curated injection (the body once, then the "already above" notice) against re-sending
the body with every turn.

A session plays 10 user turns, each mentioning a code review, so the core pack's
``code-review`` skill (its trigger words) fires every turn; the project also has the rest of
the core pack in its catalog. The model is scripted; chatcli-context provides ``context_pull``.
Each model call is counted as a provider's prompt cache sees it (OpenAI and Anthropic cache by
exact prefix): the request is a sequence of blocks — the tools, the system sections in order,
then the messages — and the blocks it shares with the previous request, from the start, are a
cache read; everything after is billed at full price (a cache write, or uncached). *Skill
text* is what the skills plugin adds: its catalog section, and the text it appends to messages
(bodies, notices, pointers).

- **re-sent**: the same plugin with its live-history check off — every turn's message carries
  the whole body (what ChatCLI measured: auto-activated skill bodies were 32 % of the context
  it re-sent every turn);
- **curated**: the body rides on the first turn's message and stays in the cached prefix;
  every later turn carries the notice.

The goal is curated ≤ 30 % of re-sent over 10 turns (the first turn costs the same in both: the
catalog and the body). A second figure weighs cache writes at 1.25× and reads at 0.1×
(Anthropic's 5-minute prices).

Run: .venv/bin/python bench/skills.py [--turns N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

GOAL = 0.30
HEADER = "[chatcli skills — added to this message by chatcli]"
QUESTIONS = [
    "Can you do a code review of the retry change in client.py?",
    "Review this follow-up diff too, please.",
    "Code review again: I renamed the helper.",
    "Please review my error handling.",
    "Review this new test file.",
    "Can you review my fix for the timeout?",
    "Code review of the logging change?",
    "Review this last refactor.",
    "Is it safe to merge now?",
    "And review the diff of the changelog.",
]


def _blocks(request: Any) -> list[tuple[str, str, int]]:
    """The request as cacheable blocks: (kind, text, characters of skill text in it)."""
    tools = json.dumps([[t.name, t.description, t.parameters] for t in request.tools],
                       sort_keys=True)
    blocks = [("tools", tools, 0)] if request.tools else []
    for section in request.ordered_system():
        if section.text:
            skill = len(section.text) if section.name.startswith("skills") else 0
            blocks.append((f"system:{section.name}", section.text, skill))
    for message in request.messages:
        text = json.dumps(message.model_dump(mode="json", exclude={"created_at"}),
                          sort_keys=True)
        texts = [getattr(p, "text", "") or getattr(p, "content", "") for p in message.parts]
        skill = sum(len(t) - t.index(HEADER) for t in texts if HEADER in t)
        blocks.append((f"message:{message.role}", text, skill))
    return blocks


def _play(root: Path, turns: int, dedup: bool) -> list[Any]:
    from chatcli import Message, PluginHost, Session, SessionOptions, Settings
    from chatcli_context.plugin import ContextPlugin
    from chatcli_skills.plugin import SkillsPlugin
    from chatcli_skills_core import plugin as core_pack
    from chatcli_testing import ScriptedProvider, scripted_plugin

    provider = ScriptedProvider()
    host = PluginHost(warn=lambda line: print(f"warning: {line}", file=sys.stderr))
    host.register(scripted_plugin(provider), "scripted")
    host.register(ContextPlugin(), "context")
    host.register(SkillsPlugin(dedup=dedup), "skills")
    host.register(core_pack, "skills-core")
    workspace = root / "project"
    session = Session(host, Settings(provider="scripted"), SessionOptions(),
                      workspace=workspace).open()
    for question in QUESTIONS[:turns]:
        provider.script("Looks good: two nits, see above.")
        events = list(session.run(Message.user(question)))
        assert events[-1].error is None, events[-1].error
    session.close()
    return list(provider.requests)


def _bill(requests: list[Any]) -> tuple[list[int], int, int]:
    """Per request: skill characters at full price; and skill characters written, read."""
    previous: list[tuple[str, str, int]] = []
    full, writes, reads = [], 0, 0
    for request in requests:
        blocks = _blocks(request)
        same = 0
        while same < min(len(blocks), len(previous)) and blocks[same] == previous[same]:
            same += 1
        billed = sum(skill for _, _, skill in blocks[same:])
        full.append(billed)
        writes += billed
        reads += sum(skill for _, _, skill in blocks[:same])
        previous = blocks
    return full, writes, reads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for variable, folder in (("CHATCLI_CONFIG_DIR", "config"), ("CHATCLI_DATA_DIR", "data"),
                                 ("CHATCLI_CACHE_DIR", "cache"), ("HOME", "home")):
            os.environ[variable] = str(root / folder)
        (root / "project" / ".git").mkdir(parents=True)
        resent_requests = _play(root, args.turns, dedup=False)
        curated_requests = _play(root, args.turns, dedup=True)

    from chatcli_skills.inject import NOTICE

    body_marker = '<skill name="code-review"'
    for number, request in enumerate(curated_requests, start=1):
        last = request.messages[-1].text
        sent = sum(m.text.count(body_marker) for m in request.messages)
        assert sent == 1, f"curated turn {number}: the body is in the request {sent} times"
        assert number == 1 or NOTICE in last, f"curated turn {number}: no notice"
    resent, resent_writes, resent_reads = _bill(resent_requests)
    curated, curated_writes, curated_reads = _bill(curated_requests)
    body = len(next(p.text for p in curated_requests[0].messages[-1].parts
                    if HEADER in getattr(p, "text", "")))
    print(f"skills bench: {args.turns} turns, the code-review skill matches every turn "
          f"(its injected text {body:,} characters); the core pack's catalog; context_pull on")
    print(f"{'turn':>4}  {'re-sent full-price':>18}  {'curated full-price':>18}")
    for number, (r, c) in enumerate(zip(resent, curated, strict=True), start=1):
        print(f"{number:>4}  {r:>18,}  {c:>18,}")
    total_r, total_c = sum(resent), sum(curated)
    ratio = total_c / total_r
    print(f"skill characters billed at full price: curated {total_c:,} · re-sent {total_r:,} "
          f"→ {ratio:.1%} of re-sending the body each turn (goal ≤ {GOAL:.0%}: "
          f"{'met' if ratio <= GOAL else 'MISSED'})")
    weighted_r = resent_writes * 1.25 + resent_reads * 0.1
    weighted_c = curated_writes * 1.25 + curated_reads * 0.1
    print(f"weighted bill (cache writes 1.25×, reads 0.1×): curated {weighted_c:,.0f} · "
          f"re-sent {weighted_r:,.0f} → {weighted_c / weighted_r:.1%}")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
