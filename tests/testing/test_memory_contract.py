"""``MemoryBackendContract`` holds together: a plain in-memory reference backend passes it, and
backends that each break one rule fail exactly the tests about that rule.

The real backends run it in ``tests/memory/test_sqlite_contract.py`` and the PostgreSQL tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_memory_api import MemoryBackend
from chatcli_testing import MemoryBackendContract
from memory_reference import ListBackend


class TestReferenceBackend(MemoryBackendContract):
    @pytest.fixture
    def backend(self) -> Iterator[MemoryBackend]:
        yield ListBackend()

    @pytest.fixture
    def second_backend(self, backend: MemoryBackend) -> Iterator[MemoryBackend]:
        assert isinstance(backend, ListBackend)
        yield ListBackend(backend.items, backend.lock)


BROKEN = textwrap.dedent('''
    import pytest
    from chatcli_testing import MemoryBackendContract
    import memory_reference as ref


    def _contract(kind):
        class Contract(MemoryBackendContract):
            @pytest.fixture
            def backend(self):
                yield kind()

            @pytest.fixture
            def second_backend(self, backend):
                yield kind(backend.items, backend.lock)
        return Contract


    class TestLosesTouches(_contract(ref.LosesTouches)):
        pass


    class TestIgnoresRecency(_contract(ref.IgnoresRecency)):
        pass


    class TestNoClamp(_contract(ref.NoClamp)):
        pass


    class TestNoSecondHandle(MemoryBackendContract):
        @pytest.fixture
        def backend(self):
            yield ref.ListBackend()


    class TestNoBackend(MemoryBackendContract):
        pass
''')

EXPECTED_FAILURES = {
    "TestLosesTouches": {"test_concurrent_writers_on_one_handle_lose_nothing",
                         "test_concurrent_writers_on_two_handles_lose_nothing"},
    "TestIgnoresRecency": {"test_recency_breaks_equal_text_matches",
                           "test_confidence_breaks_equal_text_matches"},
    "TestNoClamp": {"test_reinforce_adds_and_clamps"},
}
CROSS_HANDLE = {"test_concurrent_writers_on_two_handles_lose_nothing",
                "test_second_handle_sees_writes"}


def run_contract(folder: Path) -> dict[str, dict[str, str]]:
    """Run the broken contracts in a pytest subprocess: {class: {test: outcome}}."""
    (folder / "test_broken_memory.py").write_text(BROKEN)
    report = folder / "report.xml"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         f"--junitxml={report}", "--rootdir", str(folder), str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=300, env=env,
    )
    outcomes: dict[str, dict[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        kinds = {child.tag for child in case}
        outcome = ("failed" if kinds & {"failure", "error"}
                   else "skipped" if "skipped" in kinds else "passed")
        outcomes.setdefault(cls, {})[case.get("name", "")] = outcome
    return outcomes


def test_the_contract_fails_exactly_where_a_backend_breaks_a_rule(tmp_path: Path) -> None:
    outcomes = run_contract(tmp_path)
    every = set(outcomes["TestNoClamp"])
    assert len(every) > 30
    for cls, expected in EXPECTED_FAILURES.items():
        assert set(outcomes[cls]) == every, cls
        failed = {name for name, outcome in outcomes[cls].items() if outcome == "failed"}
        assert failed == expected, cls
    lone = outcomes["TestNoSecondHandle"]
    assert {n for n, o in lone.items() if o == "skipped"} == CROSS_HANDLE
    assert all(o == "passed" for n, o in lone.items() if n not in CROSS_HANDLE)
    assert set(outcomes["TestNoBackend"].values()) == {"failed"}
