"""What ``chatcli -p`` reads on stdin (chatcli-print's job): binary data and input larger than
any context are refused in one line before any request, non-UTF-8 bytes are sent with
replacement characters and a warning, UTF-16 with a BOM is decoded — and the decoding never
raises or yields text that cannot be encoded; the ``-p`` text and stdin combine as documented
for any text."""

from __future__ import annotations

import re

import pytest
from chatcli import UsageError, clean_text
from chatcli_print.prompt import MAX_STDIN_BYTES, build_prompt, decode_input
from chatcli_testing import Reply
from cli_support import run_bytes
from hypothesis import given
from hypothesis import strategies as st

KEY = "sk-test-SECRET123456789"


def last_user_text(server) -> str:
    messages = server.requests[-1].json["messages"]
    return [m for m in messages if m["role"] == "user"][-1]["content"]


def openai_env(server) -> dict[str, str]:
    return {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}


def test_binary_stdin_is_refused_in_one_line_before_any_request(openai_server, tmp_path):
    data = bytes(range(256)) * 400  # NUL bytes and invalid UTF-8, like `head -c … /dev/urandom`
    done = run_bytes(tmp_path, ["-p", "what is this", "--provider", "openai", "--model", "m"],
                     data, **openai_env(openai_server))
    err = done.stderr.decode()
    assert done.returncode == 2
    assert "stdin is binary data (102,400 bytes)" in err and "xxd" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert openai_server.requests == []


def test_stdin_larger_than_any_context_is_refused_before_any_request(openai_server, tmp_path):
    data = b"log line\n" * (MAX_STDIN_BYTES // 9 + 2)
    done = run_bytes(tmp_path, ["-p", "summarize", "--provider", "openai", "--model", "m"],
                     data, **openai_env(openai_server))
    err = done.stderr.decode()
    assert done.returncode == 2 and "stdin is larger than 8 MiB" in err and "tail -c" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert openai_server.requests == []


def test_non_utf8_stdin_is_sent_with_replacements_and_a_warning(openai_server, tmp_path):
    openai_server.script(Reply(text="fine"))
    done = run_bytes(tmp_path, ["-p", "what is this", "--provider", "openai", "--model", "m"],
                     b"caf\xe9 na\xefve\n", **openai_env(openai_server))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "fine\n"
    assert "not valid UTF-8" in done.stderr.decode()
    assert "caf\ufffd na\ufffdve" in last_user_text(openai_server)


def test_utf16_stdin_with_a_bom_is_decoded(openai_server, tmp_path):
    done = run_bytes(tmp_path, ["-p", "x", "--provider", "openai", "--model", "m"],
                     "grüße".encode("utf-16"), **openai_env(openai_server))
    assert done.returncode == 0, done.stderr
    assert "grüße" in last_user_text(openai_server)


@given(st.binary(max_size=300).filter(lambda b: b"\x00" not in b))
def test_decoded_text_without_nul_is_always_valid_utf8(data: bytes) -> None:
    text = decode_input(data, what="test")  # warnings go to stderr; never raises
    text.encode("utf-8")


@given(st.binary(min_size=1, max_size=300))
def test_bytes_with_nul_are_binary_unless_utf16(data: bytes) -> None:
    data = data + b"\x00"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        decode_input(data).encode("utf-8", "surrogatepass")
    else:
        with pytest.raises(UsageError):
            decode_input(data)


@given(st.text())
def test_clean_text_always_encodes(text: str) -> None:
    clean_text(text).encode("utf-8")


@given(st.text().filter(lambda text: text != "-"), st.text())
def test_prompt_and_piped_text_combine_with_a_fence_longer_than_any_backtick_run(
        prompt: str, piped: str) -> None:
    sent = build_prompt(prompt, piped)
    if not piped.strip():  # nothing piped: the -p text as it is
        assert sent == prompt
    elif not prompt.strip():  # a blank -p text: the piped text alone
        assert sent == piped.strip()
    else:
        assert sent is not None and sent.startswith(f"{prompt}\n\n")
        fence, _, rest = sent.removeprefix(f"{prompt}\n\n").partition("\n")
        longest = max((len(run) for run in re.findall("`+", piped)), default=0)
        assert fence == "`" * max(3, longest + 1)
        assert rest == f"{piped.rstrip(chr(10))}\n{fence}"


@given(st.text())
def test_without_p_or_with_p_dash_the_piped_text_is_the_prompt(piped: str) -> None:
    expected = piped.strip() or None
    assert build_prompt(None, piped) == expected
    assert build_prompt("-", piped) == expected
    assert build_prompt(None, None) is None and build_prompt("-", None) is None
