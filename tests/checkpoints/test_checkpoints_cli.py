"""``chatcli -c -p "/rewind last"`` through the real command line: one process lets a scripted
model change files in a git repository (a write tool and a shell command), the next ones rewind
and undo, each with the installed sessions and checkpoints plugins found by their entry points
and a test distribution (on PYTHONPATH) playing the model and the tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from checkpoints_helpers import GitState, make_repo, read_tree

CHATCLI = Path(sys.executable).parent / "chatcli"

PLUGIN = '''
import json, os, subprocess
from pathlib import Path
from chatcli import Risk, Tool, hookimpl
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin
from pydantic import BaseModel
# chatcli-agent's --allow, without its policy (the kernel's approver reads the risk classes)
from chatcli_agent.permissions.cli_options import register_cli_options


class Put(BaseModel):
    path: str
    text: str


class Shell(BaseModel):
    command: str


def put(args, context):
    (Path(context.workspace) / args.path).write_text(args.text)
    return "written"


def shell(args, context):
    done = subprocess.run(["bash", "-c", args.command], cwd=context.workspace,
                          capture_output=True, text=True)
    return f"exit {done.returncode}"


def _script():
    items = []
    for item in json.loads(os.environ.get("CK_SCRIPT", "[]")):
        if "tool" in item:
            items.append(Reply(tool_calls=[ToolCall(name=item["tool"], arguments=item["args"])]))
        else:
            items.append(Reply(text=item["text"]))
    return items


_provider = scripted_plugin(ScriptedProvider(_script()))
register_providers = _provider.register_providers


@hookimpl
def register_tools(register):
    register(Tool(name="put_file", description="Write a file.", args_model=Put, run=put,
                  risk=Risk.WRITE))
    register(Tool(name="shell", description="Run a command.", args_model=Shell, run=shell,
                  risk=Risk.EXECUTE))
'''


def _environment(home: Path) -> dict[str, str]:
    site = home / "site"
    (site / "cktest_plugin").mkdir(parents=True)
    (site / "cktest_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "cktest_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cktest-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\ncktest = cktest_plugin\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")}
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"),
               CHATCLI_PLUGINS="sessions,checkpoints,cktest,print", PYTHONPATH=str(site))
    return env


def _chatcli(repo: Path, env: dict[str, str], *args: str, script: list | None = None
             ) -> subprocess.CompletedProcess[str]:
    run_env = {**env, "CK_SCRIPT": json.dumps(script or [])}
    return subprocess.run([str(CHATCLI), *args], cwd=repo, env=run_env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_rewind_last_and_undo_from_the_shell(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n", "old.txt": "old\n"})
    (repo / "notes.md").write_text("untracked notes\n")
    start, before = read_tree(repo), GitState(repo)
    env = _environment(tmp_path / "home")

    done = _chatcli(repo, env, "-p", "change the files", "--allow", "write,execute", script=[
        {"tool": "put_file", "args": {"path": "a.py", "text": "a = 2\n"}},
        {"tool": "shell", "args": {"command": "echo made > new.txt && rm old.txt"}},
        {"text": "All done."},
    ])
    assert done.returncode == 0, done.stderr
    assert "All done." in done.stdout
    agent = read_tree(repo)
    assert agent["a.py"] == "a = 2\n" and "new.txt" in agent and "old.txt" not in agent

    done = _chatcli(repo, env, "-c", "-p", "/rewind")  # no argument: say which to give
    assert done.returncode == 0, done.stderr
    assert "Give the checkpoint as the argument: /rewind last" in done.stdout
    assert "needs a choice" in done.stderr and read_tree(repo) == agent

    done = _chatcli(repo, env, "-c", "-p", "/rewind last")
    assert done.returncode == 0, done.stderr
    assert "Rewound to before “change the files”" in done.stdout
    assert "Restored 3 files: a.py, new.txt (removed), old.txt (recreated)." in done.stdout
    assert read_tree(repo) == start
    assert GitState(repo) == before

    done = _chatcli(repo, env, "-c", "-p", "/rewind undo")
    assert done.returncode == 0, done.stderr
    assert "Code rewind undone: 3 files" in done.stdout
    assert read_tree(repo) == agent

    shown = subprocess.run([str(CHATCLI), "sessions", "list", "--json"], cwd=repo,
                           env=env, capture_output=True, text=True, timeout=60)
    sessions = json.loads(shown.stdout)
    assert len(sessions) == 1 and sessions[0]["messages"] >= 6  # one session, all its turns


def test_rewind_undo_and_diff_in_brazilian_portuguese(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n", "old.txt": "old\n"})
    start = read_tree(repo)
    env = {**_environment(tmp_path / "home"), "CHATCLI_LANG": "pt_BR"}
    done = _chatcli(repo, env, "-p", "change the files", "--allow", "write,execute", script=[
        {"tool": "put_file", "args": {"path": "a.py", "text": "a = 2\n"}},
        {"tool": "shell", "args": {"command": "echo made > new.txt && rm old.txt"}},
        {"text": "All done."},
    ])
    assert done.returncode == 0, done.stderr
    agent = read_tree(repo)

    done = _chatcli(repo, env, "-c", "-p", "/diff --stat")
    assert "nesta sessão:" in done.stdout, done.stdout
    done = _chatcli(repo, env, "-c", "-p", "/diff bogus")
    assert "/diff: argumento desconhecido 'bogus'; use /diff [last] [--git] [--stat]" in (
        done.stdout + done.stderr)

    done = _chatcli(repo, env, "-c", "-p", "/rewind last")
    assert done.returncode == 0, done.stderr
    assert "Voltou para antes de “change the files”" in done.stdout
    assert ("3 arquivos restaurados: a.py, new.txt (removido), old.txt (recriado)."
            in done.stdout)
    assert read_tree(repo) == start

    done = _chatcli(repo, env, "-c", "-p", "/rewind undo")
    assert "Volta do código desfeita: 3 arquivos" in done.stdout, done.stdout
    assert read_tree(repo) == agent

    english = _chatcli(repo, {**env, "CHATCLI_LANG": "en"}, "-c", "-p", "/diff bogus")
    assert "/diff: unknown argument 'bogus'" in english.stdout + english.stderr
