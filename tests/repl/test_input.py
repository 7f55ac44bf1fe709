"""Typing in the chat, driven in a real terminal (tmux): completing a plugin command's dynamic
arguments, Ctrl+C on a typed line, Esc in a menu, a huge paste, and a message that starts with
a path (sent, not taken for a command)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def last_user_content(server: object) -> str:
    content = server.requests[-1].json["messages"][-1]["content"]  # type: ignore[attr-defined]
    assert isinstance(content, str)
    return content


def sent_messages(server: object) -> list[tuple[str, str]]:
    """(role, content) of the last request, without the system prompt."""
    messages = server.requests[-1].json["messages"]  # type: ignore[attr-defined]
    return [(m["role"], m.get("content") or "") for m in messages if m["role"] != "system"]


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


def test_a_message_starting_with_a_path_is_sent_not_taken_for_a_command(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="a typo in line 12"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    trace = "/home/me/app.py:12: TypeError: unsupported operand\nwhy does this fail?"
    term.paste(trace)
    term.send("Enter")
    screen = term.wait_for("a typo in line 12")
    assert "unknown command" not in screen
    assert sent_messages(openai_server)[-1] == ("user", trace)
    term.type("/hepl")  # a mistyped command is still a command
    term.wait_for("unknown command /hepl — did you mean /help?")
