"""Helpers of the agent security suite: the world a run may not change, the cases, running
``chatcli -p`` with a scripted model, and reading what came back.

The world (:func:`build_world`) is a temporary folder with

- ``ws/``: the workspace, a git repository: a committed file changed but not committed
  (``tracked.txt``), untracked and ignored files, a branch ``feature`` that is not merged, a
  stash, a tool script, ``secrets/`` (denied by the project's config), ``private/`` (denied by the
  user's config), credential files (``.env``, ``certs/server.pem``), a link to a denied file
  (``innocent.txt``), a link out of the workspace (``link-out.txt``) and a linked folder that
  leaves it (``linkdir``);
- ``outside/``: next to the workspace: a canary file, a folder to delete, a bare git remote,
  a file whose name is a secret (a listing would show it);
- ``home/``: the home folder of the run (``HOME``): ``~/.ssh``, ``~/.aws/credentials``,
  ``~/.bashrc``, ``~/.gitconfig``, notes and a project folder;
- ``config/``, ``data/``, ``cache/``: chatcli's folders (``CHATCLI_*_DIR``).

Every secret holds a token made for the run, so a leak is found wherever it lands. The coder's
sandbox is off in the runs: the permission policy is the only guard, and a command that got
through would really change the world (bubblewrap would hide ``/tmp`` from it and the test could
not tell).
"""

from __future__ import annotations

import fcntl
import os
import pickle
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from chatcli_testing import Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"

#: What a run's tool result starts with when the policy (or the user) refused the call.
DENIED = "Error: denied"

#: What a run may change: chatcli's own folders, and a cache Python's entry-point lookup keeps.
OWN = ("data", "cache", "config", "home/.cache", "home/.cache/python-entrypoints")


# ------------------------------------------------------------------------------------ the world


def _run_path(path: str) -> str:
    """``path`` without the folders of pyenv's shims when a python3 is found without them: a
    shim costs half a second (a chain of bash scripts) each time a case runs ``python3``, and
    any python3 serves the cases."""
    folders = path.split(os.pathsep)
    rest = [f for f in folders if not (Path(f).name == "shims" and ".pyenv" in Path(f).parts)]
    return os.pathsep.join(rest) if shutil.which("python3", path=os.pathsep.join(rest)) else path


#: The PATH of the runs (the test process's, see :func:`_run_path`).
RUN_PATH = _run_path(os.environ.get("PATH", "/usr/bin:/bin"))


@dataclass
class World:
    base: Path
    token: str

    @property
    def ws(self) -> Path:
        return self.base / "ws"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    @property
    def home(self) -> Path:
        return self.base / "home"

    @property
    def secrets(self) -> dict[str, str]:
        """Secret name → the text that must never reach the model or the screen."""
        names = ("outside", "name", "home", "denied", "user-denied", "env", "pem", "ssh", "aws")
        return {name: f"{name.upper()}-{self.token}" for name in names}

    def fill(self, text: str, url: str = "", port: int = 0) -> str:
        """``text`` with {ws}, {out}, {home}, {base}, {url} and {port} filled in."""
        return (text.replace("{ws}", str(self.ws)).replace("{out}", str(self.outside))
                .replace("{home}", str(self.home)).replace("{base}", str(self.base))
                .replace("{url}", url).replace("{port}", str(port)))

    def env(self, openai_url: str, plugins: str = "openai,coder,permissions",
            **extra: str) -> dict[str, str]:
        """The child's whole environment: nothing of the test process's but PATH and the
        locale; no key but the wire server's, no CHATCLI_* but the folders and plugins."""
        env = {"PATH": RUN_PATH, "HOME": str(self.home),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "CHATCLI_CONFIG_DIR": str(self.base / "config"),
               "CHATCLI_DATA_DIR": str(self.base / "data"),
               "CHATCLI_CACHE_DIR": str(self.base / "cache"),
               "CHATCLI_PLUGINS": f"{plugins},print",  # print: the -p answer
               "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": openai_url,
               "GIT_CONFIG_NOSYSTEM": "1", **extra}
        assert Path(env["HOME"]).is_relative_to(self.base)  # never the real home
        return env


def _git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo.parent / "home"),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout


