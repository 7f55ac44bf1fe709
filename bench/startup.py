"""Start-up cost of the ``chatcli`` command, as ratios to ``python -c pass``.

Run with the environment's interpreter (all bundled plugins installed)::

    .venv/bin/python bench/startup.py [--runs N] [--instructions]

Each command runs N times as a fresh process (after two warm-ups, which fill chatcli's plugin
cache and its cached help page); the median wall time is reported. ``--instructions`` also
counts the instructions of each command under valgrind's callgrind (the least of three runs),
a figure the load of a shared machine does not move; the goals are then judged on those ratios.
Then ``chatcli --help`` and ``chatcli models`` run once under ``-X importtime``: the modules the
cached ``--help`` imported are listed (no click among them), and the heaviest imports of the page
made by click (``chatcli --help`` when its page is not cached: the first run, or after an install),
with any provider SDK flagged. Goals: ``--version`` ≤ 2×, ``--help`` ≤ 4×, ``models`` ≤ 5×, and
no SDK (nor pydantic) imported by either. English runs with ``LANG=en_US.UTF-8``; ``--help`` and
``models`` also run in Brazilian Portuguese (``LANG=pt_BR.UTF-8``: the catalogs of every
distribution the command touches are read), held to the same goals.

Bytecode: a pip-installed chatcli has compiled bytecode; an editable workspace on a machine with
``PYTHONDONTWRITEBYTECODE=1`` has none for its own sources, which costs every start about 20 ms.
The bench compiles the workspace sources first, so it measures what users run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SDKS = ("openai", "anthropic", "ollama", "xllamacpp", "mcp", "httpx2", "llama_cpp")
#: Not SDKs, but too heavy for a command that only lists or prints help.
HEAVY = ("pydantic", "rich", "httpx", "prompt_toolkit")
GOALS = {"chatcli --version": 2.0, "chatcli --help": 4.0, "chatcli models": 5.0,
         "chatcli --help, pt_BR": 4.0, "chatcli models, pt_BR": 5.0}
ROOT = Path(__file__).resolve().parents[1]
#: ``chatcli --help`` without its cached page: the page click makes (no goal; shown for scale).
CLICK_HELP = "import sys\nfrom chatcli_cli.root import run\nsys.exit(run(['--help']))"


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CHATCLI_CONFIG_DIR"] = str(home / "config")
    env["CHATCLI_DATA_DIR"] = str(home / "data")
    for name in ("CHATCLI_PLUGINS", "CHATCLI_DISABLE_PLUGINS", "PYTHONPROFILEIMPORTTIME",
                 "CHATCLI_LANG", "LC_ALL", "LC_MESSAGES"):
        env.pop(name, None)
    env["LANG"] = "en_US.UTF-8"
    return env


def _split(command: list[str]) -> tuple[list[str], dict[str, str]]:
    """A command of the table and the variables it adds (``NAME=value`` words before it)."""
    extra = dict(word.split("=", 1) for word in command if "=" in word and word[0] != "-"
                 and word.split("=", 1)[0].isupper())
    return [word for word in command if word.split("=", 1)[0] not in extra], extra


def _medians_ms(commands: dict[str, list[str]], runs: int, env: dict[str, str]
                ) -> dict[str, float]:
    """Median wall time of each command; rounds interleave the commands so that a change in
    the machine's load affects them all alike."""
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(2):  # warm the caches (the help page is kept by a run whose files settled)
        for command in commands.values():
            argv, extra = _split(command)
            subprocess.run(argv, env={**env, **extra}, capture_output=True, check=True)
    for _ in range(runs):
        for label, command in commands.items():
            argv, extra = _split(command)
            start = time.perf_counter()
            subprocess.run(argv, env={**env, **extra}, capture_output=True, check=True)
            times[label].append((time.perf_counter() - start) * 1000)
    return {label: statistics.median(values) for label, values in times.items()}


def _instructions(command: list[str], env: dict[str, str], tries: int = 3) -> int:
    """The fewest instructions one run of ``command`` executed under valgrind's callgrind, of
    ``tries`` runs (a cache rebuilt by another process's edit costs one run, not the figure)."""
    import re

    counts = []
    command, extra = _split(command)
    for _ in range(tries):
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               *command], env={**env, **extra}, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"{command} under valgrind failed: {done.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return min(counts)


