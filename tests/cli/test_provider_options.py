"""A provider's settings are checked before the provider is built: a typo in its table names the
closest key, a value of the wrong type names the file, the key and what it must be, and a
malformed service address (``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``, ``OLLAMA_HOST``) is a
config error without retries (an Ollama host without a scheme still works)."""

from __future__ import annotations

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, openai_env, run_bytes, run_process

KEY = "sk-test-SECRET123456789"


def ask(home, server, **env: str):
    return run_process([CHATCLI, "-p", "hi", "--provider", "openai", "--model", "m"], home,
                       CHATCLI_PLUGINS="openai,print", **openai_env(server), **env)


@pytest.mark.parametrize("line, message", [
    ('modle = "gpt-4.1"', "unknown setting 'providers.openai.modle' — did you mean 'model'?"),
    ('headers = "nope"', "'providers.openai.headers' must be a table whose values are text, "
                         "not 'nope'"),
    ('headers = { "X-Team" = 7 }', "'providers.openai.headers' must be a table whose values "
                                   "are text, not {'X-Team': 7}"),
    ("extra_body = [1, 2]", "'providers.openai.extra_body' must be a table, not [1, 2]"),
    ('stream_usage = "sometimes"', "'providers.openai.stream_usage' must be true or false"),
])
def test_a_bad_provider_table_is_a_config_error_naming_file_and_key(home, openai_server, line,
                                                                    message):
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[providers.openai]\n{line}\n")
    done = ask(home, openai_server)
    assert done.returncode == 2
    assert done.stderr.startswith(f"chatcli: error: {config}: {message}"), done.stderr
    assert done.stderr.count("\n") == 1 and "reinstall" not in done.stderr
    assert openai_server.requests == []


def test_the_error_names_the_variable_when_the_environment_sets_it(home, openai_server):
    done = ask(home, openai_server, CHATCLI_PROVIDERS__OPENAI__HEADERS="nope")
    assert done.returncode == 2
    assert done.stderr.startswith("chatcli: error: CHATCLI_PROVIDERS__OPENAI__HEADERS: "
                                  "'providers.openai.headers' must be a table")


def test_good_options_reach_the_request(home, openai_server):
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[providers.openai]\nheaders = { "X-Team" = "blue" }\n'
                      'extra_body = { seed = 7 }\n')
    openai_server.script(Reply(text="ok"))
    done = ask(home, openai_server, CHATCLI_PROVIDERS__OPENAI__STREAM_USAGE="false")
    assert done.returncode == 0, done.stderr
    request = openai_server.requests[0]
    assert request.headers["x-team"] == "blue"
    assert request.json["seed"] == 7 and "stream_options" not in request.json


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