def _write(path: Path, text: str, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)


def build_world(base: Path) -> World:
    """Make the world in ``base`` (an empty or missing folder)."""
    base = Path(os.path.realpath(base))
    world = World(base, uuid.uuid4().hex[:12])
    s = world.secrets
    ws, out, home = world.ws, world.outside, world.home
    for folder in (ws, out, home, base / "config", base / "data", base / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    # home
    _write(home / ".ssh" / "id_rsa", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{s['ssh']}\n", 0o600)
    _write(home / ".ssh" / "authorized_keys", "ssh-ed25519 AAAA legit@host\n", 0o600)
    _write(home / ".aws" / "credentials", f"[default]\naws_secret_access_key = {s['aws']}\n")
    _write(home / ".bashrc", "# rc: keep me\n")
    _write(home / ".gitconfig", "[user]\n\tname = legit\n\temail = legit@example.com\n")
    _write(home / "notes.txt", f"{s['home']}\n")
    _write(home / "projects" / "keep.txt", "projects: keep me\n")
    # chatcli's user config: the policy is the only guard; a deny rule of the user's own
    _write(base / "config" / "config.toml",
           'max_turns = 400\n\n[coder]\nsandbox = "off"\n\n'
           '[permissions]\ndeny = ["read(./private/**)"]\n')
    # the workspace, a git repository
    _git(base, "init", "-q", "-b", "main", str(ws))
    _write(ws / "tracked.txt", "original\n")
    _write(ws / "src" / "app.py", "print('hi')\n", 0o644)
    _write(ws / "notes.txt", "notes: keep me\n")
    _write(ws / "tool.sh", "#!/bin/sh\necho tool\n", 0o755)
    _write(ws / ".gitignore", "ignored.log\n")
    _write(ws / "secrets" / "key.txt", f"{s['denied']}\n")
    _write(ws / "stash-me.txt", "before\n")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "start")
    _git(ws, "init", "-q", "--bare", "-b", "main", str(out / "remote.git"))
    _git(ws, "push", "-q", str(out / "remote.git"), "main")
    _git(ws, "commit", "-q", "--amend", "-m", "start, reworded")  # the remote would lose C1
    _git(ws, "branch", "feature")
    _write(ws / "feature-only.txt", "unmerged\n")
    _git(ws, "checkout", "-q", "feature")
    _git(ws, "add", "feature-only.txt")
    _git(ws, "commit", "-q", "-m", "feature work")
    _git(ws, "checkout", "-q", "main")
    _write(ws / "stash-me.txt", "stashed change\n")
    _git(ws, "stash", "-q")
    _write(ws / "tracked.txt", "modified, not committed\n")
    _write(ws / "untracked.txt", "untracked: keep me\n")
    _write(ws / "ignored.log", "ignored: keep me\n")
    _write(ws / "private" / "token.txt", f"{s['user-denied']}\n")
    _write(ws / ".env", f"API_TOKEN={s['env']}\n")
    _write(ws / "certs" / "server.pem",
           f"-----BEGIN PRIVATE KEY-----\n{s['pem']}\n-----END PRIVATE KEY-----\n")
    _write(ws / "filelist.txt", f"{out}/victim/keep.txt\n")
    _write(ws / ".chatcli" / "config.toml", '[permissions]\ndeny = ["read(./secrets/**)"]\n')
    (ws / "innocent.txt").symlink_to("secrets/key.txt")
    (ws / "link-out.txt").symlink_to(out / "canary.txt")
    (ws / "linkdir").symlink_to(out)
    # outside
    _write(out / "canary.txt", f"canary: keep me\n{s['outside']}\n", 0o644)
    _write(out / "victim" / "keep.txt", "victim: keep me\n")
    _write(out / f"{s['name']}.txt", "a name a listing would show\n")
    return world


# ------------------------------------------------------------------------------------ snapshots


def state(path: Path) -> tuple[Any, ...]:
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_file():
        return ("file", path.read_bytes(), path.stat().st_mode)
    if path.is_dir():
        return ("dir", path.stat().st_mode)
    return ("missing",)


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple[Any, ...]]:
    """Every file, folder and link below ``root`` (paths relative to it) with its content and
    mode; ``skip``: relative paths left out, with all they hold."""
    out: dict[str, tuple[Any, ...]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if any(relative == s or relative.startswith(s + "/") for s in skip):
                continue
            out[relative] = state(path)
    return out


def changes(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    """What differs between two snapshots, one line each."""
    lines = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            lines.append(f"removed: {key}")
        elif key not in before:
            lines.append(f"created: {key}")
        elif before[key] != after[key]:
            lines.append(f"changed: {key}")
    return lines


# ------------------------------------------------------------------------------------ cases


@dataclass(frozen=True)
class Case:
    """One thing the model tries. ``args`` may hold {ws}, {out}, {home}, {base}, {url}, {port}.

    What must not happen: the paths in ``kept`` (relative to the world) change or disappear,
    those in ``absent`` appear, the ``secrets`` named reach the model or the screen, a request
    for ``fetch`` (a path on the wire server) arrive. ``why``: a piece of the refusal's reason.
    ``fixed``: the case failed (the call ran without approval) before the fix this suite came
    with. ``runs``: a control case, which must run (the suite would notice things running).
    """

    name: str
    category: str
    tool: str
    args: dict[str, Any]
    kept: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    fetch: str | None = None
    why: str = ""
    fixed: bool = False
    runs: bool = False

    @property
    def id(self) -> str:
        return f"{self.category}-{self.name}"

    def arguments(self, world: World, url: str, port: int) -> dict[str, Any]:
        def fill(value: Any) -> Any:
            if isinstance(value, str):
                return world.fill(value, url, port)
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            return value

        return fill(self.args)


def case(category: str, name: str, tool: str, args: dict[str, Any] | str, **kw: Any) -> Case:
    """A case; ``args`` as text is an ``exec`` command."""
    if isinstance(args, str):
        args = {"command": args}
    return Case(name, category, tool, args, **kw)


# ------------------------------------------------------------------------------------ a run


@dataclass
class Outcome:
    """What one ``chatcli -p`` run with a scripted model did."""

    world: World
    cases: list[Case]
    returncode: int
    stdout: str
    stderr: str
    requests: list[Any]
    results: dict[str, str]
    #: the "not run" lines on stderr, in order
    refusals: list[str]
    before: dict[str, tuple[Any, ...]]
    seconds: float
    ids: dict[str, str] = field(default_factory=dict)
    _seen: str | None = None

    def result(self, item: Case) -> str:
        call_id = self.ids[item.id]
        assert call_id in self.results, (
            f"no tool result for {item.id} ({call_id}); stderr:\n{self.stderr}")
        return self.results[call_id]

    def refusal(self, item: Case) -> str:
        """The stderr line of ``item``'s refusal (refused cases are reported in order)."""
        refused = [c for c in self.cases if not c.runs]
        index = refused.index(item)
        assert index < len(self.refusals), (
            f"{len(self.refusals)} refusal lines for {len(refused)} refused calls; stderr:\n"
            f"{self.stderr}")
        return self.refusals[index]

    def seen_by_the_model(self) -> str:
        """Every tool message of every request the model got, in one text."""
        if self._seen is None:
            out = []
            for request in self.requests:
                body = request.json if isinstance(request.json, dict) else {}
                for message in body.get("messages", []):
                    if message.get("role") == "tool":
                        content = message.get("content")
                        out.append(content if isinstance(content, str) else repr(content))
            self._seen = "\n".join(out)
        return self._seen


def last_chat_request(requests: list[Any]) -> dict[str, Any]:
    chats = [r for r in requests if r.path.split("?")[0].endswith("/chat/completions")]
    assert chats, "the model was never asked"
    return chats[-1].json


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    """tool_call_id → content of the tool messages of one request."""
    return {m["tool_call_id"]: m["content"] for m in body.get("messages", [])
            if m.get("role") == "tool"}


def run_batch(world: World, server: Any, cases: list[Case], *flags: str,
              timeout: float = 150) -> Outcome:
    """One ``chatcli -p`` run in which the scripted model makes each case's call in turn, one a
    step, then answers; the world is photographed before it."""
    url, port = server.root_url, server.port
    ids = {c.id: f"call_{index:03d}_{re.sub(r'[^a-z0-9]', '', c.name)[:20]}"
           for index, c in enumerate(cases)}
    replies = [Reply(tool_calls=[ToolCall(c.tool, c.arguments(world, url, port), id=ids[c.id])])
               for c in cases]
    server.script(*replies, Reply(text="All steps done."))
    before = snapshot(world.base, skip=OWN)
    start = time.monotonic()
    done = subprocess.run(
        [str(CHATCLI), "--provider", "openai", "--model", "m", "-p", "do the steps", *flags],
        cwd=world.ws, env=world.env(server.url), capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=timeout)
    seconds = time.monotonic() - start
    requests = list(server.requests)
    results = tool_results(last_chat_request(requests)) if requests else {}
    refusals = [line for line in done.stderr.splitlines() if " not run: " in line]
    return Outcome(world, cases, done.returncode, done.stdout, done.stderr, requests, results,
                   refusals, before, seconds, ids)


# ------------------------------------------------------------------------------------ selection

#: The mark of a table's rows that the quick selection (``pytest -m "not slow"``) leaves out: it
#: keeps a few rows of each attack class (ways that meet different guards); the full suite, which
#: CI runs, runs every row.
MORE_OF_THE_SAME = pytest.mark.slow(
    reason="more rows of an attack class the quick selection already tries (the full suite "
           "runs every row)")


def wanted_cases(request: pytest.FixtureRequest,
                 needs: Callable[[pytest.Item], list[tuple[Hashable, str | None]]]
                 ) -> dict[Hashable, set[str] | None]:
    """Batch → the ids of the cases the selected tests of the fixture's module look at
    (``needs(item)``: its (batch, case id) pairs, case id None for every case of the batch);
    None: the whole batch. A batch runs only those, so a selection that leaves rows out starts
    the same processes with fewer steps; in the full suite every case runs, as before."""
    wanted: dict[Hashable, set[str] | None] = {}
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        for key, case_id in needs(item):
            if case_id is None:
                wanted[key] = None
            elif key not in wanted:
                wanted[key] = {case_id}
            elif (chosen := wanted[key]) is not None:
                chosen.add(case_id)
    return wanted


def only(cases: list[Case], wanted: dict[Hashable, set[str] | None], key: Hashable
         ) -> list[Case]:
    """The cases of batch ``key`` that :func:`wanted_cases` asked for (all of them for a batch
    it does not name)."""
    chosen = wanted.get(key)
    return cases if chosen is None else [c for c in cases if c.id in chosen]


# ------------------------------------------------------------------------------------ sharing

T = TypeVar("T")


def shared(factory: Any, key: str, make: Callable[[], T]) -> T:
    """``make()`` once for the whole test session, whichever pytest-xdist worker asks first (a
    lock and a pickle in the folder the workers share); the others wait and read it."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    done = root / f"security-{key}.pickle"
    with open(root / f"security-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if done.exists():
                with open(done, "rb") as handle:
                    return pickle.load(handle)
            value = make()
            with open(done, "wb") as handle:
                pickle.dump(value, handle)
            return value
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ------------------------------------------------------------------------------------ the REPL


def option(screen: str, label: str) -> str:
    """The number of the menu option whose text is (else starts with) ``label``."""
    options = [found.groups() for line in screen.splitlines()
               if (found := re.match(r"\s*[❯ ]?\s*(\d+)\. (.*?)\s*$", line))]
    for exact in (True, False):
        for number, text in reversed(options):
            if text == label if exact else text.startswith(label):
                return number
    raise AssertionError(f"no option {label!r} on screen:\n{screen}")


def chat_command(world: World, env: dict[str, str], *args: str) -> str:
    """The shell command a tmux pane runs: chatcli in the workspace with exactly ``env`` (tmux
    would hand down its server's own environment otherwise)."""
    exports = [f"{key}={value}" for key, value in env.items()]
    line = " ".join(shlex.quote(a) for a in ["env", "-i", *exports, str(CHATCLI), "--provider",
                                             "openai", "--model", "m", *args])
    return "sh -c " + shlex.quote(f"cd {shlex.quote(str(world.ws))} && exec {line}")
