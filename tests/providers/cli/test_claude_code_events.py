"""Claude Code's stream-json events → chatcli stream events, with a fake ``claude`` on PATH."""

from __future__ import annotations

from typing import Any

from chatcli import ChatRequest, Message, StopEvent, StopReason, TextDelta, ToolSpec, UsageEvent
from claude_codex_fakes import (
    CLAUDE_MODEL,
    claude_answer,
    claude_assistant,
    claude_init,
    claude_result,
)


def run(provider: Any, *messages: Message, **request: Any) -> list[Any]:
    chat = ChatRequest(model="default", messages=list(messages) or [Message.user("hi")],
                       **request)
    return [e for e in provider.stream(chat) if not (isinstance(e, UsageEvent)
                                                     and e.usage.total_tokens == 0)]


def text(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_partial_deltas_stream_the_text_once_with_usage_and_the_model_that_answered(
        fakes, make_provider) -> None:
    fakes.script("claude", {"lines": claude_answer("Hello **world**, from Claude.")})
    events = run(make_provider())
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Hello **world*", "*, from Claude."]  # pieces, not the message again
    usage = [e for e in events if isinstance(e, UsageEvent)][-1].usage
    # cache reads and writes are counted inside input_tokens, as for the anthropic provider
    assert (usage.input_tokens, usage.output_tokens) == (6 + 14523 + 2310, 42)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (14523, 2310)
    assert events[-1] == StopEvent(reason=StopReason.END_TURN, model=CLAUDE_MODEL)
    argv = fakes.calls("claude")[0]["argv"]
    assert argv[:4] == ["-p", "--output-format", "stream-json", "--verbose"]
    assert "--include-partial-messages" in argv and "--model" not in argv


def test_without_partial_messages_each_assistant_message_is_text_separated_by_a_blank_line(
        fakes, make_provider) -> None:
    session = "0b6b6e43-5c54-4f2f-9a57-1f4d51f0b7a1"
    fakes.script("claude", {"lines": [
        claude_init(session),
        claude_assistant(session, [{"type": "thinking", "thinking": "", "signature": "x"}]),
        claude_assistant(session, [
            {"type": "text", "text": "Let me look at the file."},
            {"type": "tool_use", "id": "toolu_01", "name": "Read",
             "input": {"file_path": "README.md"}}]),
        {"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": "toolu_01", "type": "tool_result", "content": "# readme"}]},
         "parent_tool_use_id": None, "session_id": session},
        claude_assistant(session, [{"type": "text", "text": "sub-agent chatter"}],
                         parent="toolu_09"),
        {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed",
                                                         "rateLimitType": "five_hour"},
         "session_id": session, "uuid": "u"},
        claude_assistant(session, [{"type": "text", "text": "It is a readme."}],
                         model="claude-opus-4-1"),
        claude_result(session, "It is a readme."),
    ]})
    events = run(make_provider(partial_messages=False, model="opus"))
    assert text(events) == "Let me look at the file.\n\nIt is a readme."
    assert events[-1].model == "claude-opus-4-1"
    argv = fakes.calls("claude")[0]["argv"]
    assert "--include-partial-messages" not in argv
    assert argv[argv.index("--model") + 1] == "opus"


def test_a_result_without_streamed_text_gives_its_result_text(fakes, make_provider) -> None:
    session = "s-1"
    fakes.script("claude", {"lines": [claude_init(session),
                                      claude_result(session, "Only in the result.")]})
    assert text(run(make_provider())) == "Only in the result."


def test_max_tokens_and_turn_limit_are_stop_reasons_when_text_arrived(fakes,
                                                                      make_provider) -> None:
    session = "s-2"
    fakes.script(
        "claude",
        {"lines": [claude_init(session), claude_assistant(session, [{"type": "text",
                                                                     "text": "cut"}]),
                   claude_result(session, "cut", stop_reason="max_tokens")]},
        {"lines": [claude_init(session), claude_assistant(session, [{"type": "text",
                                                                     "text": "partly"}]),
                   claude_result(session, "", subtype="error_max_turns", is_error=True)]},
    )
    provider = make_provider()
    assert run(provider)[-1].reason == StopReason.MAX_TOKENS
    assert run(provider)[-1].reason == StopReason.TURN_LIMIT


def test_an_answer_cut_at_the_output_limit_ends_with_max_tokens(fakes, make_provider) -> None:
    session = "s-3"
    fakes.script("claude", {"lines": [
        claude_init(session),
        claude_assistant(session, [{"type": "text", "text": "A very long ans"}],
                         error="max_output_tokens"),
        claude_result(session, "Claude's response exceeded the output token maximum.",
                      is_error=True)], "exit": 1})
    events = run(make_provider())
    assert text(events) == "A very long ans" and events[-1].reason == StopReason.MAX_TOKENS


def test_chatcli_tools_and_its_own_prompt_sections_are_not_forwarded(fakes,
                                                                     make_provider) -> None:
    from chatcli import PromptSection

    fakes.script("claude", {"lines": claude_answer("ok")})
    run(make_provider(), Message.user("hi"),
        tools=[ToolSpec("write_note", "writes a note")],
        system=[PromptSection("chatcli", "You are chatcli, call context_pull…", order=0),
                PromptSection("skills", "Call context_pull for a skill.", order=60),
                PromptSection("user-system", "Answer in French.", order=900)])
    call = fakes.calls("claude")[0]
    argv = call["argv"]
    assert argv[argv.index("--append-system-prompt") + 1] == "Answer in French."
    assert "write_note" not in " ".join(argv) + call["stdin"]
    assert "context_pull" not in " ".join(argv) + call["stdin"]


def test_system_prompt_none_and_extra_args(fakes, make_provider) -> None:
    from chatcli import PromptSection

    fakes.script("claude", {"lines": claude_answer("ok")})
    run(make_provider(system_prompt="none", args="--permission-mode acceptEdits"),
        system=[PromptSection("user-system", "Answer in French.", order=900)])
    argv = fakes.calls("claude")[0]["argv"]
    assert "--append-system-prompt" not in argv
    assert argv[-2:] == ["--permission-mode", "acceptEdits"]


def test_the_registered_specs_need_no_key_and_are_never_chosen_automatically() -> None:
    from chatcli import PluginHost

    host = PluginHost()
    from chatcli_provider_cli import plugin

    host.register(plugin, "claude_codex")
    specs = host.providers()
    for name in ("claude-code", "codex"):
        spec = specs[name]
        assert not spec.requires_key and not spec.auto_select
        assert spec.capabilities.native_tools  # tools go as definitions, never in the prompt
        assert "command" in spec.options and "timeout" not in spec.options  # a kernel key
