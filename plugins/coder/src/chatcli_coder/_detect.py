"""What the test tool runs in a project (its test command, detected from the project's files),
apart from :mod:`._shell` so that describing the tools (the test tool's description names the
command) imports no more than this."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

__all__ = ["detect_test_command", "test_hint"]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _python_runner(folder: Path, root: Path) -> str:
    for base in (folder, root):
        for venv in (".venv", "venv"):
            python = base / venv / "bin" / "python"
            if python.exists():
                relative = os.path.relpath(python, folder)
                return f"{shlex.quote(relative)} -m pytest"
    if (folder / "uv.lock").exists() and shutil.which("uv"):
        return "uv run pytest"
    return "python3 -m pytest" if shutil.which("python3") else "python -m pytest"


def detect_test_command(folder: Path, root: Path) -> tuple[str, str] | None:
    """The project's test command in ``folder`` (else the workspace ``root``) and why."""
    for base in dict.fromkeys((folder, root)):
        found = _detect_in(base, root)
        if found is not None:
            return found
    return None


def _detect_in(base: Path, root: Path) -> tuple[str, str] | None:
    pyproject = _read(base / "pyproject.toml")
    has_tests = any((base / name).is_dir() for name in ("tests", "test"))
    if ((base / "pytest.ini").exists() or (base / "conftest.py").exists()
            or "[tool.pytest" in pyproject or "[tool:pytest]" in _read(base / "setup.cfg")
            or "[pytest]" in _read(base / "tox.ini")
            or (has_tests and (pyproject or (base / "setup.py").exists()))):
        return _python_runner(base, root), "pytest (a Python project with tests)"
    package = base / "package.json"
    if package.exists():
        import json

        try:
            script = (json.loads(_read(package)).get("scripts") or {}).get("test")
        except (ValueError, AttributeError):
            script = None
        if isinstance(script, str) and script.strip() and "no test specified" not in script:
            return "npm test", "package.json has a test script"
    if (base / "go.mod").exists():
        return "go test ./...", "a Go module (go.mod)"
    if (base / "Cargo.toml").exists():
        return "cargo test", "a Rust crate (Cargo.toml)"
    for name in ("Makefile", "makefile", "GNUmakefile"):
        if re.search(r"^test\s*:", _read(base / name), re.MULTILINE):
            return "make test", f"{name} has a test target"
    return None


def test_hint(workspace: Path) -> str:
    """What the test tool would run in ``workspace`` (for its description)."""
    try:
        found = detect_test_command(workspace, workspace)
    except OSError:
        found = None
    return f" In this workspace it would run `{found[0]}`." if found else ""
