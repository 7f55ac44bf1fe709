"""What ``chatcli -p`` costs on top of the provider's SDK: a one-shot answer from the OpenAI wire
server with every default plugin installed, against the same request made with the bare openai
SDK in a fresh ``python`` process.

Run with the environment's interpreter (all bundled plugins installed)::

    .venv/bin/python bench/oneshot.py [--runs N] [--profile] [--instructions]

Both commands start as fresh processes against one local OpenAI wire server (``chatcli_testing``,
answering "ok"), N times each, interleaved so a change of the machine's load touches both alike
(after one warm-up each, which also fills chatcli's plugin cache); the medians, their difference
(chatcli's own cost) and the ratio are printed, with the machine's load average and each
command's median user and system CPU time (system time is where a frame-stack chunk thrash
showed: see ``chatcli._providers._start``). Goal: own cost ≤ 100 ms.

The SDK baseline streams the same request the way chatcli does (``stream=True`` with usage)
and prints the answer: ``import openai``, a client, one streamed completion. chatcli runs in an
empty workspace with a fresh configuration and data folder (so a session is stored, as for a
user). ``--profile`` also runs chatcli once under ``-X importtime`` and once under cProfile and
prints the heaviest imports and functions — where the own cost goes. ``--instructions`` also
counts the instructions of one run of each under valgrind's callgrind, which the load of a
shared machine does not move (wall-time medians do).

Bytecode is compiled first for the workspace sources (as ``bench/startup.py`` does). The
workspace's environment is an editable install: each of its ~45 distributions adds a folder to
``sys.path``, and every import that is not found early walks them all. ``--installed`` measures
what a user gets instead: the same lock installed as regular wheels (``uv sync --no-editable
--no-dev`` into a folder under the cache, rebuilt when ``uv.lock`` or a source changes), both
commands run by that environment's interpreter.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

GOAL_MS = 100.0
KEY = "sk-bench-0123456789abcdef"
PROMPT = "Say ok."
ROOT = Path(__file__).resolve().parents[1]

SDK_SCRIPT = """
import sys, openai
client = openai.OpenAI(base_url=sys.argv[1], api_key=sys.argv[2])
stream = client.chat.completions.create(
    model="gpt-bench", messages=[{"role": "user", "content": sys.argv[3]}],
    stream=True, stream_options={"include_usage": True})
for chunk in stream:
    for choice in chunk.choices:
        if choice.delta.content:
            sys.stdout.write(choice.delta.content)
