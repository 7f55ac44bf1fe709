"""The kernel's part of delegated answers: ``StopEvent.provider``/``failed``, recorded by the
engine on the answer (``Message.provider``/``via``) and the turn (``TurnFinished.answered_by``/
``failed``), ``ProviderError.failed`` on the error path, and ``-c`` going on with ``via``."""

from __future__ import annotations

from collections.abc import Iterator

from chatcli import (
    Conversation,
    Engine,
    FailedAttempt,
    Message,
    PluginHost,
    RateLimitError,
    Settings,
    StopEvent,
    TextDelta,
    TurnFinished,
    raw_settings,
)
from chatcli._session import resumed_model

MISSED = FailedAttempt("anthropic", "claude-x", "rate limited (HTTP 429)", "RateLimitError")


class Delegating:
    """A provider that says another one answered (as a chain does), or fails listing tries."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def stream(self, request) -> Iterator[object]:
        if self.fail:
            error = RateLimitError("every entry failed", "try later")
            error.retryable = False
            error.failed = (MISSED,)
            raise error
        yield TextDelta("hello")
        yield StopEvent(model="gpt-y", provider="openai", failed=(MISSED,))


def _run(provider: Delegating, tmp_path) -> tuple[TurnFinished, Conversation]:
    engine = Engine(PluginHost(warn=lambda line: None), Settings(), provider, "chain", "chain",
                    workspace=tmp_path, sleep=lambda seconds: None)
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("hi")))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished, conversation


def test_a_delegated_answer_names_who_answered_and_who_failed(tmp_path):
    finished, conversation = _run(Delegating(), tmp_path)
    assert finished.error is None and finished.text == "hello"
    assert finished.answered_by == "openai" and finished.model == "gpt-y"
    assert finished.failed == [MISSED]
    answer = conversation.messages()[-1]
    assert (answer.provider, answer.model, answer.via) == ("openai", "gpt-y", "chain")
    # -c goes on with the chain (its configured entries), not with the entry that answered
    assert resumed_model(conversation) == ("chain", None)
    stored = Message.model_validate_json(answer.model_dump_json())
    assert stored.via == "chain"


def test_a_plain_answer_has_no_delegate(tmp_path):
    class Plain:
        def stream(self, request):
            yield TextDelta("hi")
            yield StopEvent(model="m")

    finished, conversation = _run(Plain(), tmp_path)  # type: ignore[arg-type]
    assert finished.answered_by is None and finished.failed == []
    answer = conversation.messages()[-1]
    assert (answer.provider, answer.via) == ("chain", None)
    assert resumed_model(conversation) == ("chain", "m")


def test_the_error_of_a_delegating_provider_carries_its_attempts(tmp_path):
    finished, _conversation = _run(Delegating(fail=True), tmp_path)
    assert isinstance(finished.error, RateLimitError)
    assert finished.failed == [MISSED]


def test_raw_settings_are_plain_data(chatcli_home, monkeypatch):
    (chatcli_home / "config" / "config.toml").write_text(
        '[fallback.pools.fast]\nentries = ["openai/a"]\n')
    monkeypatch.setenv("CHATCLI_FALLBACK__CHAIN", "openai/a,anthropic/b")
    raw = raw_settings()
    assert raw["fallback"] == {"pools": {"fast": {"entries": ["openai/a"]}},
                               "chain": "openai/a,anthropic/b"}
