"""Secrets kept from the programs chatcli starts: exec and test commands (with and without the
sandbox), user hooks and MCP stdio servers get chatcli's environment without API keys and
secret-looking variables — the names in ``[coder] pass_env`` kept, a server's own ``env`` table
given — through the real ``chatcli -p`` with the scripted model; and the rule itself as data.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from chatcli_workspace import is_secret_variable, pass_env_names, scrubbed_env
from hypothesis import given
from hypothesis import strategies as st
from security_support import CHATCLI, last_chat_request, tool_results

TOKEN = uuid.uuid4().hex[:12]

# ------------------------------------------------------------------------------ the rule

#: name → whether it is kept from commands (value a plain word unless given).
NAMES = [
    ("OPENAI_API_KEY", False), ("ANTHROPIC_API_KEY", False), ("GEMINI_API_KEY", False),
    ("GOOGLE_API_KEY", False), ("AZURE_OPENAI_API_KEY", False), ("GITHUB_TOKEN", False),
    ("GH_TOKEN", False), ("HF_TOKEN", False), ("AWS_ACCESS_KEY_ID", False),
    ("AWS_SECRET_ACCESS_KEY", False), ("AWS_SESSION_TOKEN", False),
    ("GOOGLE_APPLICATION_CREDENTIALS", False), ("AZURE_CLIENT_SECRET", False),
    ("DB_PASSWORD", False), ("PGPASSWORD", False), ("MYSQL_PWD_PASSWD", False),
    ("STRIPE_SECRET", False), ("SECRET_KEY_BASE", False), ("MY_SERVICE_KEY", False),
    ("SLACK_BOT_TOKEN", False), ("DEPLOY_TOKENS", False), ("SMTP_PASS", False),
    ("GITLAB_PAT", False), ("DOCKER_AUTH_CONFIG", False), ("OAUTH_CLIENT", False),
    ("HTTP_AUTHORIZATION", False), ("SSH_AUTH_SOCK", False), ("NPM_TOKEN", False),
    ("KEY", False), ("TOKEN", False), ("api_key", False), ("my_apikey", False),
    ("SIGNING_PRIVATE_KEY", False), ("GPG_PASSPHRASE", False), ("DATABASE_URL", False),
    ("PATH", True), ("HOME", True), ("LANG", True), ("TERM", True), ("VIRTUAL_ENV", True),
    ("GIT_AUTHOR_NAME", True), ("GIT_AUTHOR_EMAIL", True), ("AUTHORS_FILE", True),
    ("TOKENIZERS_PARALLELISM", True), ("KEYBOARD_LAYOUT", True), ("PYTHONPATH", True),
    ("GIT_ASKPASS", True), ("SSL_CERT_FILE", True), ("NODE_EXTRA_CA_CERTS", True),
    ("LD_LIBRARY_PATH", True), ("MONKEY_PATH", True),
]

#: value → whether it is kept under a harmless name.
VALUES = [
    ("postgres://app:hunter2@db.example.com/app", False),
    ("https://user:pw@proxy.example.com:8080", False),
    ("sk-proj-abcdefghijklmnopqrstuvwx", False),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwx", False),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", False),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", False),
    ("AKIAIOSFODNN7EXAMPLE", False),
    ("xoxb-1234567890-abcdefghij", False),
    ("AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", False),
    ("https://example.com:8080/path@x", True),
    ("/usr/local/bin:/usr/bin", True),
    ("sk-short", True),
    ("en_US.UTF-8", True),
]


@pytest.mark.parametrize(("name", "kept"), NAMES, ids=[n for n, _ in NAMES])
def test_secret_names_are_kept_from_commands(name: str, kept: bool) -> None:
    env = scrubbed_env({name: "value"})
    assert (name in env) is kept


@pytest.mark.parametrize(("value", "kept"), VALUES, ids=[v[:20] for v, _ in VALUES])
def test_secret_looking_values_are_kept_from_commands(value: str, kept: bool) -> None:
    assert ("HARMLESS" in scrubbed_env({"HARMLESS": value})) is kept


def test_the_names_the_user_passes_are_kept_and_extra_names_are_not() -> None:
    source = {"NPM_TOKEN": "n", "OPENAI_API_KEY": "o", "LLM_VAR": "x", "PLAIN": "p"}
    env = scrubbed_env(source, pass_env=["NPM_TOKEN"], extra_secret_names=["LLM_VAR"])
    assert env == {"NPM_TOKEN": "n", "PLAIN": "p"}


@given(st.dictionaries(st.text(min_size=1, max_size=30), st.text(max_size=60), max_size=20),
       st.lists(st.text(min_size=1, max_size=30), max_size=5))
def test_scrubbing_only_removes_and_never_keeps_a_secret_unasked(
        source: dict[str, str], passed: list[str]) -> None:
    env = scrubbed_env(source, pass_env=passed)
    assert env.items() <= source.items()
    for name in passed:
        if name in source:
            assert name in env
    for name, value in env.items():
        assert name in passed or not is_secret_variable(name, value)


@pytest.mark.parametrize(("value", "error"), [
    ("NPM_TOKEN", "must be a list of environment variable names"),
    ([1], "must be a list of environment variable names"),
    (["1BAD"], "'1BAD' is not an environment variable name"),
    (["A B"], "'A B' is not an environment variable name"),
])
def test_pass_env_must_be_a_list_of_names(value: Any, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        pass_env_names(value)
    from chatcli_coder._common import parse_coder_settings

    with pytest.raises(ValueError, match=r"\[coder\] pass_env"):
        parse_coder_settings({"pass_env": value})
    assert parse_coder_settings({"pass_env": ["NPM_TOKEN"]}).pass_env == ("NPM_TOKEN",)


# ------------------------------------------------------------------------------ real runs


def secret(name: str) -> str:
    return f"{name.lower().replace('_', '-')}-canary-{TOKEN}"


#: The secrets chatcli's own environment holds in the runs (each a canary).
SECRETS = {
    "ANTHROPIC_API_KEY": secret("anthropic"), "GITHUB_TOKEN": secret("github"),
    "AWS_SECRET_ACCESS_KEY": secret("aws"), "AWS_ACCESS_KEY_ID": secret("awsid"),
    "MY_SERVICE_PASSWORD": secret("password"), "DEPLOY_KEY": secret("deploy"),
    "DATABASE_URL": f"postgres://app:{secret('db')}@db.example.com/app",
    "LLM_VAR": secret("custom"),  # named by [providers.anthropic] api_key_env
    "INNOCENT_LOOKING": f"sk-proj-{TOKEN}abcdefghijklmnop",
}
#: Passed on purpose ([coder] pass_env) and harmless: both must reach the command.
PASSED = {"NPM_TOKEN": secret("npm")}
HARMLESS = {"CHATCLI_TEST_HARMLESS": f"harmless-{TOKEN}"}


@pytest.fixture
def base():
    folder = Path(os.path.realpath(tempfile.mkdtemp(prefix="chatcli-env-", dir="/var/tmp")))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_chatcli(base: Path, server: Any, config: str, *args: str,
                plugins: str = "openai,coder,permissions") -> subprocess.CompletedProcess[str]:
    home, ws = base / "home", base / "ws"
    for folder in (home, ws, base / "config", base / "data", base / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    (base / "config" / "config.toml").write_text(textwrap.dedent(config))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "LANG": "C.UTF-8", "CHATCLI_CONFIG_DIR": str(base / "config"),
           "CHATCLI_DATA_DIR": str(base / "data"), "CHATCLI_CACHE_DIR": str(base / "cache"),
           "CHATCLI_PLUGINS": f"{plugins},print", "OPENAI_API_KEY": secret("openai"),
           "OPENAI_BASE_URL": server.url, "GIT_CONFIG_NOSYSTEM": "1",
           **SECRETS, **PASSED, **HARMLESS}
    return subprocess.run([str(CHATCLI), "--provider", "openai", "--model", "m", *args],
                          cwd=ws, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def assert_scrubbed(text: str, where: str) -> None:
    for name, value in {**SECRETS, "OPENAI_API_KEY": secret("openai")}.items():
        assert value not in text, f"{where}: {name} reached it"
    for name, value in {**PASSED, **HARMLESS}.items():
        assert value in text, f"{where}: {name} did not reach it"


#: Ways a command reads its own environment.
ENV_READS = [
    "env", "printenv", "export -p", "set", "cat /proc/self/environ | tr '\\0' '\\n'",
    "tr '\\0' '\\n' < /proc/$$/environ",
    "python3 -c 'import os; print(dict(os.environ))'", "perl -e 'print \"$_=$ENV{$_}\\n\" "
    "for keys %ENV'", "awk 'BEGIN { for (k in ENVIRON) print k \"=\" ENVIRON[k] }'",
    "sh -c env", "bash -lc env",
]
#: What must run (the rest may be refused by the permission policy: inline code, /proc).
MUST_RUN = ("env", "printenv", "export -p", "set", "sh -c env", "bash -lc env")
ENV_CONFIG = """
    [coder]
    sandbox = "{sandbox}"
    pass_env = ["NPM_TOKEN"]

    [providers.anthropic]
    api_key_env = "LLM_VAR"
