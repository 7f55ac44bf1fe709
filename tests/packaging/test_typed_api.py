"""Type checkers see the real type of every public name, though ``import chatcli`` imports none
of the kernel's modules: ``chatcli/__init__.py`` serves the names lazily at run time and lists
them for type checkers in an ``if TYPE_CHECKING:`` block, which must stay equal to ``_EXPORTS``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import chatcli

INIT = Path(chatcli.__file__)


def _type_checking_imports() -> dict[str, str]:
    """The names imported by the `if TYPE_CHECKING:` block of chatcli/__init__.py, by module."""
    tree = ast.parse(INIT.read_text())
    blocks = [node for node in tree.body if isinstance(node, ast.If)
              and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1, "chatcli/__init__.py needs one `if TYPE_CHECKING:` block"
    found: dict[str, str] = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        for alias in node.names:
            # `X as X` re-exports X for mypy and pyright whatever __all__ says.
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}`"
            found[alias.name] = node.module
    return found


def test_the_type_checking_block_lists_exactly_the_exports() -> None:
    listed = _type_checking_imports()
    exported = chatcli._EXPORTS
    line = "    from {module} import {name} as {name}"
    missing = [line.format(module=m, name=n) for n, m in sorted(exported.items())
               if listed.get(n) != m]
    extra = [line.format(module=m, name=n) for n, m in sorted(listed.items())
             if exported.get(n) != m]
    assert not missing and not extra, (
        "chatcli/__init__.py: the `if TYPE_CHECKING:` block must import exactly the names of "
        "_EXPORTS (the `_BY_MODULE` table), each from its module.\nAdd these lines to it:\n"
        + "\n".join(missing)
        + "\nRemove these lines from it:\n" + "\n".join(extra))
    assert sorted(chatcli.__all__) == sorted(["__version__", *listed])


def test_mypy_sees_the_real_type_of_every_public_name(tmp_path: Path) -> None:
    names = [n for n in chatcli.__all__ if n != "__version__"]
    probe = tmp_path / "probe.py"
    probe.write_text("import chatcli\nfrom chatcli import *\n"
                     + "".join(f"reveal_type(chatcli.{n})\n" for n in names))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--strict", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), str(probe)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    revealed = dict(re.findall(r"probe\.py:(\d+): note: Revealed type is \"(.*)\"", done.stdout))
    assert len(revealed) == len(names), done.stdout + done.stderr
    vague = [f"chatcli.{name}: {revealed[str(line)]}" for line, name in enumerate(names, start=3)
             if revealed[str(line)] in ("builtins.object", "Any")]
    assert vague == []
    # Real types, not just "something": a class, a function's signature.
    assert revealed[str(3 + names.index("Message"))].endswith("-> chatcli._types.Message")
    assert revealed[str(3 + names.index("safe_text"))] == "def (text: str) -> str"


def test_importing_chatcli_still_imports_none_of_the_listed_modules() -> None:
    code = ("import sys, chatcli; print(sorted(m for m in sys.modules"
            " if m.startswith('chatcli') or m in ('typing', 'pydantic', 'pluggy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['chatcli']"
    assert set(_type_checking_imports().values()) > {"chatcli._types", "chatcli._engine"}


def test_mypy_checks_the_code_of_every_distribution() -> None:
    import tomllib

    root = INIT.parents[3]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    checked = {path.resolve() for pattern in config["files"] for path in root.glob(pattern)}
    # every distribution's sources (the plugin template's are templates: {{package}} folders)
    found = [*root.glob("*/pyproject.toml"), *root.glob("*/*/pyproject.toml")]
    sources = {pyproject.parent / "src" for pyproject in found
               if (pyproject.parent / "src").is_dir() and ".venv" not in pyproject.parts
               and "plugin-template" not in pyproject.parts}
    assert len(sources) >= 20
    assert sorted(map(str, sources - checked)) == [], "add them to [tool.mypy] files"
