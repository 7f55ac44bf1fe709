"""Bad input on the command line: binary or non-UTF-8 stdin and arguments, bad service
addresses, unreadable or non-UTF-8 config and key files. Each gives a one-line error naming
cause and fix (or a warning and a sensible answer), never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli import UsageError
from chatcli._cli.oneshot import clean_text, decode_input
from chatcli_testing import Reply
from cli_support import CHATCLI, process_env
from hypothesis import given
from hypothesis import strategies as st

KEY = "sk-test-SECRET123456789"


def run_bytes(home: Path, args: list[bytes | str], stdin: bytes = b"",
              **env: str) -> subprocess.CompletedProcess[bytes]:
    """chatcli as a real process with raw bytes on stdin and in argv."""
    return subprocess.run([str(CHATCLI), *args], input=stdin, capture_output=True, timeout=60,
                          env=process_env(home, **env), cwd=home)


def last_user_text(server) -> str:
    messages = server.requests[-1].json["messages"]
    return [m for m in messages if m["role"] == "user"][-1]["content"]


def openai_env(server) -> dict[str, str]:
    return {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}


# ------------------------------------------------------------------------------ stdin decoding


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
    from chatcli._cli.oneshot import MAX_STDIN_BYTES

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


def test_non_utf8_bytes_in_the_prompt_argument_do_not_crash(openai_server, tmp_path):
    done = run_bytes(tmp_path, [b"-p", b"caf\xe9 bytes", b"--provider", b"openai", b"--model",
                                b"m"], **openai_env(openai_server))
    assert done.returncode == 0, done.stderr
    assert last_user_text(openai_server) == "caf\ufffd bytes"


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


# ------------------------------------------------------------------------------ service addresses


@pytest.mark.parametrize(("provider", "variable", "value"), [
    ("openai", "OPENAI_BASE_URL", "localhost:8000/v1"),
    ("openai", "OPENAI_BASE_URL", "not a url"),
    ("anthropic", "ANTHROPIC_BASE_URL", "ftp://example.com"),
    ("ollama", "OLLAMA_HOST", "::::"),
])
def test_a_malformed_service_address_is_a_config_error_without_retries(
        tmp_path, provider, variable, value):
    done = run_bytes(tmp_path, ["-p", "hi", "--provider", provider, "--model", "m"],
                     **{variable: value, "OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY})
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert value in err and variable in err
    assert "retrying" not in err and "unexpected" not in err and "Traceback" not in err


def test_ollama_host_without_scheme_still_works(ollama_server, tmp_path):
    ollama_server.script(Reply(text="hi there"))
    host = ollama_server.url.removeprefix("http://")
    done = run_bytes(tmp_path, ["-p", "hi", "--provider", "ollama", "--model", "m"],
                     OLLAMA_HOST=host)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "hi there\n"


# ------------------------------------------------------------------------------ config files


def test_non_utf8_config_file_names_the_file_and_the_fix(tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_bytes(b"\xff\xfe provider")
    done = run_bytes(tmp_path, ["-p", "hi"])
    err = done.stderr.decode()
    assert done.returncode == 2
    assert str(config / "config.toml") in err and "not UTF-8" in err and "save the file" in err
    assert "unexpected" not in err


def test_unreadable_key_file_is_a_config_error(tmp_path):
    config = tmp_path / "config"
    (config / "keys.toml").mkdir(parents=True)  # unreadable as a file, even for root
    done = run_bytes(tmp_path, ["keys", "list"])
    err = done.stderr.decode()
    assert done.returncode == 2
    assert "keys.toml: cannot read the key file" in err and "unexpected" not in err


def test_usage_errors_point_at_the_subcommand_help(tmp_path):
    done = run_bytes(tmp_path, ["plugins", "new", "x", "--dest", "y"])
    assert done.returncode == 2
    assert "see `chatcli plugins new --help`" in done.stderr.decode()


# ------------------------------------------------------------------------------ plugins uninstall


def test_uninstall_takes_the_plugin_name_shown_by_plugins_list(cli):
    # `openai` is how `chatcli plugins list` names the plugin of chatcli-provider-openai
    result = cli("plugins", "uninstall", "openai", "--dry-run")
    assert result.code == 0
    assert result.err.strip().split()[-1] == "chatcli-provider-openai"


def test_uninstall_of_something_not_installed_fails_instead_of_claiming_success(cli):
    result = cli("plugins", "uninstall", "no-such-plugin-xyz")
    assert result.code == 2
    assert "no installed plugin or package named 'no-such-plugin-xyz'" in result.err
    assert "uninstalled" not in result.out


def test_config_set_accepts_a_negative_number_as_the_value(cli):
    result = cli("config", "set", "providers.openai.timeout", "-1")
    assert result.code == 2
    assert "timeout must be a number above 0; you gave '-1'" in result.err  # a value, not an option
    result = cli("config", "set", "system", "-v")
    assert result.code == 0
    assert cli("config", "get", "system").out.strip() == "-v"


# ------------------------------------------------------------------------------ unwritable files


def _no_file_writes() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # any write fails: EFBIG


def test_config_set_and_keys_set_on_an_unwritable_disk_fail_in_one_line(tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text('model = "kept"\n')
    for args, stdin in ((["config", "set", "model", "new"], b""),
                        (["keys", "set", "openai"], b"sk-abcdef123456\n")):
        done = subprocess.run([str(CHATCLI), *args], input=stdin, capture_output=True,
                              timeout=60, env=process_env(tmp_path), cwd=tmp_path,
                              preexec_fn=_no_file_writes)
        err = done.stderr.decode()
        assert done.returncode == 2, err
        assert "cannot write" in err and "unexpected" not in err
    assert (config / "config.toml").read_text() == 'model = "kept"\n'  # nothing lost
    assert not (config / "keys.toml").exists()


def test_config_dir_that_is_a_file_is_a_config_error(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    done = run_bytes(tmp_path, ["keys", "list"], CHATCLI_CONFIG_DIR=str(afile))
    assert done.returncode == 2
    assert "cannot read the key file" in done.stderr.decode()
