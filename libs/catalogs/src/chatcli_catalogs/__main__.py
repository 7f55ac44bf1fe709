"""``chatcli-catalogs update|compile|check [FOLDER...]``: manage translation catalogs.

``update`` extracts each distribution's marked messages into its template and brings every
language's catalog in line with it; ``compile`` writes the ``.mo`` files a checkout runs with;
``check`` lists what is missing or wrong (exit 1). FOLDER is a distribution's folder; without
one, the current folder's distribution, or every distribution of the workspace at its root.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from chatcli_catalogs import (
    LANGUAGES,
    Distribution,
    compile_catalogs,
    distributions,
    extract,
    problems,
    update,
    write_template,
)

_USAGE = "usage: chatcli-catalogs update|compile|check [FOLDER...]"


def _chosen(folders: list[str]) -> list[Distribution]:
    if not folders:
        here = Path.cwd()
        data = tomllib.loads((here / "pyproject.toml").read_text(encoding="utf-8")) if (
            here / "pyproject.toml").exists() else {}
        if "workspace" in data.get("tool", {}).get("uv", {}):
            return [d for d in distributions(here) if len(extract(d)) or d.template.exists()]
        folders = ["."]
    chosen = []
    for folder in folders:
        root = Path(folder).resolve()
        matches = [d for d in distributions(root.parent) if d.root == root]
        if not matches:
            raise SystemExit(f"chatcli-catalogs: {folder}: no pyproject.toml naming a package "
                             "in [tool.hatch.build.targets.wheel]")
        chosen.extend(matches)
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("update", "compile", "check"):
        print(_USAGE, file=sys.stderr)
        return 2
    found: list[str] = []
    for dist in _chosen(args[1:]):
        if args[0] == "update":
            count = len(write_template(dist))
            for language in LANGUAGES:
                update(dist, language)
            print(f"{dist.name}: {count} messages")
        elif args[0] == "compile":
            for path in compile_catalogs(dist):
                print(path)
        else:
            found.extend(problem for language in LANGUAGES
                         for problem in problems(dist, language))
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