"""


@pytest.mark.parametrize("sandbox", ["bwrap", "off"])
def test_commands_get_no_secret_variables_with_and_without_the_sandbox(base: Path,
                                                                       sandbox: str) -> None:
    if sandbox == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    with OpenAIServer() as server:
        calls = [ToolCall("exec", {"command": command}, id=f"call_{i}")
                 for i, command in enumerate(ENV_READS)]
        calls.append(ToolCall("test", {"command": "env"}, id="call_test"))
        server.script(*(Reply(tool_calls=[call]) for call in calls), Reply(text="done"))
        done = run_chatcli(base, server, ENV_CONFIG.format(sandbox=sandbox),
                           "-p", "look", "--permission-mode", "auto", "--allow", "all")
        assert done.returncode == 0, done.stderr
        results = tool_results(last_chat_request(server.requests))
    assert len(results) == len(calls)
    for call in calls:
        text = results[call.id]
        if text.startswith("Error: denied"):  # the policy's call (inline code, /proc)
            assert call.arguments["command"] not in MUST_RUN, text
            assert not any(value in text for value in SECRETS.values())
            continue
        assert ("sandbox: bwrap" in text) is (sandbox == "bwrap"), text[:200]
        assert_scrubbed(text, f"{call.arguments['command']} ({sandbox})")
    assert not any(value in done.stdout + done.stderr for value in SECRETS.values())


def test_user_hooks_get_no_secret_variables(base: Path) -> None:
    dump = base / "hook-env.txt"
    with OpenAIServer() as server:
        server.script(Reply(text="done"))
        done = run_chatcli(base, server, ENV_CONFIG.format(sandbox="off") + f"""
            [[hooks.UserPromptSubmit]]
            command = "env > '{dump}'"
        """, "-p", "hi", plugins="openai,coder,permissions,user-hooks")
        assert done.returncode == 0, done.stderr
    assert_scrubbed(dump.read_text(), "a UserPromptSubmit hook")


SERVER = """
import os, sys
from mcp.server import MCPServer

