"""``chatcli config`` and the key file against bad input: a value the setting does not take is
blamed on the value (a negative number is a value, not an option), a file with a syntax error
is never rewritten (its line is named), nesting thousands of levels deep is one line, not a
RecursionError, and a config file that is not UTF-8, a key file or config folder that cannot be
read, or a disk that takes no writes is a one-line config error that loses nothing."""

from __future__ import annotations

import subprocess

import pytest
from cli_support import CHATCLI, process_env, run_bytes, run_process

BROKEN = '# my settings\nmodel = "gpt-4.1"  # the one I like\nbroken line\n'


@pytest.fixture
def config(home):
    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize(("key", "value", "message"), [
    ("max_turns", "lots", "max_turns must be a whole number from 1 to 500; you gave 'lots' — "
                          "e.g. `chatcli config set max_turns 20` (the default)"),
    ("max_turns", "0", "max_turns must be a whole number from 1 to 500; you gave '0'"),
    ("markdown", "maybe", "markdown must be true or false; you gave 'maybe'"),
    ("temperature", "hot", "temperature must be a number from 0 to 2; you gave 'hot' — "
                           "`chatcli config unset temperature` goes back to the default"),
    ("providers.openai.timeout", "soon",
     "providers.openai.timeout must be a number above 0; you gave 'soon'"),
    ("max_turns.x", "3", "'max_turns' is a setting, not a table"),
])
def test_an_invalid_value_is_blamed_on_the_value(cli, config, key, value, message):
    config.write_text('model = "m"\n')
    result = cli("config", "set", key, value)
    assert result.code == 2
    assert result.err.startswith(f"chatcli: error: {message}")
    assert str(config) not in result.err and result.err.count("\n") == 1
    assert config.read_text() == 'model = "m"\n'


def test_a_bad_value_already_in_the_file_is_blamed_on_the_file(cli, config):
    config.write_text("max_turns = 0\n")
    result = cli("config", "set", "model", "m")
    assert result.code == 2
    assert result.err.startswith(f"chatcli: error: {config}: invalid value for 'max_turns': it "
                                 "must be a whole number from 1 to 500, not 0 — ")
    assert cli("config", "set", "max_turns", "9").code == 0  # the fix it names works
    assert cli("config", "set", "model", "m").code == 0


@pytest.mark.parametrize("args", [["config", "set", "max_turns", "5"],
                                  ["config", "unset", "model"]])
def test_a_file_with_a_syntax_error_is_not_rewritten_and_its_line_is_named(cli, config, args):
    config.write_text(BROKEN)
    result = cli(*args)
    assert result.code == 2
    assert result.err == (f"chatcli: error: {config}, line 3, column 8: invalid TOML: Expected "
                          "'=' after a key in a key/value pair — fix line 3 of the file in an "
                          "editor, then run the command again (the file was not changed)\n")
    assert config.read_text() == BROKEN


def test_a_syntax_error_when_running_names_the_line_too(cli, config):
    config.write_text(BROKEN)
    result = cli("-p", "hi")
    assert result.code == 2
    assert result.err == (f"chatcli: error: {config}, line 3, column 8: invalid TOML: Expected "
                          "'=' after a key in a key/value pair — fix line 3 of the file in an "
                          "editor\n")


DEEP = {
    "arrays": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "inline tables": "t = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
    "tables": "[" + ".".join(["t"] * 5000) + "]\nx = 1\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP))
@pytest.mark.parametrize("args", [["config", "get", "model"], ["config", "set", "model", "m"],
                                  ["config", "unset", "model"], ["config", "list"],
                                  ["-p", "hi"], ["keys", "list"]])
def test_config_nested_thousands_deep_is_one_line(cli, config, shape, args):
    config.write_text(DEEP[shape])
    result = cli(*args)
    assert result.code == 2
    assert result.err.startswith(f"chatcli: error: {config}: tables or arrays nested more than "
                                 "64 levels deep — flatten them in an editor")
    assert result.err.count("\n") == 1
    assert config.read_text() == DEEP[shape]


def test_a_key_nested_thousands_deep_is_refused(cli, config):
    result = cli("config", "set", ".".join(["t"] * 5000), "1")
    assert result.code == 2 and "is nested more than 64 levels deep" in result.err
    assert not config.exists()


@pytest.mark.parametrize("shape", ["arrays", "inline tables"])
def test_a_key_file_nested_thousands_deep_is_one_line(cli, home, shape):
    keys = home / "config" / "keys.toml"
    keys.parent.mkdir(parents=True, exist_ok=True)
    keys.write_text(DEEP[shape])
    for args in (["keys", "list"], ["keys", "remove", "scripted"], ["keys", "set", "scripted"]):
        result = cli(*args, stdin="sk-test-0123456789abcdef")
        assert result.code == 2
        assert result.err == (f"chatcli: error: {keys}: the key file is not valid TOML (nested "
                              "too deeply) — fix it in an editor, or remove it and store the "
                              "keys again with `chatcli keys set`\n")
    assert keys.read_text() == DEEP[shape]


def test_deep_nesting_in_a_real_process(tmp_path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(DEEP["arrays"])
    done = run_process([CHATCLI, "-p", "hi"], tmp_path)
    assert done.returncode == 2
    assert "nested more than 64 levels deep" in done.stderr and done.stderr.count("\n") == 1


COMMENTED = """# my settings
model = "gpt-4.1"  # the one I like

[providers.openai]
# a fast one
model = "small"  # for now

[sessions]
keep = 3
"""


def test_config_set_and_unset_change_only_the_key_line(cli, config):
    config.write_text(COMMENTED)
    assert cli("config", "set", "model", "gpt-5").code == 0
    assert cli("config", "set", "max_turns", "7").code == 0
    assert cli("config", "unset", "providers.openai.model").code == 0
    assert cli("config", "set", "providers.openai.timeout", "30").code == 0
    assert cli("config", "set", "providers.anthropic.model", "claude").code == 0
    assert config.read_text() == """# my settings
model = "gpt-5"  # the one I like
max_turns = 7

[providers.openai]
timeout = 30
# a fast one

[sessions]
keep = 3

[providers.anthropic]
model = "claude"
"""


def test_a_layout_the_line_edit_cannot_follow_is_rewritten_correctly(cli, config):
    config.write_text('providers.openai.model = "small"  # dotted\n')
    assert cli("config", "set", "providers.openai.model", "big").code == 0
    assert cli("config", "get", "providers.openai.model").out == "big\n"


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


def test_config_set_accepts_a_negative_number_as_the_value(cli):
    result = cli("config", "set", "providers.openai.timeout", "-1")
    assert result.code == 2
    assert "timeout must be a number above 0; you gave '-1'" in result.err  # a value, not an option
    result = cli("config", "set", "system", "-v")
    assert result.code == 0
    assert cli("config", "get", "system").out.strip() == "-v"


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
