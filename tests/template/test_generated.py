"""The plugin template end to end, the way a plugin author meets it.

Once per module: build the chatcli-kernel, chatcli-cli, chatcli-admin and chatcli-print wheels
(sdist first, then the wheel from the sdist, as ``uv build`` does; chatcli-cli is the ``chatcli``
command, chatcli-admin carries the template, chatcli-print answers ``-p``), install them with
pytest into a throwaway virtual environment, render one plugin of every kind with that
environment's ``chatcli plugins new`` (so the template comes from the wheel), and install the
rendered packages there. Then: the generated tests pass as generated, ``chatcli plugins list``
shows every plugin loaded, and each plugin works inside the real ``chatcli`` (the provider
against the local OpenAI-compatible server).
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from chatcli_admin.scaffold import KINDS, render_plugin
from chatcli_testing import Fault, OpenAIServer, Reply, ToolCall

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "plugin-template"

#: The plugin rendered for each kind: (short name, folder name).
PLUGINS = {
    "provider": ("tprov", "chatcli-provider-tprov"),
    "tool": ("tcount", "chatcli-tcount"),
    "command": ("thello", "chatcli-thello"),
    "skills": ("tskills", "chatcli-skills-tskills"),
}


def uv_command() -> list[str]:
    """How to run uv here: ``$UV`` (set by ``uv run``), uv on PATH, or ``python -m uv``."""
    for candidate in (os.environ.get("UV"), shutil.which("uv")):
        if candidate and Path(candidate).exists():
            return [candidate]
    probe = subprocess.run([sys.executable, "-m", "uv", "--version"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "uv"]
    pytest.skip("uv is needed to build the wheels and make a throwaway environment")


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("timeout", 600)
    return subprocess.run(cmd, **kwargs)


def uv_install(uv: list[str], python: Path, *args: str) -> None:
    """``uv pip install`` from the local cache first, from the index when that fails."""
    base = [*uv, "pip", "install", "--quiet", "--python", str(python)]
    result = run([*base, "--offline", *args])
    if result.returncode != 0:
        result = run([*base, *args])
    assert result.returncode == 0, result.stderr


@dataclass
class Sandbox:
    """The throwaway environment and what was built and rendered into it."""

    root: Path
    wheel: Path
    bin: Path
    plugins: dict[str, Path]
    env: dict[str, str]

    def chatcli(self, *args: str, cwd: Path | None = None, **extra_env: str):
        return run([str(self.bin / "chatcli"), *args], cwd=cwd or self.root,
                   env=self.env | extra_env)

    def python(self, *args: str, cwd: Path | None = None):
        return run([str(self.bin / "python"), *args], cwd=cwd or self.root, env=self.env)


def clean_env(home: Path, bin_dir: Path) -> dict[str, str]:
    """The user's environment minus chatcli settings and keys, with isolated chatcli folders."""
    drop = ("CHATCLI_", "OPENAI_", "ANTHROPIC_", "OLLAMA_", "TPROV_", "VIRTUAL_ENV",
            "PYTHONPATH", "UV_PROJECT")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env |= {
        "CHATCLI_CONFIG_DIR": str(home / "config"),
        "CHATCLI_DATA_DIR": str(home / "data"),
        "NO_COLOR": "1",
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
    }
    return env


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Sandbox:
    uv = uv_command()
    root = tmp_path_factory.mktemp("template-e2e")

    dist = root / "dist"
    for project in ("kernel", "plugins/admin", "libs/workspace", "libs/config-edit",
                    "libs/plugin-records", "libs/memory-api", "libs/sessions-api",
                    "libs/provider-kit", "libs/testing", "plugins/print", "libs/render", "libs/cli",
                    "libs/records-lite"):
        built = run([*uv, "build", "--quiet", "--out-dir", str(dist), str(REPO / project)])
        assert built.returncode == 0, built.stderr
    (kernel,) = dist.glob("chatcli_kernel-*.whl")
    (front_end,) = dist.glob("chatcli_cli-*.whl")  # the `chatcli` command (the kernel is a library)
    (wheel,) = dist.glob("chatcli_admin-*.whl")  # `chatcli plugins new` and the template
    (printer,) = dist.glob("chatcli_print-*.whl")  # answers the generated plugins' -p runs

    venv = root / "venv"
    made = run([*uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    uv_install(uv, python, "--find-links", str(dist), str(kernel), str(front_end), str(wheel),
               str(printer))

    # The libraries are not on the package index yet: the installer finds them in dist/.
    env = clean_env(root / "home", venv / "bin") | {
        "UV_FIND_LINKS": str(dist), "PIP_FIND_LINKS": str(dist)}
    work = root / "work"
    work.mkdir()
    plugins: dict[str, Path] = {}
    for kind, (name, folder) in PLUGINS.items():
        made = run([str(venv / "bin" / "chatcli"), "plugins", "new", name, "--kind", kind],
                   cwd=work, env=env)
        assert made.returncode == 0, made.stderr
        plugins[kind] = work / folder
        assert plugins[kind].is_dir()

    # As the READMEs say: `chatcli plugins install -e '.[test]'` (the installer chatcli finds in
    # its own environment: uv here, since a uv environment has no pip). The skill pack as a
    # regular install, to prove its SKILL.md files ship as package data.
    for kind in ("provider", "tool", "command"):
        done = run([str(venv / "bin" / "chatcli"), "plugins", "install", "-e", ".[test]"],
                   cwd=plugins[kind], env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    uv_install(uv, python, "--find-links", str(dist), str(plugins["skills"]) + "[test]")
    return Sandbox(root=root, wheel=wheel, bin=venv / "bin", plugins=plugins, env=env)


def template_files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


# ------------------------------------------------------------------------------------------------
# The chatcli-admin wheel carries the template
# ------------------------------------------------------------------------------------------------


def test_the_admin_wheel_carries_the_template(sandbox):
    with zipfile.ZipFile(sandbox.wheel) as wheel:
        shipped = {
            name.removeprefix("chatcli_admin/_template/")
            for name in wheel.namelist()
            if name.startswith("chatcli_admin/_template/")
        }
    # the build hook ships every kind and the README, not ruff.toml or top-level caches
    expected = {
        f for f in template_files(TEMPLATE) if f != "ruff.toml" and not f.startswith(".")
    }
    assert shipped == expected
    for kind in KINDS:
        assert f"{kind}/pyproject.toml" in shipped


def test_rendering_from_the_wheel_matches_rendering_from_the_repository(sandbox, tmp_path):
    for kind, (name, folder) in PLUGINS.items():
        here = render_plugin(name, kind, tmp_path)
        assert here.name == folder
        there = sandbox.plugins[kind]
        assert template_files(here) <= template_files(there)
        mismatch, errors = filecmp.cmpfiles(here, there, sorted(template_files(here)),
                                            shallow=False)[1:]
        assert not mismatch and not errors, (kind, mismatch, errors)


# ------------------------------------------------------------------------------------------------
# The generated packages
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_generated_tests_pass_as_generated(sandbox, kind):
    folder = sandbox.plugins[kind]
    result = sandbox.python("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=folder)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 3, summary
    assert not re.search(r"failed|error|skipped", summary), summary


def test_plugins_list_shows_every_new_plugin_loaded(sandbox):
    result = sandbox.chatcli("plugins", "list")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[1:] if line.strip()}
    hooks = {
        "tprov": ["register_providers"],
        "tcount": ["register_tools"],
        "thello": ["register_commands", "register_slash_commands"],
        "tskills": ["register_skill_sources"],
    }
    for name, expected in hooks.items():
        assert name in rows, result.stdout
        assert "loaded" in rows[name]
        for hook in expected:
            assert hook in rows[name]
    assert "failed" not in result.stdout
    assert "warning" not in result.stderr


def test_the_provider_is_listed_and_streams_an_answer_in_chatcli(sandbox, tmp_path):
    listed = sandbox.chatcli("models", TPROV_API_KEY="test-key-tprov")
    assert listed.returncode == 0, listed.stderr
    assert "tprov" in listed.stdout

    with OpenAIServer() as server:
        server.script(Reply(text="Hello from a generated provider.", chunk_size=3,
                            usage={"input_tokens": 21, "output_tokens": 7}))
        result = sandbox.chatcli(
            "-p", "Say hello", "--provider", "tprov", "--model", "test-model", "--json",
            cwd=tmp_path, TPROV_API_KEY="test-key-tprov", TPROV_BASE_URL=server.url,
        )
        requests = list(server.requests)

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["text"] == "Hello from a generated provider."
    assert answer["provider"] == "tprov"
    assert answer["usage"]["input_tokens"] == 21
    assert answer["usage"]["output_tokens"] == 7
    (sent,) = requests
    assert sent.json["stream"] is True
    assert sent.json["model"] == "test-model"
    assert sent.headers["authorization"] == "Bearer test-key-tprov"
    assert "test-key-tprov" not in result.stdout + result.stderr


def test_a_provider_error_is_one_line_with_exit_code_1(sandbox, tmp_path):
    with OpenAIServer() as server:
        server.script(Fault(status=401, message="invalid api key"))
        result = sandbox.chatcli("-p", "hi", "--provider", "tprov", "--raw", cwd=tmp_path,
                                 TPROV_API_KEY="test-key-tprov", TPROV_BASE_URL=server.url)
    assert result.returncode == 1
    assert "HTTP 401" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "test-key-tprov" not in result.stderr


def test_the_tool_runs_inside_chatcli(sandbox, tmp_path):
    (tmp_path / "notes.txt").write_text("three little words\n")
    with OpenAIServer() as server:
        server.script(
            Reply(tool_calls=[ToolCall(name="tcount", arguments={"path": "notes.txt"})]),
            Reply(text="The file has 3 words."),
        )
        result = sandbox.chatcli(
            "-p", "How many words are in notes.txt?", "--provider", "tprov", "--json",
            cwd=tmp_path, TPROV_API_KEY="test-key-tprov", TPROV_BASE_URL=server.url,
        )
        requests = list(server.requests)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["text"] == "The file has 3 words."
    assert "tcount" in [t["function"]["name"] for t in requests[0].json["tools"]]
    tool_messages = [m for m in requests[1].json["messages"] if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "notes.txt: 1 lines, 3 words, 19 characters"


def test_the_command_is_a_chatcli_subcommand(sandbox):
    result = sandbox.chatcli("thello", "Ada")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello, Ada, from the Thello plugin!\n"
    assert "thello" in sandbox.chatcli("--help").stdout


def test_the_skill_pack_ships_its_skill_files(sandbox):
    code = (
        "from chatcli import PluginHost\n"
        "from chatcli_plugin_records import SkillSource\n"
        "host = PluginHost(); host.load_entry_points()\n"
        "print(host.collect('register_skill_sources', SkillSource, 'skill source')"
        "['tskills'].path)\n"
    )
    result = sandbox.python("-c", code)
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert sandbox.root / "venv" in path.parents  # installed, not the rendered source folder
    skill = (path / "tskills" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: tskills\ndescription: ")


def test_plugins_uninstall_then_install_through_chatcli(sandbox):
    # The real installer (uv pip here: a uv environment has no pip), in chatcli's own venv.
    removed = sandbox.chatcli("plugins", "uninstall", "thello")
    assert removed.returncode == 0, removed.stderr
    assert "uninstalled: chatcli-thello" in removed.stdout
    try:
        listed = sandbox.chatcli("plugins", "list")
        assert "thello" not in listed.stdout and listed.returncode == 0
        gone = sandbox.chatcli("thello", "Ada")
        assert gone.returncode == 2 and "No such command 'thello'" in gone.stderr
    finally:
        added = sandbox.chatcli("plugins", "install", "-e", str(sandbox.plugins["command"]))
    assert added.returncode == 0, added.stderr
    assert "installed:" in added.stdout
    again = sandbox.chatcli("thello", "Ada")
    assert again.returncode == 0 and again.stdout == "Hello, Ada, from the Thello plugin!\n"
