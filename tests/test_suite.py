"""The suite keeps its own rules: one ``home``/``workspace`` fixture set (tests/conftest.py), no
``sys.path`` edits in tests, and every entry of the ``SLOW`` table names a test that exists."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).parent
#: A fixture named ``home`` or ``workspace`` (decorators, then the definition).
FIXTURE = re.compile(r"@pytest\.fixture\b[^\n]*\n(?:@[^\n]*\n)*def (home|workspace)\(")


def _sources() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in TESTS.rglob("*.py")
            if "fixtures" not in path.relative_to(TESTS).parts}


def _root_conftest(config: pytest.Config) -> ModuleType:
    root = TESTS / "conftest.py"
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ModuleType) and getattr(plugin, "__file__", None) == str(root):
            return plugin
    raise AssertionError("tests/conftest.py is not loaded")


def test_home_and_workspace_are_defined_once_in_the_root_conftest() -> None:
    where = {(path.relative_to(TESTS).as_posix(), name)
             for path, text in _sources().items() for name in FIXTURE.findall(text)}
    assert where == {("conftest.py", "home"), ("conftest.py", "workspace")}


def test_no_test_edits_sys_path() -> None:
    edits = [path.relative_to(TESTS).as_posix() for path, text in _sources().items()
             if path != Path(__file__) and "sys.path.insert" in text]
    assert edits == []


def test_every_slow_entry_names_a_module_and_test_that_exist(pytestconfig: pytest.Config
                                                             ) -> None:
    table = _root_conftest(pytestconfig).SLOW
    entries = [entry for group in table.values() for entry in group]
    assert len(entries) == len(set(entries)), "an entry is listed twice"
    missing = []
    for entry in entries:
        module, _, name = entry.partition("::")
        path = TESTS / module
        if not path.is_file() or (name and not re.search(
                rf"^\s*(?:async )?def {re.escape(name)}\(", path.read_text(), re.MULTILINE)):
            missing.append(entry)
    assert missing == []


class _Item:
    """What ``_slow_reason`` reads of a collected test."""

    def __init__(self, module: str, name: str) -> None:
        self.fspath, self.originalname, self.name = TESTS / module, name, f"{name}[x]"


def test_a_listed_module_or_function_is_slow_with_its_reason(pytestconfig: pytest.Config
                                                             ) -> None:
    reason_of = _root_conftest(pytestconfig)._slow_reason
    process = "runs chatcli as a real process (a second or more a test)"
    assert reason_of(_Item("cli/test_process.py", "test_anything")) == process
    assert reason_of(_Item("cli/test_stdin.py", "test_utf16_stdin_with_a_bom_is_decoded")) \
        == process
    assert reason_of(_Item("cli/test_stdin.py", "test_another_one")) is None
    assert reason_of(_Item("kernel/test_config.py", "test_anything")) is None


def test_every_collected_terminal_test_is_slow(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        if item.get_closest_marker("terminal"):
            assert item.get_closest_marker("slow"), item.nodeid
    assert request.node.get_closest_marker("slow") is None  # this module runs in the quick run
