"""The repository map's build time and size: a generated 500-file repository (Python, with some
TypeScript and Go), mapped by chatcli-repomap as ``chatcli -p`` does at its first request.

Each figure is measured in a fresh process (``python -c``), the build alone (what it
imports on the way, tree-sitter and its grammars included, is counted); importing the
map's builder and what it uses (pathlib, json, hashlib, subprocess, the workspace library —
which a chatcli run has loaded already) is printed apart:

- **cold**: an empty cache: every file listed (``git ls-files``), read, parsed by tree-sitter,
  ranked and rendered; goal ≤ 2 s;
- **warm**: nothing changed: the files are listed and stat'ed, the rendered map is read from the
  cache (tree-sitter is not imported); goal ≤ 50 ms;
- **one file changed**: that file alone is parsed again, the others' tags come from the cache,
  the map is ranked and rendered anew;
- ``git ls-files`` alone, for scale (the floor of any build that asks git).

Then the map itself: its tokens (characters / 4) at the default budget, the files and
definitions it shows, and the whole map's size (what ``context_pull {"kind":"repomap"}``
returns). Figures are printed, never asserted (tests/packaging/test_benches.py runs it).

Run: .venv/bin/python bench/repomap.py [--files 500] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

COLD_GOAL = 2.0
WARM_GOAL = 0.050

PROBE = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
from chatcli_repomap.build import build_map
import subprocess, chatcli, chatcli_workspace  # (a chatcli run has them loaded)
chatcli.cache_dir()
imported = time.perf_counter()
built = build_map(Path(sys.argv[1]), tokens=int(sys.argv[2]) if sys.argv[2] != "all" else None,
                  mentioned_texts=[sys.argv[3]])
elapsed = time.perf_counter() - imported
print(json.dumps({"seconds": elapsed, "imports": imported - start, "text": built.text,
                  "files": built.files,
                  "shown_files": built.shown_files, "shown_defs": built.shown_defs,
                  "how": built.how, "parsed": built.parsed,
                  "tree_sitter": "tree_sitter" in sys.modules}))
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def python_module(index: int, names: list[str], rng: random.Random) -> str:
    """A module of about 80 lines: a class with methods, functions, and calls into others
    (central modules are chosen more often: a Zipf-like pick)."""
    me = names[index]
    lines = [f'"""Module {me}."""', "", "from __future__ import annotations", ""]
    used = sorted({min(int(rng.paretovariate(1.2)) - 1, len(names) - 1)
                   for _ in range(4)} - {index})
    for other in used:
        lines.append(f"from pkg.{names[other]} import {names[other]}_helper, "
                     f"{names[other].title().replace('_', '')}Record")
    lines += ["", "", f"class {me.title().replace('_', '')}Record:",
              f'    """A record of {me}."""', "",
              "    def __init__(self, value: int) -> None:", "        self.value = value", ""]
    for method in range(4):
        lines += [f"    def {me}_method_{method}(self, count: int) -> int:",
                  "        total = 0", "        for step in range(count):",
                  "            total += step * self.value", "        return total", ""]
    lines += ["", f"def {me}_helper(value: int) -> int:", "    result = value"]
    for other in used:
        lines.append(f"    result += {names[other]}_helper(value)")
        lines.append(f"    result += {names[other].title().replace('_', '')}Record(value)"
                     f".{names[other]}_method_0(2)")
    lines += ["    return result", ""]
    for extra in range(3):
        lines += ["", f"def {me}_extra_{extra}(items: list[int]) -> list[int]:",
                  f"    return [{me}_helper(item) for item in items]", ""]
    return "\n".join(lines) + "\n"


def make_repository(root: Path, count: int) -> None:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta",
             "lambda_"]
    names = [f"{words[i % len(words)].rstrip('_')}_{i:03d}" for i in range(count)]
    (root / "pkg").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "svc").mkdir()
    for index, name in enumerate(names):
        if index % 25 == 24:  # a few TypeScript and Go files among the Python ones
            (root / "web" / f"{name}.ts").write_text(
                f"export interface {name.title().replace('_', '')}Shape {{ id: number }}\n"
                f"export function {name}Load(id: number): number {{ return id * 2; }}\n")
        elif index % 25 == 12:
            (root / "svc" / f"{name}.go").write_text(
                f"package svc\n\ntype {name.title().replace('_', '')} struct {{ ID int }}\n\n"
                f"func {name.title().replace('_', '')}Run(x int) int {{ return x }}\n")
        else:
            (root / "pkg" / f"{name}.py").write_text(python_module(index, names, rng))
    (root / "README.md").write_text("# generated\n")
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "gen"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def probe(root: Path, cache: Path, tokens: str = "1024", mention: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATCLI_")}
    env["CHATCLI_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", PROBE, str(root), tokens, mention],
                          env=env, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="repomap-bench-"))
    try:
        report(base, args.files, args.runs)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def report(base: Path, files: int, runs: int) -> None:
    root = base / "repo"
    make_repository(root, files)
    colds, warms, changed, imports = [], [], [], []
    last: dict = {}
    for run in range(runs):
        cache = base / f"cache-{run}"
        cold = probe(root, cache)
        colds.append(cold["seconds"])
        warm = probe(root, cache)
        warms.append(warm["seconds"])
        imports.append(warm["imports"])
        assert warm["how"] == "cached" and not warm["tree_sitter"], warm
        target = next(iter(sorted((root / "pkg").glob("*.py"))))
        target.write_text(target.read_text() + f"\n\ndef touched_{run}() -> None:\n    pass\n")
        again = probe(root, cache)
        changed.append(again["seconds"])
        last = cold
    git_times = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", (
            "import subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(['git', 'ls-files', '-z'], cwd=sys.argv[1], capture_output=True); "
            "print(time.perf_counter() - t)"), str(root)], capture_output=True, text=True)
        git_times.append(float(done.stdout))
    whole = probe(root, base / "cache-0", tokens="all")
    tokens = (len(last["text"]) + 3) // 4
    cold_s, warm_s, changed_s = (statistics.median(x) for x in (colds, warms, changed))
    print(f"repository map of a generated {last['files']}-file repository "
          f"(median of {runs} fresh processes each; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    print(f"  git ls-files alone:     {statistics.median(git_times) * 1000:8.1f} ms")
    print(f"  importing the builder:  {statistics.median(imports) * 1000:8.1f} ms  (in a bare "
          "python; not in the figures below)")
    print(f"  cold build:             {cold_s * 1000:8.1f} ms  ({last['parsed']} files parsed; "
          f"goal ≤ {COLD_GOAL:.0f} s: {cold_s / COLD_GOAL:.2f} of it)")
    print(f"  warm build:             {warm_s * 1000:8.1f} ms  (tree-sitter not imported; "
          f"goal ≤ {WARM_GOAL * 1000:.0f} ms: {warm_s / WARM_GOAL:.2f} of it)")
    print(f"  one file changed:       {changed_s * 1000:8.1f} ms  (that file parsed again, "
          "ranked and rendered anew)")
    print(f"the map's tokens at the default budget (1,024): {tokens:,} "
          f"({last['shown_files']} files, {last['shown_defs']} definitions shown)")
    print(f"the whole map (context_pull): {(len(whole['text']) + 3) // 4:,} tokens "
          f"({whole['shown_files']} files, {whole['shown_defs']} definitions)")
    print("the map's first lines:")
    for line in last["text"].splitlines()[:8]:
        print(f"    {line}")


if __name__ == "__main__":
    main()
