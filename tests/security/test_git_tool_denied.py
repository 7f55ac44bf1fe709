"""The git tool's diffs show no denied file: a repository that tracks ``.env`` and ``secrets/``
(changed, staged or not) answers ``git diff`` through ``chatcli -p`` — the real permission
policy turning the deny rules into hidden paths, the real git tool leaving them out — with every
other change and none of the secrets. One line a way of asking."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from chatcli_testing import OpenAIServer, Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"

#: (name, the git tool's arguments)
ASKS = [
    ("diff", {"action": "diff"}),
    ("staged diff", {"action": "diff", "staged": True}),
    ("diff of the file", {"action": "diff", "path": ".env"}),
    ("diff of the folder", {"action": "diff", "path": "secrets"}),
    ("staged diff of a file in the folder", {"action": "diff", "staged": True,
                                              "path": "secrets/deep/key.txt"}),
]


def _git(repo: Path, *args: str) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def test_the_git_tool_shows_no_denied_change(tmp_path: Path) -> None:
    repo, config = tmp_path / "ws", tmp_path / "config"
    files = {".env": "ENV", "secrets/deep/key.txt": "KEY", "app.py": "APP"}
    for name, tag in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(f"{tag}-old\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    for name, tag in files.items():
        (repo / name).write_text(f"{tag}-SECRET-CHANGE\n")
    _git(repo, "add", "secrets/deep/key.txt", "app.py")
    (repo / "app.py").write_text("APP-SECRET-CHANGE\nAPP-UNSTAGED\n")
    config.mkdir()
    (config / "config.toml").write_text(
        '[permissions]\ndeny = ["read(.env)", "read(./secrets/**)"]\n')
    with OpenAIServer() as server:
        server.script(*[Reply(tool_calls=[ToolCall("git", arguments, id=f"call_{n}")])
                        for n, (_name, arguments) in enumerate(ASKS)], Reply(text="done"))
        env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LC_ALL": "C.UTF-8",
               "CHATCLI_CONFIG_DIR": str(config), "CHATCLI_DATA_DIR": str(tmp_path / "data"),
               "CHATCLI_CACHE_DIR": str(tmp_path / "cache"),
               "CHATCLI_PLUGINS": "openai,coder,permissions,print", "OPENAI_API_KEY": "test",
               "OPENAI_BASE_URL": server.url, "GIT_CONFIG_NOSYSTEM": "1"}
        done = subprocess.run([str(CHATCLI), "--provider", "openai", "--model", "m", "-p",
                               "look at the changes"], cwd=repo, env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert done.returncode == 0, done.stderr
        last = server.requests[-1].json
    results = {m["tool_call_id"]: m["content"] for m in last["messages"] if m["role"] == "tool"}
    assert len(results) == len(ASKS)
    everything = "\n".join(results.values())
    assert "ENV-SECRET" not in everything and "KEY-SECRET" not in everything
    assert "+APP-UNSTAGED" in results["call_0"]  # the rest of the diff is there
    assert "+APP-SECRET-CHANGE" in results["call_1"]

