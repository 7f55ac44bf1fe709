"""The Q daemon (one interactive ``q chat`` behind pipes) against the fake ``q``."""

from __future__ import annotations

import pytest
from chatcli import AuthError, ChatRequest, Message, PromptSection, StopEvent, TextDelta
from chatcli_provider_q._daemon import QDaemonProvider, QStartQuestionError, encode_input
from chatcli_provider_q._errors import QCrashError, QTimeoutError, QToolApprovalError
from chatcli_provider_q._plain import QProvider
from chatcli_provider_q.plugin import make_provider
from q_support import FakeQ, answer_text, assert_no_orphans, config, request, running


def conversation(provider: QDaemonProvider, *questions: str) -> list[str]:
    """Ask ``questions`` in one conversation, as the engine would; the answers."""
    messages: list[Message] = []
    answers = []
    for question in questions:
        messages.append(Message.user(question))
        req = request()
        req.messages = list(messages)
        answer = answer_text(provider.stream(req))
        messages.append(Message.assistant(answer))
        answers.append(answer)
    return answers


def test_daemon_is_the_default_and_plain_when_switched_off(
        fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_provider(config()), QDaemonProvider)
    assert isinstance(make_provider(config(daemon=False)), QProvider)
    monkeypatch.setenv("CHATCLI_Q_DAEMON", "false")
    assert isinstance(make_provider(config(daemon=True)), QProvider)


def test_one_process_answers_a_whole_conversation(fake_q: FakeQ) -> None:
    provider = make_provider(config())
    answers = conversation(provider, "first", "second ✨", "third")
    assert answers[1] == "You said: second ✨\n\nI know 1 earlier questions."
    assert answers[2].endswith("I know 2 earlier questions.")
    assert len(fake_q.starts()) == 1 and fake_q.starts()[0]["argv"] == ["chat"]
    assert fake_q.inputs() == ["first", "second ✨", "third"]  # only the newest each time


def test_a_plugins_task_goes_to_a_q_of_its_own(fake_q: FakeQ) -> None:
    """Memory extraction or a compaction summary must not take the daemon's conversation."""
    provider = make_provider(config())
    messages = [Message.user("first")]
    req = request()
    req.messages = messages
    messages.append(Message.assistant(answer_text(provider.stream(req))))
    task = ChatRequest(model="default", messages=[Message.user("the conversation…")],
                       system=[PromptSection("memory-extraction", "List what to remember.")])
    assert answer_text(provider.stream(task)).startswith("You said:")
    assert fake_q.starts()[-1]["argv"] == ["chat", "--no-interactive", fake_q.inputs()[-1]]
    assert fake_q.inputs()[-1] == "Instructions:\nList what to remember.\n\nthe conversation…"
    messages.append(Message.user("second"))
    req = request()
    req.messages = list(messages)
    assert answer_text(provider.stream(req)).endswith("I know 1 earlier questions.")
    assert [s["argv"] for s in fake_q.starts()].count(["chat"]) == 1


def test_answers_stream(fake_q: FakeQ) -> None:
    events = list(make_provider(config()).stream(request("hi there")))
    assert sum(isinstance(e, TextDelta) for e in events) > 3
    assert isinstance(events[-1], StopEvent)


@pytest.mark.parametrize("daemon", [True, False])
def test_the_marker_of_each_part_of_an_answer_goes(fake_q: FakeQ, daemon: bool) -> None:
    """After a tool use q starts the next part of its answer with "> " again."""
    provider = make_provider(config(daemon=daemon))
    answer = answer_text(provider.stream(request("read the file")))
    assert answer == ("I'll read it.\n\nYou said: read the file\n\n"
                      "I know 0 earlier questions.")


def test_multi_line_messages_are_one_input(fake_q: FakeQ) -> None:
    assert encode_input("a\nb\\") == "a\\\nb\\ \n"
    answer = answer_text(make_provider(config()).stream(request("line one\nline two")))
    assert answer.startswith("You said: line one\\\nline two")
    assert fake_q.inputs() == ["line one\\\nline two"]  # q keeps the continuation mark