with open(sys.argv[1], "w") as handle:
    handle.write("\\n".join(f"{k}={v}" for k, v in os.environ.items()))
server = MCPServer("envy")

@server.tool()
def nothing() -> str:
    \"\"\"Nothing.\"\"\"
    return "nothing"

server.run("stdio")
"""


def test_mcp_stdio_servers_get_no_secret_variables_but_what_their_config_names(
        base: Path) -> None:
    script, dump = base / "envy.py", base / "server-env.txt"
    script.write_text(SERVER)
    given = secret("given")
    with OpenAIServer() as server:
        server.script(Reply(text="done"))
        done = run_chatcli(base, server, ENV_CONFIG.format(sandbox="off") + f"""
            [mcp.servers.envy]
            command = "{sys.executable}"
            args = ["{script}", "{dump}"]
            env = {{ GITHUB_TOKEN = "{given}" }}
        """, "-p", "hi", plugins="openai,coder,permissions,mcp")
        assert done.returncode == 0, done.stderr
    text = dump.read_text()
    for name, value in {**SECRETS, "OPENAI_API_KEY": secret("openai")}.items():
        if name != "GITHUB_TOKEN":
            assert value not in text, f"the MCP server got {name}"
    assert f"GITHUB_TOKEN={given}" in text  # its own configuration names it
    assert HARMLESS["CHATCLI_TEST_HARMLESS"] in text
    assert json.dumps(text)  # readable


@given(st.lists(st.text(max_size=20), max_size=5))
def test_pass_env_accepts_exactly_lists_of_names(names: list[str]) -> None:
    import re

    valid = all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in names)
    try:
        assert pass_env_names(names) == tuple(names) and valid
    except ValueError as err:
        assert not valid and "[coder] pass_env" in str(err)
