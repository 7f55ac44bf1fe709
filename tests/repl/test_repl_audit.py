"""Regressions found by the acceptance audit of the REPL, driven in a real terminal (tmux):
completing a plugin command's dynamic arguments, Ctrl+C on a typed line, ``@path`` files, a huge
paste, and ``chatcli -c`` in the REPL after ``kill -9``."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import Fault, Reply

from .terminal import Terminal, wait_until

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def last_user_content(server: object) -> str:
    content = server.requests[-1].json["messages"][-1]["content"]  # type: ignore[attr-defined]
    assert isinstance(content, str)
    return content


def input_line(screen: str) -> str:
    """The last prompt line on the screen."""
    return [line for line in screen.splitlines() if line.startswith("›")][-1]


def test_session_load_completes_session_ids(start_chat: Callable[..., Terminal],
                                            openai_server) -> None:
    openai_server.script(Reply(text="noted"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("remember this")
    term.wait_for("noted")
    term.type("/session save keepme")
    screen = term.wait_for("Saved session s_")
    session_id = screen.split("Saved session ")[1].split()[0]
    term.send("-l", "/session load kee")  # the sessions plugin's completer: ids and names
    term.send("Tab")
    term.wait_for(lambda s: input_line(s).rstrip() == "› /session load keepme")
    term.send("C-u")
    term.send("-l", f"/session load {session_id[:5]}")
    term.send("Tab")
    term.wait_for(lambda s: input_line(s).rstrip() == f"› /session load {session_id}")


def test_ctrl_c_clears_a_typed_line_and_hints_on_an_empty_one(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.send("-l", "half a thought")
    term.wait_for("› half a thought")
    term.send("C-c")
    screen = term.wait_for(lambda s: input_line(s).rstrip() == "›")
    assert "Ctrl+D or /exit quits" not in screen  # clearing a line is not an attempt to leave
    term.send("C-c")
    term.wait_for("(Ctrl+D or /exit quits)")
    term.send("C-d")
    term.wait_for("EXIT=0")
    assert openai_server.requests == []


def test_at_path_attaches_text_files_and_refuses_binary_ones(
        start_chat: Callable[..., Terminal], openai_server, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret number is 4711\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    openai_server.script(Reply(text="it is 4711"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type(f"what number is in @{tmp_path}/notes.txt?")
    term.wait_for("it is 4711")
    sent = last_user_content(openai_server)
    assert sent.startswith(f"what number is in @{tmp_path}/notes.txt?")
    assert f'<file path="{tmp_path}/notes.txt">' in sent and "the secret number is 4711" in sent
    screen = term.screen()
    assert screen.count("the secret number is 4711") == 0  # the echo shows what was typed

    term.type(f"and @{tmp_path}/blob.bin")
    screen = term.wait_for("is a binary file")
    assert "Traceback" not in screen and "not sent" in screen
    term.wait_for(lambda s: input_line(s).rstrip() == f"› and @{tmp_path}/blob.bin")
    assert len(openai_server.requests) == 1  # nothing was sent


def test_a_huge_paste_is_sent_whole_and_echoed_short(start_chat: Callable[..., Terminal],
                                                     openai_server) -> None:
    openai_server.script(Reply(text="got the paste"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    pasted = "\n".join(f"pasted line {i}" for i in range(3000))
    term.paste(pasted)
    term.wait_for("pasted line 2999", timeout=30)
    assert openai_server.requests == []  # a paste never sends by itself
    term.send("Enter")
    screen = term.wait_for("got the paste", timeout=30)
    assert last_user_content(openai_server) == pasted
    echo = screen[screen.rindex("› pasted line 0"):]
    assert "2,989 more lines" in echo
    assert "pasted line 2999" not in echo and "pasted line 10" in echo


def test_continue_in_the_repl_after_kill_9(start_chat: Callable[..., Terminal],
                                           openai_server) -> None:
    openai_server.script(Reply(text="The **first** answer."),
                         Reply(text="slow answer " * 200, delay=0.05, chunk_size=6),
                         Reply(text="picked up again"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("first question")
    term.wait_for("The first answer.")
    term.type("second question")
    term.wait_for("slow answer slow answer")
    os.kill(term.program_pid(), signal.SIGKILL)
    term.wait_for("EXIT=137")

    again = start_chat("--provider", "openai", "-c", **openai_env(openai_server))
    screen = again.wait_for("not answered yet")
    assert "resumed 3 messages" in screen and "› second question" in screen
    again.type("/retry")
    again.wait_for("picked up again")
    wait_until(lambda: len(openai_server.requests) == 3)
    sent = [(m["role"], m["content"]) for m in openai_server.requests[2].json["messages"][1:]]
    assert sent == [("user", "first question"), ("assistant", "The **first** answer."),
                    ("user", "second question")]


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


def test_esc_closes_a_menu_at_once_and_keeps_what_is_typed_next(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    # Esc is also the start of Esc Enter / Esc Esc; in a menu it must not wait for a second key
    # and swallow the first characters typed after it.
    openai_server.script(Reply(text="answer one"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("msg one")
    term.wait_for("answer one")
    term.type("/rewind")
    term.wait_for("↑/↓ and Enter")
    term.type("not a number")  # no answer: said so, and the menu stays open
    term.wait_for("'not a number' is not a choice: type 1 to 1")
    term.send("Escape", pause=0.1)
    term.type("/help")
    screen = term.wait_for("/switch")
    assert "Rewind cancelled." in screen
    assert "› /help" in screen


def test_continue_shows_that_the_last_answer_was_interrupted(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="word " * 400, delay=0.05, chunk_size=5))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("tell me a long story")
    term.wait_for("word word word")
    term.send("C-c")
    term.wait_for("interrupted — the partial answer is kept")
    term.send("C-d")
    term.wait_for("EXIT=0")

    again = start_chat("--provider", "openai", "-c", **openai_env(openai_server))
    screen = again.wait_for("resumed 2 messages")
    screen = again.wait_for("this answer was interrupted — /retry answers again")
    assert screen.index("› tell me a long story") < screen.index("this answer was interrupted")
