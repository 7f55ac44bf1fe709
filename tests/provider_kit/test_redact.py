"""chatcli.redact hides the password of a URL wherever an error message shows the URL."""

from __future__ import annotations

import pytest
from chatcli import NetworkError, redact


@pytest.mark.parametrize(("text", "shown"), [
    ("cannot reach OpenAI at http://user:secret@127.0.0.1:9/v1: refused",
     "cannot reach OpenAI at http://user:***@127.0.0.1:9/v1: refused"),
    ("https://me:p%40ss@example.com/v1 and ftp://a:b@files", "https://me:***@example.com/v1 and "
     "ftp://a:***@files"),
    ("http://u:has@at@host/x?mail=a@b", "http://u:***@host/x?mail=a@b"),  # an unescaped "@"
    ("http://:token-only@host", "http://:***@host"),
    ("at http://a:b@[::1]:8080/v1", "at http://a:***@[::1]:8080/v1"),
])
def test_the_password_of_a_url_is_replaced(text, shown):
    assert redact(text) == shown


@pytest.mark.parametrize("text", [
    "http://user@host/v1",  # no password
    "http://user:@host",  # an empty one
    "http://localhost:8080/v1 failed for a@b.c",  # a port, then an address elsewhere
    "see https://example.com/a:b@c",  # an "@" in the path
    "mailto:someone@example.com",
])
def test_text_without_a_url_password_is_left_alone(text):
    assert redact(text) == text


def test_every_error_message_and_hint_benefits():
    err = NetworkError("cannot reach X at https://bob:pa55word@proxy.example/v1",
                       "fix https://bob:pa55word@proxy.example/v1")
    assert "pa55word" not in str(err)
    assert str(err).count("bob:***@proxy.example") == 2
