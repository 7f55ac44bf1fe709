"""chatcli_provider_kit.status_error: one decision table from HTTP status to kernel error."""

from __future__ import annotations

import string
from unittest import mock

import pytest
from chatcli import (
    AuthError,
    BadRequestError,
    ContextTooLongError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    _errors,
    register_secret,
)
from chatcli_provider_kit import status_error
from hypothesis import given
from hypothesis import strategies as st

KEY_HINT = "export ACME_API_KEY or run `chatcli keys set acme`"


def make(status: int, detail: str = "something went wrong", **kw) -> ProviderError:
    """``status_error`` for a service called Acme, with overridable keywords."""
    args = {
        "who": "Acme",
        "provider": "acme",
        "model": "acme-large",
        "base_url": "http://127.0.0.1:9/v1",
        "key_hint": KEY_HINT,
    } | kw
    return status_error(status, detail, **args)


@pytest.mark.parametrize(
    ("status", "detail", "code", "kind", "words", "hint_words"),
    [
        (401, "bad key", "", AuthError, "Acme rejected the API key (HTTP 401): bad key",
         "ACME_API_KEY"),
        (403, "no access", "", AuthError, "Acme denied access (HTTP 403): no access",
         "keys set acme"),
        (429, "slow down", "", RateLimitError, "Acme rate limit reached (HTTP 429): slow down",
         "wait"),
        (429, "no money", "insufficient_quota", AuthError, "Acme quota exhausted (HTTP 429)",
         "billing"),
        (404, "no such model", "", ModelNotFoundError,
         "Acme does not know model 'acme-large' (HTTP 404): no such model",
         "http://127.0.0.1:9/v1"),
        (408, "too slow", "", ProviderTimeoutError, "Acme timed out (HTTP 408): too slow",
         "try again"),
        (413, "payload too large", "", ContextTooLongError,
         "Acme: the conversation is too long for 'acme-large' (HTTP 413)", "new conversation"),
        (400, "This model's maximum context length is 8192 tokens", "", ContextTooLongError,
         "too long for 'acme-large' (HTTP 400)", "compact"),
        (422, "prompt is too long: 250000 tokens", "", ContextTooLongError, "(HTTP 422)",
         "rewind"),
        (400, "shorter please", "context_length_exceeded", ContextTooLongError, "(HTTP 400)",
         "compact"),
        (500, "boom", "", ServerError, "Acme server error (HTTP 500): boom", "try again later"),
        (503, "", "", ServerError, "Acme server error (HTTP 503)", "try again later"),
        (529, "overloaded", "", ServerError, "Acme server error (HTTP 529): overloaded",
         "later"),
        (400, "Invalid value for 'temperature'", "", BadRequestError,
         "Acme rejected the request (HTTP 400): Invalid value for 'temperature'",
         "[providers.acme]"),
        (409, "conflict", "", BadRequestError, "Acme rejected the request (HTTP 409)",
         "options"),
        (418, "context length", "", BadRequestError, "(HTTP 418)", "options"),
    ],
)
def test_the_decision_table(status, detail, code, kind, words, hint_words):
    err = make(status, detail, code=code)
    assert type(err) is kind
    assert err.status == status
    assert err.provider == "acme"
    assert words in err.message
    assert hint_words in (err.hint or "")


@pytest.mark.parametrize("status", [429, 500, 502, 529])
def test_retryable_answers_carry_retry_after(status):
    err = make(status, retry_after=7.5)
    assert err.retryable
    assert err.retry_after == 7.5


@pytest.mark.parametrize("status", [401, 403, 404, 400, 413, 422])
def test_client_errors_are_not_retried(status):
    assert not make(status).retryable


def test_an_exhausted_quota_is_not_retried():
    assert not make(429, "You exceeded your current quota", code="insufficient_quota").retryable


def test_an_empty_detail_leaves_no_dangling_colon():
    assert make(401, "").message == "Acme rejected the API key (HTTP 401)"


def test_a_404_without_a_model_or_url_still_reads_well():
    err = make(404, "gone", model=None, base_url=None)
    assert err.message == "Acme found nothing (HTTP 404): gone"
    assert err.hint and err.hint.endswith("check the base URL")


def test_server_hint_replaces_the_default_fix():
    err = make(500, server_hint="check the server log")
    assert err.hint == "check the server log"
    assert make(400).hint == "check the model and options in [providers.acme]"


def test_a_long_multiline_detail_becomes_one_short_line():
    err = make(400, "first line\nsecond line\t" + "x" * 1000)
    assert "\n" not in str(err)
    assert "first line second line" in err.message
    assert len(err.message) < 320


SECRET = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=8, max_size=40)


@given(
    status=st.integers(min_value=400, max_value=599),
    secret=SECRET,
    before=st.text(max_size=300),
    after=st.text(max_size=300),
    code=st.sampled_from(["", "insufficient_quota", "context_length_exceeded", "other"]),
)
def test_any_error_status_gives_one_line_without_the_secret(status, secret, before, after, code):
    with mock.patch.object(_errors, "_secrets", set()):  # keep the registry clean for others
        register_secret(secret)
        err = make(status, f"{before}{secret}{after}", code=code, retry_after=1.0)
        text = str(err)
    assert isinstance(err, ProviderError)
    assert type(err) is not ProviderError  # always a specific subclass
    assert err.status == status
    assert "\n" not in text and "\r" not in text
    assert secret not in text


def test_the_errors_in_portuguese(chatcli_language) -> None:
    chatcli_language("pt_BR")
    assert str(make(429, "slow down", retry_after=5.0)) == (
        "Acme: limite de requisições atingido (HTTP 429): slow down — o serviço pede para "
        "esperar 5s antes de tentar de novo, ou reduza o ritmo das requisições")
    found = make(404, "no such model", model="m1")
    assert isinstance(found, ModelNotFoundError)
    assert str(found).startswith("Acme não conhece o modelo 'm1' (HTTP 404): no such model — "
                                 "escolha um modelo de `chatcli models`")
    assert str(make(401, "")).startswith("Acme recusou a chave de API (HTTP 401) — ")
