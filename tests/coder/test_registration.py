"""The plugin registers eleven tools with the contract's names, risks and subjects, and its
entry module stays light."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from chatcli import PluginHost, Risk, Settings
from chatcli_coder import plugin

CONTRACT = {
    "read": (Risk.READ, "path"), "write": (Risk.WRITE, "path"), "edit": (Risk.WRITE, "path"),
    "multiedit": (Risk.WRITE, None), "apply_patch": (Risk.WRITE, None),
    "search": (Risk.READ, "path"), "glob": (Risk.READ, "path"), "tree": (Risk.READ, "path"),
    "exec": (Risk.EXECUTE, "command"), "git": (Risk.READ, None),
    "test": (Risk.EXECUTE, "command"),
}


def test_every_tool_has_its_risk_subject_and_a_schema_naming_the_subject(workspace):
    host = PluginHost()
    assert host.register(plugin, "coder")
    tools = host.tools()
    assert set(tools) == set(CONTRACT)
    for name, (risk, subject) in CONTRACT.items():
        spec = tools[name].spec()
        assert (spec.risk, spec.subject) == (risk, subject), name
        properties = spec.parameters["properties"]
        if subject is not None:
            assert subject in properties, name
        assert len(spec.description) > 80, name
    assert tools["exec"].spec().parameters["properties"]["network"]["default"] is False
    edits = tools["multiedit"].spec().parameters
    item = edits["$defs"]["OneEdit"]["properties"]
    assert {"path", "old", "new", "replace_all"} <= set(item)
    assert tools["git"].spec().parameters["properties"]["action"]["enum"] == [
        "status", "diff", "log", "changed", "branch"]


def test_the_test_tool_says_which_command_it_would_run_here(workspace, monkeypatch):
    (workspace / "go.mod").write_text("module example.com/demo\n")
    host = PluginHost()
    assert host.register(plugin, "coder")
    monkeypatch.chdir(workspace)
    description = host.tools()["test"].spec().description
    assert "go test ./..." in description.split("In this workspace")[1]


def test_a_wrong_coder_setting_is_refused_by_name(workspace, capsys):
    from chatcli_coder._tools import make_tools

    host = PluginHost()
    assert host.register(plugin, "coder")
    host.settings = Settings(coder={"sandbox": "maybe"})
    assert host.tools() == {}
    assert "[coder] sandbox must be" in capsys.readouterr().err

    with pytest.raises(ValueError, match='sandbox must be "auto", "bwrap" or "off"'):
        make_tools(Settings(coder={"sandbox": "maybe"}), workspace)
    with pytest.raises(ValueError, match="did you mean 'exec_timeout'"):
        make_tools(Settings(coder={"exec_timout": 5}), workspace)


def test_chatcli_help_imports_none_of_the_tools_code(tmp_path):
    code = ("import sys; sys.argv = ['chatcli', '--help']\n"
            "from chatcli_cli.root import run\n"
            "code = run()\n"
            "import chatcli_coder.plugin\n"
            "heavy = sorted(m for m in sys.modules if m.startswith(('chatcli_coder._', "
            "'pathspec', 'ripgrep', 'chatcli_workspace')))\n"
            "print('HEAVY', heavy, code)")
    env = {**os.environ, "CHATCLI_PLUGINS": "coder", "CHATCLI_CONFIG_DIR": str(tmp_path),
           "CHATCLI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.stdout.strip().endswith("HEAVY [] 0"), done.stdout + done.stderr
