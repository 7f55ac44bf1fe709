"""The next turn resumes the CLI's own session when chatcli's conversation is exactly what that
session saw; otherwise the assistant gets the conversation as a transcript."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import ChatRequest, Message, ProviderError, TextDelta
from claude_codex_fakes import claude_answer, claude_init, claude_result, codex_answer

SESSION = "9f0e8d7c-6b5a-4321-8fed-cba987654321"


def ask(provider: Any, messages: list[Message]) -> Message:
    """One turn; returns the answer as the engine would append it."""
    text = "".join(e.text for e in provider.stream(ChatRequest(model="m", messages=messages))
                   if isinstance(e, TextDelta))
    return Message.assistant(text)


@pytest.mark.parametrize("name, program, answer, flag", [
    ("claude-code", "claude", claude_answer, ["--resume", SESSION]),
    ("codex", "codex", codex_answer, ["resume", SESSION]),
])
def test_the_second_turn_resumes_the_session_with_only_the_new_message(
        fakes, make_provider, name, program, answer, flag) -> None:
    fakes.script(program, {"lines": answer("First answer.", SESSION)},
                 {"lines": answer("Second answer.", SESSION)})
    provider = make_provider(name)
    history = [Message.user("first question")]
    history.append(ask(provider, history))
    history.append(Message.user("second question"))
    assert ask(provider, history).text == "Second answer."
    first, second = fakes.calls(program)
    assert not set(flag) & set(first["argv"])
    at = second["argv"].index(flag[0])
    assert second["argv"][at:at + 2] == flag
    assert second["stdin"] == "second question"


def test_a_new_provider_object_resumes_too_as_chatcli_c_does(fakes, make_provider) -> None:
    fakes.script("claude", {"lines": claude_answer("one", SESSION)},
                 {"lines": claude_answer("two", SESSION)})
    history = [Message.user("q1")]
    history.append(ask(make_provider(), history))
    history.append(Message.user("q2"))
    ask(make_provider(), history)  # another process: the link is on disk
    assert "--resume" in fakes.calls("claude")[1]["argv"]


def transcript_case(fakes: Any, make_provider: Any, change: str, **options: Any) -> str:
    fakes.script("claude", {"lines": claude_answer("The capital is Paris.", SESSION)},
                 {"lines": claude_answer("About 2 million.", "another-session")})
    provider = make_provider(**options)
    history = [Message.user("capital of France?")]
    answer = ask(provider, history)
    if change == "edited":
        answer = Message.assistant("The capital is Paris (edited).")
    elif change == "interrupted":
        answer.interrupted = True
    elif change == "rewound":
        history = [Message.user("capital of France, please?")]
    history += [answer, Message.user("and its population?")]
    ask(provider, history)
    second = fakes.calls("claude")[1]
    assert "--resume" not in second["argv"]
    return second["stdin"]


@pytest.mark.parametrize("change", ["edited", "interrupted", "rewound"])
def test_a_conversation_the_session_did_not_see_is_sent_as_a_transcript(
        fakes, make_provider, change) -> None:
    prompt = transcript_case(fakes, make_provider, change)
    assert "<transcript>" in prompt and "capital of France" in prompt
    assert "### Assistant (you)\nThe capital is Paris" in prompt
    assert prompt.endswith("Answer the user's latest message:\n\nand its population?")


def test_resume_false_always_sends_a_transcript(fakes, make_provider) -> None:
    assert "<transcript>" in transcript_case(fakes, make_provider, "none", resume=False)


def test_another_folder_does_not_resume(fakes, make_provider, tmp_path, monkeypatch) -> None:
    fakes.script("claude", {"lines": claude_answer("one", SESSION)},
                 {"lines": claude_answer("two", SESSION)})
    history = [Message.user("q1")]
    history.append(ask(make_provider(), history))
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)  # Claude Code keeps sessions per project folder
    ask(make_provider(), [*history, Message.user("q2")])
    assert "--resume" not in fakes.calls("claude")[1]["argv"]


def test_a_failed_turn_is_not_linked(fakes, make_provider) -> None:
    fakes.script("claude",
                 {"lines": [claude_init(SESSION), claude_result(SESSION, "API Error: 500",
                                                                is_error=True)], "exit": 1},
                 {"lines": claude_answer("fine now", "s2")})
    provider = make_provider()
    with pytest.raises(ProviderError):
        ask(provider, [Message.user("q")])
    ask(provider, [Message.user("q"), Message.assistant(""), Message.user("again")])
    assert "--resume" not in fakes.calls("claude")[1]["argv"]


def test_tool_calls_from_another_provider_are_described_in_the_transcript(
        fakes, make_provider) -> None:
    from chatcli import Role, ToolCallPart, ToolResultPart

    fakes.script("codex", {"lines": codex_answer("done")})
    call = ToolCallPart(name="read", arguments={"path": "a.py"})
    history = [Message.user("read a.py"),
               Message(role=Role.ASSISTANT, parts=[call]),
               Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="read",
                                                             content="x = 1")]),
               Message.assistant("a.py sets x."),
               Message.user("thanks")]
    ask(make_provider("codex"), history)
    prompt = fakes.calls("codex")[0]["stdin"]
    assert '[called tool read with {"path": "a.py"}]' in prompt
    assert "[tool read returned: x = 1]" in prompt


@pytest.mark.parametrize("name, program, answer, gone", [
    ("claude-code", "claude", claude_answer,
     f"No conversation found with session ID: {SESSION}"),
    ("codex", "codex", codex_answer, f"Error: thread/resume: no rollout found for thread id "
                                     f"{SESSION}"),
])
def test_a_session_the_cli_no_longer_has_is_replaced_by_a_transcript(
        fakes, make_provider, name, program, answer, gone) -> None:
    fakes.script(program, {"lines": answer("Paris.", SESSION)},
                 {"lines": [], "stderr": gone + "\n", "exit": 1},
                 {"lines": answer("About 2 million.", "new-session")})
    provider = make_provider(name)
    history = [Message.user("capital of France?")]
    history.append(ask(provider, history))
    history.append(Message.user("its population?"))
    assert ask(provider, history).text == "About 2 million."
    _first, resumed, fresh = fakes.calls(program)
    assert SESSION in resumed["argv"] and SESSION not in fresh["argv"]
    assert "<transcript>" in fresh["stdin"] and "Paris." in fresh["stdin"]


def test_retrying_an_answer_does_not_resume_a_session_that_went_on(fakes,
                                                                   make_provider) -> None:
    # Codex continues the same thread: after turn 2, resuming it would hold turn 2 as well,
    # so answering turn 2 again (/retry, or a rewind to it) must start from a transcript
    fakes.script("codex", {"lines": codex_answer("one", SESSION)},
                 {"lines": codex_answer("two", SESSION)},
                 {"lines": codex_answer("two again", "other")})
    provider = make_provider("codex")
    history = [Message.user("q1")]
    history.append(ask(provider, history))
    history.append(Message.user("q2"))
    ask(provider, history)  # resumed: the thread now holds q2 and its answer
    ask(provider, history)  # the same request again
    third = fakes.calls("codex")[2]
    assert "resume" not in third["argv"] and "<transcript>" in third["stdin"]
