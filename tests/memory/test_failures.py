"""Memory that cannot work never stops chatcli: a backend nobody installed, a file that is not
a database, bad settings — each is one line naming the cause and the fix, and the run goes on
without memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from memory_support import chat_requests, cli


def test_an_unknown_backend(chat: Any, openai_server: Any) -> None:
    session = chat(memory={"backend": "nosuch"})
    session.turn("hello")
    (line,) = [w for w in session.warned if w.startswith("memory:")]
    assert line == ("memory: no memory backend named 'nosuch' (installed: sqlite) — set "
                    "memory.backend to one of them, e.g. `chatcli config set memory.backend "
                    "sqlite`, or pip install chatcli-memory-nosuch; going on without memory")
    assert "# Memory" not in str(chat_requests(openai_server)[-1].json)
    assert session.command("list").startswith("memory is unavailable: no memory backend")
    assert "memory_search" not in [t.name for t in session.request().tools]


def test_a_broken_file_from_the_command_line(home: Path, workspace: Path,
                                             openai_server: Any) -> None:
    folder = home / "data" / "memory"
    folder.mkdir(parents=True)
    (folder / "memory.db").write_bytes(b"this is not a database" * 100)
    openai_server.script("Still here.")
    done = cli(home, workspace, openai_server, "-p", "hello")
    assert done.returncode == 0 and done.stdout.strip() == "Still here.", done.stderr
    lines = [line for line in done.stderr.splitlines() if "memory" in line]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"chatcli: warning: memory: memory file {folder / 'memory.db'} "
                               "cannot be read (file is not a database) — move ")
    assert lines[0].endswith("going on without memory")
    status = cli(home, workspace, None, "memory", "status", model_flags=False)
    assert status.returncode == 0
    assert "memory is unavailable: memory file" in status.stdout


def test_an_unknown_backend_from_the_command_line(home: Path, workspace: Path,
                                                  openai_server: Any) -> None:
    openai_server.script("Fine.")
    done = cli(home, workspace, openai_server, "-p", "hi", CHATCLI_MEMORY__BACKEND="nosuch")
    assert done.returncode == 0 and done.stdout.strip() == "Fine.", done.stderr
    assert done.stderr.count("no memory backend named 'nosuch'") == 1


def test_bad_settings_are_one_line_each_and_defaults(chat: Any) -> None:
    session = chat(memory={"recall_chars": "lots", "extract": "maybe", "archive_below": 3,
                           "cooldwn": 5})
    warned = sorted(w for w in session.warned if w.startswith("memory:"))
    assert warned == [
        "memory: [memory] archive_below must be a number from 0 to 1, not 3; using 0.15",
        "memory: [memory] extract must be true or false, not 'maybe'; using True",
        "memory: [memory] has no setting 'cooldwn'; did you mean 'cooldown'?",
        "memory: [memory] recall_chars must be a whole number ≥ 0, not 'lots'; using 1200",
    ]
    options = session.runtime.options
    assert (options.recall_chars, options.extract, options.archive_below) == (1200, True, 0.15)


def test_memory_off(chat: Any, openai_server: Any) -> None:
    seed = chat()
    seed.command("add a remembered thing")
    seed.close()
    session = chat(memory={"enabled": False})
    session.turn("hello")
    assert "remembered thing" not in str(chat_requests(openai_server)[-1].json)
    assert "memory_search" not in [t.name for t in session.request().tools]


def test_chatcli_help_imports_no_memory_code(tmp_path: Path) -> None:
    code = ("import sys; sys.argv = ['chatcli', '--help']\n"
            "from chatcli_cli.root import run\n"
            "code = run()\n"
            "import chatcli_memory.plugin\n"
            "heavy = sorted(m for m in sys.modules if m.startswith('chatcli_memory.')"
            " and m not in ('chatcli_memory.plugin', 'chatcli_memory.hookspecs'))\n"
            "print('HEAVY', heavy, 'sqlite3' in sys.modules, code)")
    env = {**os.environ, "CHATCLI_PLUGINS": "memory", "CHATCLI_CONFIG_DIR": str(tmp_path),
           "CHATCLI_DATA_DIR": str(tmp_path), "CHATCLI_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.stdout.strip().endswith("HEAVY [] False 0"), done.stdout + done.stderr
    assert "memory" in done.stdout and "Long-term memory" in done.stdout


def test_the_chosen_backends_own_keys_are_left_to_it() -> None:
    """``[memory] postgres_url`` belongs to the postgres backend when it is the one chosen
    (chatcli-memory-postgres checks it); with another backend it is a key nobody reads."""
    from chatcli_memory.settings import MemoryOptions

    options, problems = MemoryOptions.from_table(
        {"backend": "postgres", "postgres_url": "postgresql://db/team", "postgres_schema": "s"})
    assert problems == [] and options.backend == "postgres"
    _, problems = MemoryOptions.from_table({"postgres_url": "postgresql://db/team"})
    assert problems == ["[memory] has no setting 'postgres_url'"]
