"""No import cycles among a package's modules, imports inside functions included.

A cycle hidden by an import inside a function still ties two modules together: each needs the
other, the import order decides which half-built module the other sees, and neither can be read
or tested alone. Every ``.py`` of every distribution (kernel, plugins, providers, libs, skills) is
parsed with :mod:`ast`; each import (at any depth: module level, in a function, in a class, under
``try``) that names a module of the same top-level package is an edge from the importing module
to the most specific module it names (``from pkg.sub import name`` → ``pkg.sub``, or
``pkg.sub.name`` when that is a module itself). Imports under ``if TYPE_CHECKING:`` are left out:
they never run. The test fails listing each cycle, one import per line with its file and line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("kernel/src", "plugins/*/src", "providers/*/src", "libs/*/src", "skills/*/src")


@dataclass(frozen=True)
class Edge:
    """One import: ``source`` imports ``target`` at ``path:line``."""

    source: str
    target: str
    path: Path
    line: int


def source_roots(root: Path = ROOT) -> list[Path]:
    """The ``src`` folders of every distribution of the workspace."""
    return sorted(p for pattern in SOURCES for p in root.glob(pattern) if p.is_dir())


def modules_of(src: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` below ``src``."""
    out: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if "__pycache__" in parts or any(not p.isidentifier() for p in parts):
            continue
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree`` at any depth, except under ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module ``from … import`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The most specific known module that ``name`` is or lies in."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def edges_of(modules: dict[str, Path]) -> list[Edge]:
    """The imports between the modules of one source folder, within each top-level package."""
    out: list[Edge] = []
    for module, path in modules.items():
        top = module.split(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                base = _absolute(module, path.name == "__init__.py", node)
                names = [f"{base}.{alias.name}" if alias.name != "*" else base
                         for alias in node.names]
            for name in names:
                if name.split(".")[0] != top:
                    continue
                target = _owner(name, modules)
                if target is not None and target != module:
                    out.append(Edge(module, target, path, node.lineno))
    return out


def strongly_connected(edges: list[Edge]) -> list[list[str]]:
    """The groups of modules that import each other (Tarjan), each with more than one module."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def a_cycle(group: list[str], edges: list[Edge]) -> list[Edge]:
    """One shortest cycle through the first module of ``group`` (breadth first)."""
    members = set(group)
    by_source: dict[str, list[Edge]] = {}
    for edge in edges:
        if edge.source in members and edge.target in members:
            by_source.setdefault(edge.source, []).append(edge)
    start = group[0]
    paths: dict[str, list[Edge]] = {start: []}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for edge in sorted(by_source.get(node, []), key=lambda e: (e.target, e.line)):
            if edge.target == start:
                return [*paths[node], edge]
            if edge.target not in paths:
                paths[edge.target] = [*paths[node], edge]
                queue.append(edge.target)
    raise AssertionError(f"no cycle through {start}")  # a strongly connected group has one


def find_cycles(root: Path = ROOT) -> list[tuple[list[str], list[Edge]]]:
    """Each group of modules that import each other, in every source folder, with one cycle
    through it (a group of more modules than the cycle holds other cycles too)."""
    found: list[tuple[list[str], list[Edge]]] = []
    for src in source_roots(root):
        edges = edges_of(modules_of(src))
        found.extend((group, a_cycle(group, edges)) for group in strongly_connected(edges))
    return found


def describe(group: list[str], cycle: list[Edge], root: Path = ROOT) -> str:
    """The cycle as a chain, then each of its imports with its file and line."""
    lines = [" -> ".join([cycle[0].source, *(e.target for e in cycle)])]
    lines += [f"    {e.source} imports {e.target} ({e.path.relative_to(root)}:{e.line})"
              for e in cycle]
    if len(group) > len(cycle):
        lines.append(f"    (and other cycles among {', '.join(group)})")
    return "\n".join(lines)


def test_no_package_has_an_import_cycle() -> None:
    found = find_cycles()
    assert not found, (
        f"{len(found)} import cycle(s); move what both sides need into a module of its own "
        "that imports neither:\n" + "\n".join(describe(g, c) for g, c in found))


# ------------------------------------------------------------------ the finder finds them


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


CASES = [
    # (why, files under plugins/x/src, expected cycles as module chains)
    ("module level", {"pkg/__init__.py": "", "pkg/a.py": "import pkg.b\n",
                      "pkg/b.py": "from pkg import a\n"}, [["pkg.a", "pkg.b", "pkg.a"]]),
    ("inside a function", {"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import f\n",
                           "pkg/b.py": "def f():\n    from pkg.a import g\n    return g\n"},
     [["pkg.a", "pkg.b", "pkg.a"]]),
    ("inside a method under try", {
        "pkg/__init__.py": "", "pkg/a.py": "from . import b\n",
        "pkg/b.py": "class C:\n    def m(self):\n        try:\n            from .a import x\n"
                    "        except ImportError:\n            pass\n"},
     [["pkg.a", "pkg.b", "pkg.a"]]),
    ("relative, two levels, three modules", {
        "pkg/__init__.py": "", "pkg/sub/__init__.py": "",
        "pkg/sub/a.py": "from ..c import z\n", "pkg/c.py": "from pkg.sub.b import y\n",
        "pkg/sub/b.py": "from .a import x\n"},
     [["pkg.c", "pkg.sub.b", "pkg.sub.a", "pkg.c"]]),
    ("state kept in an entry module", {
        "pkg/__init__.py": "", "pkg/plugin.py": "STORE = None\ndef hook():\n"
                                                "    from pkg.commands import run\n",
        "pkg/commands.py": "def run():\n    from pkg.plugin import STORE\n"},
     [["pkg.commands", "pkg.plugin", "pkg.commands"]]),
    ("two cycles in one group", {
        "pkg/__init__.py": "", "pkg/a.py": "import pkg.b\nimport pkg.c\n",
        "pkg/b.py": "import pkg.a\n", "pkg/c.py": "def f():\n    import pkg.a\n"},
     [["pkg.a", "pkg.b", "pkg.a"]]),
    ("TYPE_CHECKING is left out", {
        "pkg/__init__.py": "", "pkg/a.py": "from typing import TYPE_CHECKING\n"
                                           "if TYPE_CHECKING:\n    from pkg.b import B\n",
        "pkg/b.py": "from pkg.a import A\n"}, []),
    ("another package is no edge", {
        "pkg/__init__.py": "", "pkg/a.py": "import other.b\n",
        "other/__init__.py": "", "other/b.py": "import pkg.a\n"}, []),
    ("a chain is no cycle", {
        "pkg/__init__.py": "from pkg.a import x\n", "pkg/a.py": "from pkg.b import y\n",
        "pkg/b.py": "y = 1\n"}, []),
]


@pytest.mark.parametrize(("why", "files", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_finder_finds_each_kind_of_cycle(tmp_path: Path, why: str, files: dict[str, str],
                                             expected: list[list[str]]) -> None:
    root = _write(tmp_path, {f"plugins/x/src/{name}": text for name, text in files.items()})
    found = find_cycles(root)
    chains = [[cycle[0].source, *(e.target for e in cycle)] for _group, cycle in found]
    assert chains == expected, why
    for group, cycle in found:
        text = describe(group, cycle, root)
        assert all(f"{e.path.relative_to(root)}:{e.line}" in text for e in cycle)
        if len(group) > len(cycle):
            assert ", ".join(group) in text