def test_an_agent_prompt_is_recognised(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_PROMPT", "[dev] 6% !> ")
    assert conversation(make_provider(config()), "a", "b")[1].endswith("I know 1 earlier "
                                                                       "questions.")


def test_without_a_prompt_silence_ends_the_answer(fake_q: FakeQ,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_NO_PROMPT", "1")
    answers = conversation(make_provider(config(idle_end=0.5)), "a", "b")
    assert answers == ["You said: a\n\nI know 0 earlier questions.",
                       "You said: b\n\nI know 1 earlier questions."]


def test_with_a_prompt_silence_does_not_end_the_answer(fake_q: FakeQ,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_PAUSE", "1.0")
    answers = conversation(make_provider(config(idle_end=0.3)), "a b c d e", "next")
    assert answers == ["You said: a b c d e\n\nI know 0 earlier questions.",
                       "You said: next\n\nI know 1 earlier questions."]


def test_a_rewound_conversation_restarts_q_with_a_transcript(fake_q: FakeQ) -> None:
    provider = make_provider(config())
    conversation(provider, "first", "second")
    answer = answer_text(provider.stream(request("other", "an answer", "again")))
    assert "I was given a transcript" in answer and "I know 0 earlier" in answer
    assert len(fake_q.starts()) == 2
    assert not running(fake_q.pids()[0])


def test_a_q_that_died_between_messages_is_replaced_and_given_the_transcript(
        fake_q: FakeQ) -> None:
    provider = make_provider(config())
    messages = [Message.user("first")]
    req = request()
    req.messages = list(messages)
    messages.append(Message.assistant(answer_text(provider.stream(req))))
    assert provider.daemon.process is not None
    provider.daemon.process.kill()
    messages.append(Message.user("second"))
    req = request()
    req.messages = list(messages)
    answer = answer_text(provider.stream(req))
    assert answer == ("You said: second\n\nI know 0 earlier questions. "
                      "I was given a transcript.")
    assert len(fake_q.starts()) == 2


def test_a_crash_before_answering_restarts_once(fake_q: FakeQ,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "crash_once")
    answer = answer_text(make_provider(config()).stream(request("hi")))
    assert answer == "You said: hi\n\nI know 0 earlier questions."
    assert len(fake_q.starts()) == 2


def test_a_broken_pipe_restarts_once(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "exit_once")
    answer = answer_text(make_provider(config()).stream(request("hi")))
    assert answer == "You said: hi\n\nI know 0 earlier questions."
    assert len(fake_q.starts()) == 2


def test_a_crash_mid_answer_keeps_the_part_and_restarts_next_time(
        fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "crash")
    provider = make_provider(config())
    got: list[str] = []
    with pytest.raises(QCrashError, match="ended in the middle of the answer"):
        for event in provider.stream(request("hi")):
            got.append(getattr(event, "text", ""))
    assert "".join(got) == "You said: "
    monkeypatch.setenv("FAKE_Q_MODE", "ok")
    assert answer_text(provider.stream(request("again"))).startswith("You said: again")
    assert len(fake_q.starts()) == 2


def test_a_hang_times_out_and_the_process_is_replaced(fake_q: FakeQ,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "hang")
    provider = make_provider(config(timeout=1.0))
    with pytest.raises(QTimeoutError, match="sent no answer in 1s"):
        list(provider.stream(request("hi")))
    first = fake_q.pids()[0]
    monkeypatch.setenv("FAKE_Q_MODE", "ok")
    assert answer_text(provider.stream(request("hi"))).startswith("You said: hi")
    assert_no_orphans([first])


def test_the_default_timeout_is_30_seconds(fake_q: FakeQ) -> None:
    assert make_provider(config()).options.timeout == 30.0
    assert make_provider(config(timeout=5.0)).options.timeout == 5.0


def test_not_logged_in_at_start(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "notloggedin")
    with pytest.raises(AuthError, match="run `q login`"):
        list(make_provider(config()).stream(request("hi")))


def test_a_question_at_start_is_an_error(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_MODE", "ask_at_start")
    with pytest.raises(QStartQuestionError, match=r"Migrate them to agents\? \[y/N\]") as err:
        list(make_provider(config()).stream(request("hi")))
    assert "run `q chat` once in a terminal" in str(err.value)
    assert fake_q.inputs() == []  # the message was not taken as the answer


def test_a_tool_approval_question_is_an_error(fake_q: FakeQ) -> None:
    provider = make_provider(config())
    with pytest.raises(QToolApprovalError, match="trust_all_tools"):
        list(provider.stream(request("please use a tool")))
    assert answer_text(provider.stream(request("hi"))).startswith("You said: hi")
    assert len(fake_q.starts()) == 2  # q waited for a y/n: a new one answers


def test_close_quits_and_nothing_is_left(fake_q: FakeQ) -> None:
    provider = make_provider(config())
    answer_text(provider.stream(request("hi")))
    pid = provider.daemon.pid
    assert pid is not None and running(pid)
    provider.close()
    assert_no_orphans([pid])
    assert provider.daemon.pid is None


def test_a_stopped_turn_kills_q_at_once(fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_Q_DELAY", "0.2")
    provider = make_provider(config())
    stream = provider.stream(request("a b c d e f g"))
    next(stream)
    pid = provider.daemon.pid
    stream.close()
    assert pid is not None
    assert_no_orphans([pid], wait=3.0)
    monkeypatch.setenv("FAKE_Q_DELAY", "0.01")
    assert answer_text(provider.stream(request("next"))).startswith("You said: next")


def test_cancel_kills_the_answering_daemon_and_the_next_answer_starts_anew(
        fake_q: FakeQ, monkeypatch: pytest.MonkeyPatch) -> None:
    # what the engine does on Ctrl+C while its reader thread waits inside the stream
    import threading

    monkeypatch.setenv("FAKE_Q_PAUSE", "60")  # a long silence after the answer's fourth word
    provider = make_provider(config())  # timeout 120 s
    stream = provider.stream(request("a b c d e f"))
    got: list[str] = []
    started = threading.Event()

    def read() -> None:
        try:
            for event in stream:
                got.append(getattr(event, "text", ""))
                started.set()
        except Exception:  # the killed q's error: the engine has let go of it already
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert started.wait(30)  # the answer is under way, then q goes silent
    first = fake_q.pids()
    stream.cancel()  # type: ignore[attr-defined]
    assert_no_orphans(first, wait=10.0)
    reader.join(10)
    assert not reader.is_alive()
    monkeypatch.delenv("FAKE_Q_PAUSE")
    assert answer_text(provider.stream(request("next"))).startswith("You said: next")
    assert len(fake_q.starts()) == 2
