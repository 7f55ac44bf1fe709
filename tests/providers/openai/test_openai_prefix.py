"""OpenAI caches prompts by exact prefix, with no markers: the body must start with the same
bytes turn after turn — stable sections first, the volatile ones after the history, so each
request starts with the whole previous one."""

from __future__ import annotations

import itertools
import json

import chatcli_provider_openai.plugin as openai_plugin
from chatcli import (
    Message,
    PluginHost,
    PromptSection,
    Session,
    SessionOptions,
    Settings,
    TurnFinished,
    hookimpl,
)
from chatcli_testing import Reply

KEY = "sk-prefix-test-0123456789"


class Sections:
    """Stable sections given in a scrambled order and a volatile one that changes every call."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def prompt_sections(self) -> list[PromptSection]:
        self.calls += 1
        return [PromptSection("recall", f"Recalled item {self.calls}.", stable=False, order=0),
                PromptSection("workspace", "Files: a.py b.py", order=90),
                PromptSection("rules", "Rule: be brief. " * 40, order=10)]


def test_only_volatile_sections_change_after_the_stable_prefix(openai_server, chatcli_home,
                                                                monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    host.register(Sections(), "sections")
    openai_server.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    with Session(host, Settings(provider="openai", model="gpt-test"), SessionOptions(),
                 workspace=tmp_path).open() as session:
        for prompt in ("first", "second", "third"):
            *_, finished = session.run(Message.user(prompt))
            assert isinstance(finished, TurnFinished) and finished.error is None

    bodies = [r.body for r in openai_server.requests]
    system = json.loads(bodies[0])["messages"][0]
    assert system["role"] == "system"
    text = system["content"]
    # stable sections only, in their order; the volatile ones (the date, the recall) come
    # after the history, in the newest message
    assert text.index("Rule: be brief.") < text.index("Files: a.py")
    assert "Today is" not in text and "Recalled item" not in text
    assert len({json.loads(b)["messages"][0]["content"] for b in bodies}) == 1
    for number, body in enumerate(bodies, start=1):
        newest = json.loads(body)["messages"][-1]
        assert newest["role"] == "user"
        reminder = newest["content"][newest["content"].index("<system-reminder>"):]
        # in prompt order: the recall (order 0), then the date
        assert reminder.startswith(f"<system-reminder>\nRecalled item {number}.\n\nToday is ")
        assert reminder.endswith("\n</system-reminder>")
    # each request starts with the whole previous one, byte for byte, up to its reminder
    for before, after in itertools.pairwise(bodies):
        stable_end = before.index(b"\\n\\n<system-reminder>")
        assert after[:stable_end] == before[:stable_end]
        previous, current = json.loads(before)["messages"], json.loads(after)["messages"]
        assert current[:len(previous) - 1] == previous[:-1]
        assert current[len(previous) - 1]["content"] == previous[-1]["content"][
            :previous[-1]["content"].index("\n\n<system-reminder>")]
