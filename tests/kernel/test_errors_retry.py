"""Redaction of secrets and the retry policy."""

from __future__ import annotations

import pytest
from chatcli import AuthError, ChatcliError, RateLimitError, ServerError, redact, register_secret
from chatcli._streaming import MAX_RETRY_AFTER, Retrying, backoff_delay, retrying_stream


def test_errors_never_show_keys(monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_API_KEY", "plain-looking-secret-42")
    register_secret("another-secret-999")
    err = ChatcliError(
        "bad key sk-abcdef1234567890 plain-looking-secret-42 another-secret-999",
        "header Bearer abc.def.ghi123",
    )
    text = str(err)
    for secret in ("sk-abcdef", "plain-looking", "another-secret", "abc.def.ghi123"):
        assert secret not in text
    assert text.count("***") == 4
    assert redact("") == ""


def test_a_secret_put_in_the_environment_later_is_redacted_at_once(monkeypatch) -> None:
    text = "the token is late-arriving-secret-7"
    assert redact(text) == text  # nothing secret yet (and the environment as seen is kept)
    monkeypatch.setenv("LATE_SERVICE_TOKEN", "late-arriving-secret-7")
    assert redact(text) == "the token is ***"
    monkeypatch.setenv("LATE_SERVICE_TOKEN", "changed-secret-value-8")
    assert redact(text) == text and redact("x changed-secret-value-8") == "x ***"
    monkeypatch.delenv("LATE_SERVICE_TOKEN")
    assert redact("x changed-secret-value-8") == "x changed-secret-value-8"
    assert redact("sk-ab") == "sk-ab"  # shorter than anything redacted: as it is


def flaky(failures: list[Exception], items: list[str]):
    opened = []

    def open_stream():
        opened.append(1)
        if failures:
            raise failures.pop(0)
        return iter(items)

    return open_stream, opened


def test_retries_honour_retry_after_then_succeed() -> None:
    waits: list[float] = []
    open_stream, opened = flaky([RateLimitError("slow", retry_after=2.5), ServerError("oops")],
                                ["a", "b"])
    out = list(retrying_stream(open_stream, 3, sleep=waits.append))
    notices = [o for o in out if isinstance(o, Retrying)]
    assert [o for o in out if isinstance(o, str)] == ["a", "b"] and len(opened) == 3
    assert waits[0] == 2.5 and 0.5 <= waits[1] <= 1.5
    assert [(n.attempt, n.delay) for n in notices] == [(1, 2.5), (2, waits[1])]
    assert isinstance(notices[0].error, RateLimitError)


def test_gives_up_after_max_retries_and_on_non_retryable() -> None:
    open_stream, opened = flaky([ServerError("1"), ServerError("2"), ServerError("3")], [])
    with pytest.raises(ServerError, match="2"):
        list(retrying_stream(open_stream, 1, sleep=lambda d: None))
    assert len(opened) == 2
    open_stream, opened = flaky([AuthError("no")], ["x"])
    with pytest.raises(AuthError):
        list(retrying_stream(open_stream, 5, sleep=lambda d: None))
    assert len(opened) == 1


def test_huge_retry_after_is_not_waited_for() -> None:
    open_stream, _ = flaky([RateLimitError("later", retry_after=MAX_RETRY_AFTER + 1)], ["x"])
    waits: list[float] = []
    with pytest.raises(RateLimitError):
        list(retrying_stream(open_stream, 3, sleep=waits.append))
    assert waits == []


def test_failure_after_output_is_not_retried() -> None:
    def broken():
        yield "partial"
        raise ServerError("cut")

    opened = []

    def open_stream():
        opened.append(1)
        return broken()

    got = []
    with pytest.raises(ServerError):
        for item in retrying_stream(open_stream, 3, sleep=lambda d: None):
            got.append(item)
    assert got == ["partial"] and len(opened) == 1


def test_backoff_grows_and_is_capped() -> None:
    assert 0.375 <= backoff_delay(1, None) <= 0.625
    assert 1.5 <= backoff_delay(3, None) <= 2.5
    assert backoff_delay(20, None) <= 37.5
