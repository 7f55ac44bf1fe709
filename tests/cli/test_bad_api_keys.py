"""An API key a provider could not send — bytes the system could not decode, spaces, line breaks,
control or non-ASCII characters — is a configuration error (exit 2, one line) naming the variable
or the key file, never the key, and never "report it to the plugin's authors". Whitespace around a
key is dropped. Through the real CLI, against the local wire servers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, process_env

#: Bytes an environment variable may hold → what is said about them.
BAD_VALUES = [
    (b"sk-\xff\xfe-abcdef", "holds bytes that are not valid UTF-8"),
    (b"sk-\xc3-abcdef", "holds bytes that are not valid UTF-8"),
    (b"\x80", "holds bytes that are not valid UTF-8"),
    (b"sk-caf\xc3\xa9-abcdef", "contains spaces, line breaks, control or non-ASCII characters"),
    (b"sk-\xe2\x80\x99abcdef", "contains spaces, line breaks, control or non-ASCII characters"),
    (b"sk-abc\ndef", "contains spaces, line breaks, control or non-ASCII characters"),
    (b"sk-abc def", "contains spaces, line breaks, control or non-ASCII characters"),
    (b"sk-abc\x01def", "contains spaces, line breaks, control or non-ASCII characters"),
    (b"sk-abc\x7fdef", "contains spaces, line breaks, control or non-ASCII characters"),
]
PROVIDERS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY",
             "ollama": "OLLAMA_API_KEY"}


def run_bytes_env(home: Path, args: list[str], extra: dict[bytes, bytes]
                  ) -> subprocess.CompletedProcess[str]:
    env = {k.encode(): v.encode() for k, v in process_env(home).items()}
    env.update(extra)
    return subprocess.run([str(CHATCLI), *args], env=env, capture_output=True, text=True,
                          errors="replace", timeout=60, cwd=home / "work",
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
@pytest.mark.parametrize(("value", "said"), BAD_VALUES)
def test_a_key_variable_no_provider_could_send_is_a_configuration_error(home, provider, value,
                                                                       said):
    variable = PROVIDERS[provider]
    done = run_bytes_env(home, ["-p", "hi", "--provider", provider], {
        variable.encode(): value,
        b"OPENAI_BASE_URL": b"http://127.0.0.1:9/v1", b"ANTHROPIC_BASE_URL": b"http://127.0.0.1:9",
        b"OLLAMA_HOST": b"http://127.0.0.1:9"})
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"chatcli: error: the API key in {variable} {said} — set {variable} "
                           f"to the key alone, or unset it and run `chatcli keys set "
                           f"{provider}`\n")
    assert "abcdef" not in done.stderr and "report it" not in done.stderr


def test_a_custom_key_variable_is_named(home):
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[providers.openai]\napi_key_env = "MY_WORK_KEY"\n')
    done = run_bytes_env(home, ["-p", "hi", "--provider", "openai"], {
        b"MY_WORK_KEY": b"sk-\xff", b"OPENAI_BASE_URL": b"http://127.0.0.1:9/v1"})
    assert done.returncode == 2
    assert "the API key in MY_WORK_KEY holds bytes that are not valid UTF-8" in done.stderr


#: What keys.toml holds for openai → what is said (the file is named, never the key).
BAD_FILES = [
    ('openai = "sk-caf\u00e9-abcdef"\n'.encode(),
     "the key of 'openai' contains spaces, line breaks, control or non-ASCII characters — "
     "store it again with `chatcli keys set openai`"),
    (b'openai = "sk-abc\\tdef"\n',
     "the key of 'openai' contains spaces, line breaks, control or non-ASCII characters — "
     "store it again with `chatcli keys set openai`"),
    (b'openai = "sk-\xff-abcdef"\n',
     "the key file is not valid TOML (not UTF-8) — fix it in an editor, or remove it and store "
     "the keys again with `chatcli keys set`"),
]


@pytest.mark.parametrize(("content", "said"), BAD_FILES)
def test_a_key_file_holding_a_key_no_provider_could_send(home, content, said):
    keys = home / "config" / "keys.toml"
    keys.parent.mkdir(parents=True, exist_ok=True)
    keys.write_bytes(content)
    os.chmod(keys, 0o600)
    done = run_bytes_env(home, ["-p", "hi", "--provider", "openai"],
                         {b"OPENAI_BASE_URL": b"http://127.0.0.1:9/v1"})
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"chatcli: error: {keys}: {said}\n"


@pytest.mark.parametrize("padded", [b"  sk-test-key-123456", b"sk-test-key-123456\r\n",
                                    b"\tsk-test-key-123456 "])
def test_whitespace_around_a_key_is_dropped(home, openai_server, padded):
    openai_server.script(Reply(text="fine"))
    done = run_bytes_env(home, ["-p", "hi", "--provider", "openai"], {
        b"OPENAI_API_KEY": padded, b"OPENAI_BASE_URL": openai_server.url.encode()})
    assert (done.returncode, done.stdout, done.stderr) == (0, "fine\n", "")
    assert openai_server.requests[-1].headers["authorization"] == "Bearer sk-test-key-123456"


@pytest.mark.parametrize("where", ["variable", "keys.toml"])
def test_the_ollama_key_chatcli_checked_is_the_one_sent(home, ollama_server, where):
    ollama_server.script(Reply(text="hosted"))
    extra = {b"OLLAMA_HOST": ollama_server.url.encode()}
    if where == "variable":
        extra[b"OLLAMA_API_KEY"] = b" ollama-key-123456\n"
    else:
        keys = home / "config" / "keys.toml"
        keys.parent.mkdir(parents=True, exist_ok=True)
        keys.write_text('ollama = "ollama-key-123456"\n')
        os.chmod(keys, 0o600)
    done = run_bytes_env(home, ["-p", "hi", "--provider", "ollama"], extra)
    assert (done.returncode, done.stdout, done.stderr) == (0, "hosted\n", "")
    assert ollama_server.requests[-1].headers["authorization"] == "Bearer ollama-key-123456"


def test_listings_still_name_where_a_bad_key_is(home):
    done = run_bytes_env(home, ["models"], {b"OPENAI_API_KEY": b"sk-\xff"})
    assert done.returncode == 0, done.stderr
    assert "OPENAI_API_KEY" in done.stdout
