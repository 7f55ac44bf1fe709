"""The interactive chat driven in a real terminal (tmux) against the local OpenAI/Anthropic
servers: markdown rendering, plain answers whole in the scrollback, Ctrl+C, type-ahead, /switch,
unknown commands, /retry, and the one error line of a cut stream."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import Fault, Reply

from .terminal import Terminal, wait_until

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def texts(request: object) -> list[tuple[str, str]]:
    """(role, text) of the messages an OpenAI request carried."""
    out = []
    for message in request.json["messages"]:  # type: ignore[attr-defined]
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append((message["role"], content or ""))
    return out


def test_streamed_answer_renders_as_markdown(start_chat: Callable[..., Terminal],
                                            openai_server) -> None:
    openai_server.script(Reply(
        text="## Plan\n\nThis is **very bold** text.\n\n- first point\n- second point\n\n"
             "```python\nprint('hi')\n```\n\nAll done.", delay=0.01,
        usage={"input_tokens": 12345, "output_tokens": 67, "cache_read_tokens": 2048}))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("show me markdown")
    screen = term.wait_for(lambda s: "All done." in s and " in · " in s)
    assert "This is very bold text." in screen
    assert "**" not in screen and "```" not in screen and "## Plan" not in screen
    assert "• first point" in screen
    assert "print('hi')" in screen
    assert screen.count("All done.") == 1 and screen.count("first point") == 1
    footer = screen.split("All done.")[1]
    assert "openai/" in footer  # the footer names the model, tokens and cache use
    assert "12,345 in · 67 out · cache 2,048 read · 0 write" in footer


def test_ctrl_c_keeps_the_partial_answer_and_the_prompt_returns(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="word " * 400, delay=0.05, chunk_size=5),
                         Reply(text="after the interruption"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("tell me a long story")
    term.wait_for("word word word")
    term.send("C-c")
    term.wait_for("interrupted")
    term.type("go on")
    term.wait_for("after the interruption")
    second = texts(openai_server.requests[1])
    assistant = [text for role, text in second if role == "assistant"]
    assert assistant and assistant[0].startswith("word word")
    assert len(assistant[0]) < len("word " * 400)  # cut short, but kept
    assert second[-1] == ("user", "go on")
    # Ctrl+C at an empty prompt does not exit; Ctrl+D then leaves cleanly.
    term.send("C-c")
    term.send("C-d")
    term.wait_for("EXIT=0")


def test_an_answer_cut_at_max_tokens_says_so(start_chat: Callable[..., Terminal],
                                             openai_server) -> None:
    openai_server.script(Reply(text="The first half of the answ", stop_reason="max_tokens"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("a long answer")
    screen = term.wait_for("cut at max_tokens")
    assert "chatcli config set max_tokens" in screen
    assert screen.index("The first half") < screen.index("cut at max_tokens")


def test_type_ahead_is_queued_and_answered_after_the_current_answer(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="first answer " * 40, delay=0.05, chunk_size=13),
                         Reply(text="second reply done"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("question one")
    term.wait_for("first answer first answer")
    term.type("question two")
    term.wait_for("queued: question two")
    assert len(openai_server.requests) == 1  # not sent while the first answer streams
    screen = term.wait_for("second reply done", timeout=20)
    assert screen.index("first answer") < screen.index("› question two") < screen.index(
        "second reply done")
    second = texts(openai_server.requests[1])
    assert second[-1] == ("user", "question two")
    assert any(role == "assistant" and text.startswith("first answer") for role, text in second)


def test_switch_changes_provider_mid_conversation(start_chat: Callable[..., Terminal],
                                                  openai_server, anthropic_server) -> None:
    openai_server.script(Reply(text="hello from openai"))
    anthropic_server.script(Reply(text="hello from anthropic"))
    term = start_chat("--provider", "openai", **openai_env(openai_server),
                      ANTHROPIC_API_KEY="test", ANTHROPIC_BASE_URL=anthropic_server.url)
    term.type("first")
    term.wait_for("hello from openai")
    term.type("/switch anthropic")
    term.wait_for("now using anthropic/")
    term.type("second")
    term.wait_for("hello from anthropic")
    assert len(openai_server.requests) == 1 and len(anthropic_server.requests) == 1
    sent = anthropic_server.requests[0].json["messages"]
    flat = str(sent)
    assert "first" in flat and "hello from openai" in flat  # the history came along
    term.type("/switch --model other-model")
    term.wait_for("now using anthropic/other-model")
    term.type("/switch --model")
    term.wait_for("✗ --model needs a model name")
    term.type("/switch 'openai")
    screen = term.wait_for("✗ cannot read the arguments (no closing quotation)")
    assert "ValueError" not in screen


def test_unknown_command_suggests_the_closest(start_chat: Callable[..., Terminal],
                                              openai_server) -> None:
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("/swich openai")
    term.wait_for("unknown command /swich — did you mean /switch?")
    term.type("/help")
    screen = term.wait_for("/retry")
    assert "/switch" in screen and "/config" in screen
    session_row = next(line for line in screen.splitlines() if line.startswith("/session "))
    assert "new | save NAME" in session_row  # the name column stays narrow: help on one row
    assert openai_server.requests == []  # commands never reach the model


def test_retry_after_a_server_error(start_chat: Callable[..., Terminal], openai_server,
                                    chatcli_home) -> None:
    (chatcli_home / "config" / "config.toml").write_text(
        "[providers.openai]\nmax_retries = 0\n")
    openai_server.script(Fault(status=500, message="the server broke"),
                         Reply(text="recovered answer"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("please answer")
    screen = term.wait_for("/retry sends it again")
    assert "Traceback" not in screen
    term.type("/retry")
    term.wait_for("recovered answer")
    wait_until(lambda: len(openai_server.requests) == 2)
    assert texts(openai_server.requests[1])[-1] == ("user", "please answer")
    # the user's message was kept once, not duplicated
    assert [t for t in texts(openai_server.requests[1]) if t[0] == "user"] == [
        ("user", "please answer")]


def test_spinner_multiline_input_completion_and_history(
        start_chat: Callable[..., Terminal], openai_server, chatcli_home) -> None:
    openai_server.script(Fault(stall=2.0, reply=Reply(text="late answer")))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.send("-l", "line one")
    term.send("M-Enter")
    term.send("-l", "line two")
    term.send("Enter")
    term.wait_for("thinking…")  # the spinner with elapsed time, before the first token
    term.wait_for("late answer")
    assert texts(openai_server.requests[0])[-1] == ("user", "line one\nline two")
    term.send("-l", "/swi")
    term.send("Tab")
    term.wait_for("› /switch")
    term.send("C-u")
    term.send("C-d")
    term.wait_for("EXIT=0")
    history = (chatcli_home / "data" / "history").read_text()
    assert "line one" in history and "line two" in history


def test_escape_escape_opens_rewind_menu_and_prefills(start_chat: Callable[..., Terminal],
                                                      openai_server) -> None:
    # /rewind comes from the sessions plugin; the REPL routes Esc Esc to it and draws its menu.
    openai_server.script(Reply(text="answer one"), Reply(text="answer two"),
                         Reply(text="answer again"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("msg one")
    term.wait_for("answer one")
    term.type("msg two")
    term.wait_for("answer two")
    term.send("Escape", "Escape", pause=1.0)
    term.wait_for("↑/↓ and Enter")
    term.send("Down")
    term.send("Enter")
    term.wait_for("› msg one", timeout=10)  # back in the input line, ready to edit
    term.send("Enter")
    term.wait_for("answer again")
    assert texts(openai_server.requests[2])[-1:] == [("user", "msg one")]
    assert not any(text == "answer one" for _, text in texts(openai_server.requests[2]))


def test_a_cut_stream_gives_one_clean_error_line(start_chat: Callable[..., Terminal],
                                                openai_server, chatcli_home: Path) -> None:
    (chatcli_home / "config" / "config.toml").write_text(
        "[providers.openai]\nmax_retries = 0\n")
    openai_server.script(Fault(cut_after=3, reply=Reply(text="partial words arrive here",
                                                        chunk_size=4)))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("please answer")
    screen = term.wait_for(lambda s: "your message is kept" in s and "openai/" in
                           s.split("your message is kept")[-1])
    error = next(line for line in screen.splitlines() if line.startswith("✗"))
    error += screen.split(error, 1)[1].split("\n", 2)[1]  # it may wrap onto a second line
    assert error.count("/retry") == 1
    footer = screen.split("your message is kept")[-1]
    assert " in · " not in footer  # the usage of a cut answer is unknown, not zero


def test_plain_answers_reach_the_scrollback_whole(start_chat: Callable[..., Terminal],
                                                  openai_server, chatcli_home: Path) -> None:
    # markdown = false: text streamed in small pieces used to be written above the prompt a
    # piece at a time, and each redraw of the prompt overwrote the start of the line.
    (chatcli_home / "config" / "config.toml").write_text("markdown = false\n")
    answer = "".join(f"line {i}: the {i}th line of a plain answer\n" for i in range(12))
    openai_server.script(Reply(text=answer + "the end", chunk_size=3, delay=0.01))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("plain please")
    screen = term.wait_for(lambda s: "the end" in s and "openai/" in s.split("the end")[-1])
    shown = screen.split("› plain please\n", 1)[1].split("the end")[0]
    assert [line.rstrip() for line in shown.splitlines()] == answer.splitlines()
