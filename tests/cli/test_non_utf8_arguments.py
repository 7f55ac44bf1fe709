"""Arguments and variables holding bytes that are not UTF-8 (a shell passes any bytes in argv):
a usage error naming the argument and the fix, before anything is sent or written — except
the prompt, which is sent with replacement characters."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import click
import pytest
from chatcli import hookimpl
from cli_support import CHATCLI, openai_env, process_env
from cli_support import run_bytes as run_piped_bytes

FIX = "type it again as UTF-8 text"


def run_bytes(home: Path, args: list[bytes | str], **env: str | bytes
              ) -> subprocess.CompletedProcess[str]:
    """chatcli as a real process with raw bytes in argv (and, if given, in the environment)."""
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=60,
                          env=process_env(home, **env), cwd=home, stdin=subprocess.DEVNULL)


def last_user_text(server) -> str:
    messages = server.requests[-1].json["messages"]
    return [m for m in messages if m["role"] == "user"][-1]["content"]


@pytest.mark.parametrize(("args", "named"), [
    ([b"-p", b"hi", b"-m", b"gpt\xff"], "--model is not valid UTF-8: 'gpt\\xff'"),
    ([b"--resume", b"s_\xff", b"-p", b"hi"], "--resume is not valid UTF-8: 's_\\xff'"),
    ([b"--provider", b"x\xff", b"-p", b"hi"], "--provider is not valid UTF-8: 'x\\xff'"),
    ([b"-p", b"hi", b"--allow", b"re\xe9d"], "--allow is not valid UTF-8: 're\\xe9d'"),
])
def test_a_non_utf8_option_is_a_usage_error_naming_it(tmp_path, openai_server, args, named):
    done = run_bytes(tmp_path, args, **openai_env(openai_server))
    assert done.returncode == 2
    assert done.stderr.startswith(f"chatcli: error: {named} — {FIX}")
    assert done.stderr.count("\n") == 1 and "plugin" not in done.stderr
    assert openai_server.requests == []


def test_config_set_with_a_non_utf8_value_writes_nothing(tmp_path):
    for args, named in (([b"config", b"set", b"system", b"v\xff"], "VALUE"),
                        ([b"config", b"set", b"mod\xe9l", b"x"], "KEY"),
                        ([b"config", b"get", b"mod\xe9l"], "KEY")):
        done = run_bytes(tmp_path, args)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"chatcli: error: {named} is not valid UTF-8: ")
        assert done.stderr.count("\n") == 1
    assert not (tmp_path / "config" / "config.toml").exists()


def test_keys_set_with_a_non_utf8_name_stores_nothing(tmp_path):
    done = subprocess.run([str(CHATCLI), b"keys", b"set", b"open\xe0i"], input=b"sk-abc123456789",
                          capture_output=True, timeout=60, env=process_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("chatcli: error: NAME is not valid UTF-8: 'open\\xe0i'")
    assert not (tmp_path / "config" / "keys.toml").exists()


def test_with_json_the_error_is_one_json_object(tmp_path):
    done = run_bytes(tmp_path, [b"-p", b"hi", b"--json", b"--provider", b"x\xff"])
    assert done.returncode == 2
    payload = json.loads(done.stdout)
    assert payload["type"] == "UsageError"
    assert payload["error"].startswith("--provider is not valid UTF-8")


def test_the_prompt_and_system_text_still_take_any_bytes(tmp_path, openai_server):
    done = run_bytes(tmp_path, [b"-p", b"caf\xe9", b"-s", b"be br\xefef", b"--provider",
                                b"openai", b"-m", b"m"], **openai_env(openai_server))
    assert done.returncode == 0, done.stderr
    messages = openai_server.requests[0].json["messages"]
    assert messages[-1]["content"] == "caf\ufffd"
    assert "be br\ufffdef" in messages[0]["content"]


def test_non_utf8_bytes_in_the_prompt_argument_do_not_crash(openai_server, tmp_path):
    done = run_piped_bytes(tmp_path, [b"-p", b"caf\xe9 bytes", b"--provider", b"openai",
                                      b"--model", b"m"], **openai_env(openai_server))
    assert done.returncode == 0, done.stderr
    assert last_user_text(openai_server) == "caf\ufffd bytes"


def test_a_non_utf8_chatcli_variable_names_the_variable(tmp_path, openai_server):
    done = run_bytes(tmp_path, [b"-p", b"hi", b"--provider", b"openai"],
                     CHATCLI_MODEL=b"gpt\xff", **openai_env(openai_server))
    assert done.returncode == 2
    assert done.stderr == ("chatcli: error: the variable CHATCLI_MODEL is not valid UTF-8 — "
                           "set it again in UTF-8 text, or unset it\n")
    assert openai_server.requests == []


def test_plugin_commands_get_the_same_check(cli):
    seen = []

    class Notes:
        @hookimpl
        def register_commands(self, cli):
            @cli.command("note")
            @click.argument("title")
            @click.option("--tag")
            @click.argument("file", type=click.Path(), required=False)
            def note(title, tag, file):
                """Store a note."""
                seen.append((title, tag, file))

    cli.host.register(Notes(), "notes")
    bad_title = cli("note", "caf\udce9")
    assert bad_title.code == 2
    assert bad_title.err.startswith("chatcli: error: TITLE is not valid UTF-8: 'caf\\xe9' — ")
    bad_tag = cli("note", "ok", "--tag", "\udcff")
    assert bad_tag.code == 2 and "--tag is not valid UTF-8" in bad_tag.err
    assert seen == []
    # a file name is any bytes on Linux: click.Path opts out of the check
    assert cli("note", "ok", "notes-\udce9.txt").code == 0
    assert seen == [("ok", None, "notes-\udce9.txt")]