def _imports(command: list[str], env: dict[str, str]) -> list[tuple[str, int, int]]:
    """``(module, self_us, cumulative_us)`` for each module ``command`` imported."""
    done = subprocess.run(command, env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
                          capture_output=True, text=True, check=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        fields = line[len("import time:"):].split("|")
        if len(fields) != 3:
            continue
        rows.append((fields[2].strip(), int(fields[0]), int(fields[1])))
    return rows


def main() -> int:
    """Measure and print the start-up figures; exit 1 when the goal is missed or an SDK loads."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per command")
    parser.add_argument("--top", type=int, default=25, help="heaviest imports to list")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each command's instructions under valgrind (not moved "
                             "by the machine's load) and judge the goals on them")
    options = parser.parse_args()

    python = sys.executable
    chatcli = str(Path(python).with_name("chatcli"))
    if not Path(chatcli).exists():
        print(f"no chatcli next to {python}; run with the environment's python", file=sys.stderr)
        return 2

    sources = [str(p) for p in (ROOT / "kernel" / "src", *ROOT.glob("*/*/src"))
               if p.is_dir() and "plugin-template" not in p.parts]
    subprocess.run([python, "-m", "compileall", "-q", *sources], check=False,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp))
        commands = {
            "python -c pass": [python, "-c", "pass"],
            "chatcli --version": [chatcli, "--version"],
            "chatcli --help": [chatcli, "--help"],
            "chatcli models": [chatcli, "models"],
            "--help, click's page": [python, "-c", CLICK_HELP],
            "chatcli --help, pt_BR": ["LANG=pt_BR.UTF-8", chatcli, "--help"],
            "chatcli models, pt_BR": ["LANG=pt_BR.UTF-8", chatcli, "models"],
        }
        load = os.getloadavg()[0]
        medians = _medians_ms(commands, options.runs, env)
        print(f"startup, median of {options.runs} fresh processes each ({python}; load average "
              f"{load:.2f} -> {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
        base = medians["python -c pass"]
        figures = {}
        for label, ms in medians.items():
            figures[label] = ms / base
            print(f"  {label:<24} {ms:8.1f} ms   {ms / base:5.1f}x")
        if options.instructions:
            counts = {label: _instructions(command, env) for label, command in commands.items()}
            print("\ninstructions (valgrind callgrind, the least of 3 runs each)")
            for label, count in counts.items():
                figures[label] = count / counts["python -c pass"]
                print(f"  {label:<24} {count / 1e6:8.1f} M    {figures[label]:5.2f}x")
        imports = _imports([chatcli, "--help"], env)
        made = _imports([python, "-c", CLICK_HELP], env)
        listing = _imports([chatcli, "models"], env)

    tops = sorted({name.split(".")[0] for name, _s, _c in imports})
    flagged = sorted(n for n in tops if n in SDKS + HEAVY)
    for label, rows in (("click's page", made), ("models", listing)):
        flagged += sorted(f"{n} ({label})" for n in {m.split(".")[0] for m, _s, _c in rows}
                          if n in SDKS + HEAVY)
    print(f"\n`chatcli --help` (its cached page) imported {len(imports)} modules ({len(tops)} "
          "top-level packages):")
    print("  " + ", ".join(tops))
    print(f"\nheaviest imports of `chatcli --help` when click makes the page (cumulative, top "
          f"{options.top}):")
    for name, _self_us, cumulative in sorted(made, key=lambda r: -r[2])[: options.top]:
        mark = "  <-- SDK" if name.split(".")[0] in SDKS else ""
        print(f"  {cumulative / 1000:7.1f} ms  {name}{mark}")

    print(f"\nheaviest imports of `chatcli models` (cumulative, top {options.top}):")
    for name, _self_us, cumulative in sorted(listing, key=lambda r: -r[2])[: options.top]:
        mark = "  <-- SDK" if name.split(".")[0] in SDKS else ""
        print(f"  {cumulative / 1000:7.1f} ms  {name}{mark}")

    print()
    met = True
    unit = "instructions" if options.instructions else "wall time"
    for label, goal in GOALS.items():
        ok = figures[label] <= goal
        met = met and ok
        # two decimals: 4.96x must not read as the 5x it is judged against
        print(f"{label:<24} {figures[label]:4.2f}x python -c pass in {unit} (goal <= {goal:g}x): "
              f"{'ok' if ok else 'MISSED'}")
    print(f"SDKs or heavy libraries imported by --help or models: "
          f"{', '.join(flagged) if flagged else 'none'}")
    return 0 if met and not flagged else 1


if __name__ == "__main__":
    sys.exit(main())
