"""The suite's own layout: pytest imports test modules outside packages by their file name, so
two ``test_x.py`` in different folders without ``__init__.py`` stop the whole run at
collection."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_modules_outside_packages_have_unique_names() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if (path.name.startswith("test_") or path.name.endswith("_support.py")) and not (
                path.parent / "__init__.py").exists():
            seen[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: places for name, places in seen.items() if len(places) > 1}
    assert clashes == {}, f"rename one of each: {clashes}"
