"""The plain Q provider (``q chat --no-interactive`` per answer) against the fake ``q``."""

from __future__ import annotations

import pytest
from chatcli import (
    AuthError,
    BadRequestError,
    ProviderError,
    RateLimitError,
    StopEvent,
    TextDelta,
)
from chatcli_provider_q._errors import (
    QEmptyAnswerError,
    QExitError,
    QNotInstalledError,
    QTimeoutError,
)
from chatcli_provider_q.plugin import make_provider
from q_support import FakeQ, answer_text, assert_no_orphans, config, request


@pytest.fixture
def plain(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> FakeQ:
    monkeypatch.setenv("CHATCLI_Q_DAEMON", "false")
    return fake_q


def test_answers_cleaned_and_streamed(plain: FakeQ) -> None:
    provider = make_provider(config())
    events = list(provider.stream(request("héllo ✨")))
    assert answer_text(events) == "You said: héllo ✨\n\nI know 0 earlier questions."
    assert sum(isinstance(e, TextDelta) for e in events) > 3  # streamed, not in one piece
    assert isinstance(events[-1], StopEvent)
    start = plain.starts()[-1]
    assert start["argv"] == ["chat", "--no-interactive", "héllo ✨"]


def test_greeting_and_spinner_on_stdout_are_cleaned_too(plain: FakeQ,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_BANNER_STDOUT", "1")
    text = answer_text(make_provider(config()).stream(request("hi")))
    assert text == "You said: hi\n\nI know 0 earlier questions."


def test_transcript_by_default(plain: FakeQ) -> None:
    provider = make_provider(config())
    text = answer_text(provider.stream(request("first", "an answer", "second")))
    assert "I was given a transcript" in text
    sent = plain.inputs()[-1]
    assert sent.startswith("Previous conversation:\n\nUser: first\n\nAssistant: an answer")
    assert sent.endswith("Current question: second")
    assert "--resume" not in plain.starts()[-1]["argv"]


def test_resume_sends_only_the_newest_message(plain: FakeQ) -> None:
    provider = make_provider(config(context="resume"))
    first = request("first")
    answer_text(provider.stream(first))
    follow = request("first", "You said: first", "second")
    follow.messages[0] = first.messages[0]  # the same conversation goes on
    text = answer_text(provider.stream(follow))
    argv = plain.starts()[-1]["argv"]
    assert argv == ["chat", "--no-interactive", "--resume", "second"]
    assert "I know **1**" not in text and "I know 1 earlier" in text


def test_resume_falls_back_to_a_transcript_for_a_conversation_q_has_not_seen(
        plain: FakeQ) -> None:
    provider = make_provider(config(context="resume"))
    answer_text(provider.stream(request("old", "answer", "new")))
    assert "--resume" not in plain.starts()[-1]["argv"]
    assert plain.inputs()[-1].startswith("Previous conversation:")


def test_trust_all_tools_model_and_args_only_when_configured(plain: FakeQ) -> None:
    answer_text(make_provider(config()).stream(request("a")))
    assert "--trust-all-tools" not in plain.starts()[-1]["argv"]
    answer_text(make_provider(config(trust_all_tools=True, model="claude-sonnet-4",
                                     args=["--agent", "dev"])).stream(request("a")))
    assert plain.starts()[-1]["argv"] == ["chat", "--no-interactive", "--trust-all-tools",
                                          "--model", "claude-sonnet-4", "--agent", "dev", "a"]


def test_a_question_starting_like_a_q_command_is_not_run(plain: FakeQ) -> None:
    answer_text(make_provider(config()).stream(request("!rm -rf /tmp/x")))
    assert plain.inputs()[-1] == "\u200b!rm -rf /tmp/x"


def test_a_long_prompt_goes_through_stdin(plain: FakeQ,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_ANSWER", "Long read.")
    long = "word " * 30_000
    assert answer_text(make_provider(config()).stream(request(long))) == "Long read."
    assert plain.inputs()[-1] == long.strip()
    assert plain.starts()[-1]["argv"] == ["chat", "--no-interactive"]


@pytest.mark.parametrize(("mode", "error", "words"), [
    ("notloggedin", AuthError, "run `q login`"),
    ("quota", RateLimitError, "rate limited"),
    ("approval", BadRequestError, "trust_all_tools"),
    ("exit3", QExitError, "q exited with code 3: the flux capacitor is empty"),
    ("empty", QEmptyAnswerError, "answered nothing"),
])
def test_failures_are_one_line_errors(plain: FakeQ, monkeypatch: pytest.MonkeyPatch, mode: str,
                                      error: type[ProviderError], words: str) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", mode)
    with pytest.raises(error) as caught:
        list(make_provider(config()).stream(request("hi")))
    assert words in str(caught.value)
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)


def test_a_crash_keeps_what_arrived(plain: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "crash")
    got: list[str] = []
    with pytest.raises(QExitError, match="code 70"):
        for event in make_provider(config()).stream(request("hi")):
            got.append(getattr(event, "text", ""))
    assert "".join(got) == "You said: "


def test_garbage_is_cleaned(plain: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "garbage")
    text = answer_text(make_provider(config()).stream(request("hi")))
    assert text.endswith("You said: hi\n\nI know 0 earlier questions.")
    assert "\x1b" not in text and "\x00" not in text


def test_a_silent_q_times_out_and_is_killed(plain: FakeQ,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "hang")
    with pytest.raises(QTimeoutError, match="printed nothing for 1s"):
        list(make_provider(config(timeout=1.0)).stream(request("hi")))
    assert_no_orphans(plain.pids())


def test_closing_the_stream_kills_q(plain: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_DELAY", "0.2")
    stream = make_provider(config()).stream(request("a b c d e f g h"))
    next(stream)
    stream.close()
    assert_no_orphans(plain.pids(), wait=3.0)


def test_not_installed(plain: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(QNotInstalledError, match="not installed or not on PATH"):
        make_provider(config())
    with pytest.raises(QNotInstalledError, match="the configured command 'qq'"):
        make_provider(config(command="qq"))


def test_cancel_kills_a_silent_q_at_once(plain: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    # what the engine does on Ctrl+C while its reader thread waits inside the stream
    import threading

    monkeypatch.setenv("FAKE_Q_MODE", "hang")
    stream = make_provider(config()).stream(request("hi"))  # timeout 120 s
    reader = threading.Thread(target=lambda: list(_swallow(stream)), daemon=True)
    reader.start()
    assert _until(lambda: plain.pids())
    stream.cancel()  # type: ignore[attr-defined]
    assert_no_orphans(plain.pids(), wait=10.0)
    reader.join(10)
    assert not reader.is_alive()


def _swallow(stream):
    try:
        yield from stream
    except Exception:  # the killed q's error: the engine has let go of it already
        return


def _until(condition, limit: float = 10.0) -> bool:
    import time

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not condition():
        time.sleep(0.05)
    return bool(condition())
