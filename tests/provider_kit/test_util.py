"""chatcli.providers_util: Retry-After parsing, images, tool arguments, error text."""

from __future__ import annotations

import base64
import email.utils
import json

import pytest
from chatcli import BadRequestError
from chatcli_provider_kit import (
    image_data_url,
    is_url,
    looks_like_context_overflow,
    one_line,
    parse_retry_after,
    parse_tool_arguments,
    read_image,
    retry_after_from_headers,
)
from hypothesis import given
from hypothesis import strategies as st

NOW = 1_800_000_000.0


@given(st.integers(min_value=0, max_value=10**7))
def test_retry_after_seconds(seconds):
    assert parse_retry_after(str(seconds)) == float(seconds)
    assert parse_retry_after(f"  {seconds} ") == float(seconds)


@given(st.integers(min_value=0, max_value=10**6))
def test_retry_after_http_date(offset):
    header = email.utils.formatdate(NOW + offset, usegmt=True)
    assert parse_retry_after(header, now=NOW) == pytest.approx(offset, abs=1)


@given(st.integers(min_value=1, max_value=10**6))
def test_retry_after_date_in_the_past_means_now(offset):
    header = email.utils.formatdate(NOW - offset, usegmt=True)
    assert parse_retry_after(header, now=NOW) == 0.0


@given(st.text())
def test_retry_after_never_raises(text):
    value = parse_retry_after(text, now=NOW)
    assert value is None or value >= 0


@pytest.mark.parametrize("text", [None, "", "soon", "nan", "inf", "-inf", "Mon, 99 Foo"])
def test_retry_after_unreadable_is_none(text):
    assert parse_retry_after(text) is None


def test_negative_seconds_clamp_to_zero():
    assert parse_retry_after("-5") == 0.0


def test_retry_after_headers_prefer_milliseconds():
    assert retry_after_from_headers({"Retry-After-Ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_from_headers({"Retry-After": "9"}) == 9.0
    assert retry_after_from_headers({"retry-after-ms": "junk", "retry-after": "3"}) == 3.0
    assert retry_after_from_headers({}) is None
    assert retry_after_from_headers(None) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_tool_arguments_round_trip(arguments):
    assert parse_tool_arguments(json.dumps(arguments)) == (arguments, None)


@given(st.text())
def test_tool_arguments_that_are_not_an_object_are_kept_raw(text):
    parsed, raw = parse_tool_arguments(text)
    if raw is None:
        assert isinstance(parsed, dict)
        assert not text.strip() or isinstance(json.loads(text, strict=False), dict)
    else:
        assert parsed == {}
        assert raw == text


@pytest.mark.parametrize("text", ["[1, 2]", '"a string"', "42", "{'single': 1}", '{"a": '])
def test_non_object_arguments(text):
    assert parse_tool_arguments(text) == ({}, text)


def test_empty_arguments():
    assert parse_tool_arguments("") == ({}, None)
    assert parse_tool_arguments(None) == ({}, None)


def test_image_files_become_data_urls(tmp_path):
    image = tmp_path / "shot.JPG"
    image.write_bytes(b"\xff\xd8\xff-jpeg-bytes")
    assert read_image(str(image)) == ("image/jpeg", base64.b64encode(image.read_bytes()).decode())
    assert image_data_url(str(image)).startswith("data:image/jpeg;base64,")
    assert image_data_url(str(image), "image/webp").startswith("data:image/webp;base64,")


def test_image_urls_pass_through():
    for url in ("https://x.test/a.png", "http://x.test/a.png", "data:image/png;base64,AAAA"):
        assert is_url(url)
        assert image_data_url(url) == url
    assert not is_url("/tmp/a.png")


def test_bad_image_files_are_one_line_errors(tmp_path):
    with pytest.raises(BadRequestError, match="image not found"):
        read_image(str(tmp_path / "missing.png"))
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with pytest.raises(BadRequestError, match="not an image"):
        read_image(str(notes))


def test_one_line():
    assert one_line("a\n  b\tc") == "a b c"
    cut = one_line("x" * 500, limit=50)
    assert len(cut) == 50 and cut.endswith("…")
    assert one_line(None) == ""


@pytest.mark.parametrize("text", [
    "This model's maximum context length is 128000 tokens.",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "context_length_exceeded",
    "Input tokens exceed the configured limit",
])
def test_context_overflow_texts(text):
    assert looks_like_context_overflow(text)


@pytest.mark.parametrize("text", ["Invalid value for 'temperature'", "", None, "model not found"])
def test_other_texts_are_not_context_overflow(text):
    assert not looks_like_context_overflow(text)
