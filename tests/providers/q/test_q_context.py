"""What q is told: the newest message or a transcript; commands guarded; the entry stays light."""

from __future__ import annotations

import subprocess
import sys

from chatcli import ChatRequest, Message, PromptSection, Role, ToolCallPart, ToolResultPart
from chatcli_provider_q._context import Tracker, guard_command, transcript


def test_transcript_names_every_speaker() -> None:
    history = [Message.user("hi"), Message.assistant("hello", [ToolCallPart(name="read",
                                                                            arguments={"p": 1})]),
               Message(role=Role.TOOL, parts=[ToolResultPart(call_id="c", name="read",
                                                             content="data")])]
    text = transcript(history, "next?")
    assert text.startswith("Previous conversation:\n\nUser: hi\n\nAssistant: hello\n"
                           "[tool call read: {'p': 1}]\n\nTool: [tool result read]\ndata")
    assert text.endswith("Current question: next?")
    assert transcript([], "only") == "only"


def test_the_tracker_continues_only_the_conversation_it_saw() -> None:
    tracker = Tracker()
    first = ChatRequest(model="m", messages=[Message.user("a")])
    assert tracker.plan(first) == ("a", False)
    tracker.sent(first)
    answer, question = Message.assistant("A"), Message.user("b")
    follow = ChatRequest(model="m", messages=[*first.messages, answer, question])
    assert tracker.plan(follow) == ("b", True)
    tracker.sent(follow)
    tool = Message(role=Role.TOOL, parts=[ToolResultPart(call_id="c", name="t", content="out")])
    loop = ChatRequest(model="m", messages=[*follow.messages, Message.assistant("B"), tool])
    assert tracker.plan(loop) == ("[tool result t]\nout", True)
    rewound = ChatRequest(model="m", messages=[first.messages[0], answer, Message.user("c")])
    assert tracker.plan(rewound).resume is False


def test_the_lean_system_prompt_goes_without_chatclis_identity_and_the_date() -> None:
    request = ChatRequest(model="m", messages=[Message.user("q")], system=[
        PromptSection(name="chatcli", text="chatcli's prompt", order=0),
        PromptSection(name="persona", text="You are a pirate."),
        PromptSection(name="date", text="Today is 2026-12-01.", stable=False),
        PromptSection(name="user-system", text="Answer in French.", order=900)])
    assert Tracker().plan(request).text == (
        "Instructions:\nYou are a pirate.\n\nAnswer in French.\n\nq")
    everything = Tracker().plan(request, system_prompt=True).text
    assert everything.startswith("Instructions:\nchatcli's prompt\n\nYou are a pirate.")
    assert "Today is 2026-12-01." in everything


def test_q_commands_are_guarded() -> None:
    assert guard_command("/help me") == "\u200b/help me"
    assert guard_command("  !ls") == "\u200b!ls"
    assert guard_command("@prompt") == "\u200b@prompt"
    assert guard_command("plain words") == "plain words"


def test_q_gets_lean_requests() -> None:
    from chatcli_provider_q.plugin import q_spec

    capabilities = q_spec().capabilities
    assert capabilities.uses_tools is False and capabilities.native_tools is False


def test_the_entry_module_imports_nothing_heavy() -> None:
    code = ("import sys, chatcli_provider_q.plugin as p; p.q_spec(); "
            "print(sorted(m for m in sys.modules if m.startswith('chatcli_provider_q') "
            "or m in ('subprocess', 'pydantic', 'rich', 'httpx')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['chatcli_provider_q', 'chatcli_provider_q.plugin']"


# ---------------------------------------------------------------- settings

def test_wrong_settings_are_config_errors(monkeypatch) -> None:
    import pytest
    from chatcli import ConfigError
    from chatcli_provider_q._options import daemon_wanted
    from chatcli_provider_q.plugin import make_provider
    from q_support import config

    with pytest.raises(ConfigError, match=r"providers\.q\.context must be"):
        make_provider(config(context="memory"))
    with pytest.raises(ConfigError, match="idle_end must be 0 or more"):
        make_provider(config(idle_end=-1))
    monkeypatch.setenv("CHATCLI_Q_DAEMON", "maybe")
    with pytest.raises(ConfigError, match="CHATCLI_Q_DAEMON must be true or false"):
        daemon_wanted({})
    monkeypatch.setenv("CHATCLI_Q_DAEMON", "TRUE")
    assert daemon_wanted({"daemon": False}) is True