sys.stdout.write("\\n")
"""


def _compile_sources(python: str) -> None:
    sources = [str(p) for p in (ROOT / "kernel" / "src", *ROOT.glob("*/*/src"))
               if p.is_dir() and "plugin-template" not in p.parts]
    subprocess.run([python, "-m", "compileall", "-q", *sources], check=False,
                   capture_output=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})


def _installed_python() -> str:
    """The interpreter of a regular (non-editable) install of this workspace's lock, built
    when missing or older than ``uv.lock`` and the sources (takes a minute)."""
    import hashlib

    sources = sorted(p for p in ROOT.glob("*/*/src/**/*.py") if "plugin-template" not in p.parts)
    sources += sorted((ROOT / "kernel" / "src").glob("**/*.py"))
    digest = hashlib.sha256((ROOT / "uv.lock").read_bytes())
    for path in sources:
        digest.update(str(path).encode() + path.read_bytes())
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chatcli-bench"
    folder = cache / f"installed-{digest.hexdigest()[:16]}"
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"installing the workspace as wheels into {folder} (once per change) …",
              file=sys.stderr)
        import shutil

        uv = [found] if (found := shutil.which("uv")) else ["python3", "-m", "uv"]
        # uv keeps the wheel it built of a workspace member under its version and pyproject
        # (not its sources): without --reinstall-package a changed plugin would be installed
        # as it was when first built
        members: list[str] = []
        projects = [*sorted(ROOT.glob("*/*/pyproject.toml")), ROOT / "kernel" / "pyproject.toml"]
        for project in projects:
            if "plugin-template" in project.parts:
                continue
            name = tomllib.loads(project.read_text()).get("project", {}).get("name")
            if isinstance(name, str):
                members += ["--reinstall-package", name]
        done = subprocess.run(
            [*uv, "sync", "-q", "--frozen", "--no-editable", "--no-dev", *members],
            cwd=ROOT, env={**os.environ, "UV_PROJECT_ENVIRONMENT": str(folder)},
            capture_output=True, text=True)
        if done.returncode != 0 or not python.exists():
            raise SystemExit(f"uv sync --no-editable failed: {done.stderr[-2000:]}")
    return str(python)


def _env(home: Path, url: str) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("CHATCLI_PLUGINS", "CHATCLI_DISABLE_PLUGINS", "PYTHONPROFILEIMPORTTIME"):
        env.pop(name, None)
    env.update({
        "HOME": str(home / "home"),
        "CHATCLI_CONFIG_DIR": str(home / "config"),
        "CHATCLI_DATA_DIR": str(home / "data"),
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": KEY,
        "CHATCLI_PROVIDER": "openai",
        "CHATCLI_MODEL": "gpt-bench",
    })
    (home / "home").mkdir(exist_ok=True)
    return env


def _run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall, user and system milliseconds of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or done.stdout.strip() != "ok":
        raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stdout!r} "
                         f"{done.stderr[-2000:]}")
    return (elapsed, (after.ru_utime - before.ru_utime) * 1000,
            (after.ru_stime - before.ru_stime) * 1000)


def _instructions(command: list[str], env: dict[str, str], cwd: Path) -> int:
    """Instructions one run of ``command`` executes (valgrind's callgrind): unlike wall time,
    the count does not move with the machine's load."""
    import re

    # one hash seed for both runs: set and dict orders (and so the work done) stay the same
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *command], env={**env, "PYTHONHASHSEED": "0"}, cwd=cwd,
                          capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None or done.stdout.strip() != "ok":
        raise SystemExit(f"{command[0]} under valgrind failed: {done.stderr[-2000:]}")
    return int(found.group(1))


