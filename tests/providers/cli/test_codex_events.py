"""Codex's exec --json events → chatcli stream events, with a fake ``codex`` on PATH."""

from __future__ import annotations

from typing import Any

from chatcli import ChatRequest, Message, StopReason, TextDelta, UsageEvent
from claude_codex_fakes import codex_answer


def run(provider: Any, *messages: Message) -> list[Any]:
    chat = ChatRequest(model="default", messages=list(messages) or [Message.user("hi")])
    return [e for e in provider.stream(chat) if not (isinstance(e, UsageEvent)
                                                     and e.usage.total_tokens == 0)]


def text(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_the_agent_message_is_the_answer_with_turn_usage(fakes, make_provider) -> None:
    fakes.script("codex", {"lines": codex_answer("Yep — there's a `README.md`.")})
    events = run(make_provider("codex", model="gpt-5.5"))
    assert text(events) == "Yep — there's a `README.md`."  # no reasoning, no command output
    usage = [e for e in events if isinstance(e, UsageEvent)][-1].usage
    # Codex counts cached tokens inside input_tokens, as chatcli does
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (
        24763, 24448, 122)
    assert events[-1].reason == StopReason.END_TURN and events[-1].model == "gpt-5.5"
    call = fakes.calls("codex")[0]
    assert call["argv"] == ["exec", "--json", "--skip-git-repo-check", "--model", "gpt-5.5", "-"]
    assert call["stdin"] == "hi"


def test_several_agent_messages_and_growing_updates_are_shown_once(fakes,
                                                                   make_provider) -> None:
    thread = "0199a213-81c0-7800-8aa1-bbab2a035a53"
    fakes.script("codex", {"lines": [
        {"type": "thread.started", "thread_id": thread},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message",
                                            "text": "I'll check the tests first."}},
        {"type": "error", "message": "Reconnecting... 1/5"},
        {"type": "item.started", "item": {"id": "item_3", "type": "agent_message", "text": ""}},
        {"type": "item.updated", "item": {"id": "item_3", "type": "agent_message",
                                          "text": "All 12 tests"}},
        {"type": "item.completed", "item": {"id": "item_3", "type": "agent_message",
                                            "text": "All 12 tests pass."}},
        {"type": "item.completed", "item": {"id": "item_4", "type": "todo_list", "items": [
            {"text": "run tests", "completed": True}]}},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "cached_input_tokens": 0,
                                             "output_tokens": 5}},
    ]})
    assert text(run(make_provider("codex"))) == (
        "I'll check the tests first.\n\nAll 12 tests pass.")


def test_options_come_before_resume_and_the_prompt_is_read_from_stdin(fakes,
                                                                      make_provider) -> None:
    fakes.script("codex", {"lines": codex_answer("first", "th-1")},
                 {"lines": codex_answer("second", "th-1")})
    provider = make_provider("codex", args=["--sandbox", "workspace-write"],
                             skip_git_repo_check=False)
    first = Message.user("one")
    answer = Message.assistant("".join(text(run(provider, first))))
    run(provider, first, answer, Message.user("two"))
    argv = fakes.calls("codex")[1]["argv"]
    assert argv == ["exec", "--json", "--sandbox", "workspace-write", "resume", "th-1", "-"]
    assert fakes.calls("codex")[1]["stdin"] == "two"
