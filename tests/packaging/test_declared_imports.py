"""Each distribution declares what it imports, and imports what it declares.

Every ``import`` of every module under a distribution's ``src/`` (module level, inside functions,
under ``TYPE_CHECKING``) is mapped to the distribution that provides it: the workspace's own
packages by their ``src/`` folders, everything else by
:func:`importlib.metadata.packages_distributions`. A distribution that imports another without
declaring it works only while something else happens to install it (``pip install`` of that one
plugin breaks); a declared dependency that nothing imports is a download for nothing.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
GROUPS = ("kernel", "libs/*", "providers/*", "plugins/*", "skills/*")

#: Dependencies declared on purpose though no module imports them: (distribution, dependency)
#: → why. Each must still be declared (a stale line here fails too).
NOT_IMPORTED = {
    ("chatcli-coder", "ripgrep"): "ships the rg program, which the search tools run",
    ("chatcli-otel", "opentelemetry-sdk"): "imported as opentelemetry.sdk.* (the opentelemetry "
                                           "namespace package is shared with opentelemetry-api)",
}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class Distribution(NamedTuple):
    name: str
    folder: Path
    dependencies: frozenset[str]
    extras: frozenset[str]  # every optional-dependencies entry: importing one is declared
    packages: frozenset[str]  # its own top-level import names


@cache
def _distributions() -> tuple[Distribution, ...]:
    found = []
    for group in GROUPS:
        for pyproject in sorted(ROOT.glob(f"{group}/pyproject.toml")):
            project = tomllib.loads(pyproject.read_text())["project"]
            src = pyproject.parent / "src"
            found.append(Distribution(
                _norm(project["name"]), pyproject.parent,
                frozenset(_norm(Requirement(r).name) for r in project.get("dependencies", [])),
                frozenset(_norm(Requirement(r).name)
                          for extra in project.get("optional-dependencies", {}).values()
                          for r in extra),
                frozenset(p.name for p in src.iterdir() if (p / "__init__.py").is_file())
                if src.is_dir() else frozenset()))
    return tuple(found)


@cache
def _installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()  # (reads every installed RECORD)


def _provider_of(top: str) -> str | None:
    """The distribution an import name comes from (None: nothing installed provides it)."""
    for dist in _distributions():
        if top in dist.packages:
            return dist.name
    found = _installed().get(top)
    return _norm(found[0]) if found else None


def imports_of(folder: Path, root: Path = ROOT) -> dict[str, list[str]]:
    """Top-level names imported anywhere under ``folder`` → where (``path:line`` from root)."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.partition(".")[0], []).append(
                    f"{path.relative_to(root)}:{node.lineno}")
    return found


def problems_of(dist: Distribution, root: Path = ROOT) -> list[str]:
    """One line per undeclared import and per declared dependency nothing imports."""
    pyproject = (dist.folder / "pyproject.toml").relative_to(root)
    problems: list[str] = []
    used: set[str] = set()
    for top, where in sorted(imports_of(dist.folder / "src", root).items()):
        if top in sys.stdlib_module_names or top in dist.packages:
            continue
        provider = _provider_of(top)
        if provider is None:
            problems.append(f"{where[0]}: imports {top}, which no installed distribution "
                            "provides: declare the distribution that ships it and `uv sync`")
            continue
        used.add(provider)
        if provider not in dist.dependencies and provider not in dist.extras:
            problems.append(f"{pyproject}: add {provider!r} to [project] dependencies "
                            f"(`import {top}` in {', '.join(where[:3])})")
    for dependency in sorted(dist.dependencies - used):
        if (dist.name, dependency) not in NOT_IMPORTED:
            problems.append(f"{pyproject}: remove {dependency!r} from [project] dependencies "
                            f"(no module of {dist.name} imports it)")
    return problems


@pytest.mark.parametrize("dist", _distributions(), ids=lambda d: d.name)
def test_distribution_declares_exactly_what_it_imports(dist: Distribution) -> None:
    problems = problems_of(dist)
    assert not problems, "\n".join(["", *problems, "(then run `python3 -m uv lock`)"])


def test_every_distribution_of_the_workspace_is_checked() -> None:
    names = {d.name for d in _distributions()}
    assert {"chatcli-kernel", "chatcli-provider-openai", "chatcli-mcp",
            "chatcli-testing"} <= names
    assert len(names) >= 20
    assert all(d.packages for d in _distributions())


def test_the_exceptions_are_still_declared_and_still_not_imported() -> None:
    by_name = {d.name: d for d in _distributions()}
    for (name, dependency), why in NOT_IMPORTED.items():
        dist = by_name[name]
        assert dependency in dist.dependencies, f"{name} no longer declares {dependency}"
        imported = {_provider_of(top) for top in imports_of(dist.folder / "src")}
        assert dependency not in imported, f"{name} imports {dependency} now: drop it ({why})"


# ------------------------------------------------------------------ the checker itself

def _dist(tmp: Path, dependencies: list[str], source: str) -> Distribution:
    package = tmp / "src" / "demo_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(source)
    (tmp / "pyproject.toml").write_text("")
    return Distribution("demo", tmp, frozenset(_norm(d) for d in dependencies), frozenset(),
                        frozenset({"demo_pkg"}))


@pytest.mark.parametrize(("dependencies", "source", "expected"), [
    # an import inside a function counts as much as one at module level
    ([], "def f():\n    import httpx\n", ["add 'httpx'"]),
    ([], "from yaml import safe_load\n", ["add 'pyyaml'"]),
    # under TYPE_CHECKING too: a type checker needs the distribution installed
    ([], "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import rich.console\n",
     ["add 'rich'"]),
    (["httpx"], "import os, json\n", ["remove 'httpx'"]),
    (["PyYAML", "rich"], "import yaml\nfrom rich.text import Text\n", []),
    ([], "import chatcli\n", ["add 'chatcli-kernel'"]),
    (["chatcli-kernel"], "from . import mod\nfrom demo_pkg import mod\nimport chatcli\n", []),
    ([], "import no_such_module_anywhere\n", ["which no installed distribution provides"]),
])
def test_the_check_finds_undeclared_and_unused_dependencies(
        tmp_path: Path, dependencies: list[str], source: str, expected: list[str]) -> None:
    found = problems_of(_dist(tmp_path, dependencies, source), root=tmp_path)
    assert len(found) == len(expected), found
    for line, wanted in zip(found, expected, strict=True):
        assert wanted in line