def _profile(chatcli: str, python: str, env: dict[str, str], cwd: Path, top: int) -> None:
    done = subprocess.run([python, "-X", "importtime", chatcli, "-p", PROMPT], env=env, cwd=cwd,
                          capture_output=True, text=True)
    if done.returncode != 0:
        tail = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
        raise SystemExit(f"chatcli -p under -X importtime failed: {tail[-20:]}")
    rows = []
    for line in done.stderr.splitlines():
        fields = line[len("import time:"):].split("|") if line.startswith("import time:") else []
        if len(fields) == 3 and fields[0].strip().isdigit():
            rows.append((fields[2].rstrip(), int(fields[0]), int(fields[1])))
    tops: dict[str, int] = {}
    for name, _self, cumulative in rows:
        if not name.startswith("  "):  # top-level imports only: their cumulative adds up
            tops[name.strip()] = tops.get(name.strip(), 0) + cumulative
    print(f"\nimports of `chatcli -p` (-X importtime, one run): {len(rows)} modules, "
          f"top-level total {sum(tops.values()) / 1000:.0f} ms")
    for name, cumulative in sorted(tops.items(), key=lambda r: -r[1])[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name}")
    print(f"\nheaviest single imports (cumulative, top {top}):")
    for name, _self, cumulative in sorted(rows, key=lambda r: -r[2])[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name.strip()}")

    with tempfile.NamedTemporaryFile(suffix=".prof") as out:
        subprocess.run([python, "-m", "cProfile", "-o", out.name, chatcli, "-p", PROMPT],
                       env=env, cwd=cwd, capture_output=True, check=True)
        import pstats

        print(f"\ncProfile of `chatcli -p` (cumulative, top {top}):")
        stats = pstats.Stats(out.name, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(top)


def main() -> int:
    """Measure and print both medians, the own cost and the goal; exit 1 when it is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31,
                        help="fresh processes per command (11 left medians ±30 ms apart here)")
    parser.add_argument("--profile", action="store_true",
                        help="also print -X importtime and cProfile of one chatcli -p run")
    parser.add_argument("--top", type=int, default=30, help="rows of the profile listings")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of one run of each under valgrind "
                             "(independent of the load; takes a few minutes)")
    parser.add_argument("--installed", action="store_true",
                        help="measure a regular install of the workspace (wheels, as a user "
                             "has it) instead of this editable environment")
    options = parser.parse_args()

    python = _installed_python() if options.installed else sys.executable
    chatcli = str(Path(python).with_name("chatcli"))
    if not Path(chatcli).exists():
        print(f"no chatcli next to {python}; run with the environment's python", file=sys.stderr)
        return 2
    if not options.installed:
        _compile_sources(python)
    from chatcli_testing import OpenAIServer

    with tempfile.TemporaryDirectory(prefix="chatcli-bench-oneshot-") as tmp, \
            OpenAIServer() as server:
        home = Path(tmp)
        workspace = home / "workspace"
        workspace.mkdir()
        env = _env(home, server.url)
        commands = {
            "openai SDK": [python, "-c", SDK_SCRIPT, server.url, KEY, PROMPT],
            "chatcli -p": [chatcli, "-p", PROMPT],
        }
        for command in commands.values():
            _run(command, env, workspace)  # warm-up: caches, the plugin cache
        times: dict[str, list[tuple[float, float, float]]] = {label: [] for label in commands}
        load_before = os.getloadavg()[0]
        for _ in range(options.runs):
            for label, command in commands.items():
                times[label].append(_run(command, env, workspace))
        load_after = os.getloadavg()[0]
        medians = {label: statistics.median(run[0] for run in runs)
                   for label, runs in times.items()}
        sdk, own = medians["openai SDK"], medians["chatcli -p"]
        layout = "installed as wheels" if options.installed else "this editable environment"
        print(f"one-shot answer from the OpenAI wire server ({layout}), median of "
              f"{options.runs} fresh processes each (load average {load_before:.2f} -> "
              f"{load_after:.2f})")
        for label, runs in times.items():
            walls = [run[0] for run in runs]
            user = statistics.median(run[1] for run in runs)
            system = statistics.median(run[2] for run in runs)
            print(f"  {label:<12} {medians[label]:7.1f} ms   (min {min(walls):.1f}, "
                  f"max {max(walls):.1f}; CPU user {user:.0f} ms, system {system:.0f} ms)")
        cost = own - sdk
        print(f"  own cost     {cost:7.1f} ms   ({own / sdk:.2f}x the SDK call)")
        print(f"\nchatcli -p own cost {cost:.0f} ms (goal <= {GOAL_MS:g} ms): "
              f"{'ok' if cost <= GOAL_MS else 'MISSED'}")
        if options.instructions:
            counts = {label: _instructions(
                [python, *command[1:]] if label == "openai SDK" else [python, chatcli, "-p",
                                                                      PROMPT], env, workspace)
                for label, command in commands.items()}
            base = counts["openai SDK"]
            print("\ninstructions of one run (callgrind, independent of the load):")
            for label, count in counts.items():
                print(f"  {label:<12} {count / 1e6:8.0f} M")
            print(f"  own cost     {(counts['chatcli -p'] - base) / 1e6:8.0f} M   "
                  f"({counts['chatcli -p'] / base:.2f}x the SDK call)")
        if options.profile:
            _profile(chatcli, python, env, workspace, options.top)
    return 0 if cost <= GOAL_MS else 1


if __name__ == "__main__":
    sys.exit(main())
