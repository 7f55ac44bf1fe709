"""Suite-wide settings: which tests may run in parallel (pytest-xdist, ``--dist loadgroup``).

Tests run on every core by default (``-n auto`` in pyproject.toml). A few families share an
expensive module fixture or a scarce resource, so each family runs in one worker, one test at a
time, while other tests run beside it:

- ``terminal``: the REPL in tmux; timing-sensitive screens are steadier without a twin;
- ``template``: builds wheels and a throwaway environment once per module;
- ``packaging``: throwaway virtual environments with uv;
- ``local-model``: the real offline model (some tests ask for a 64k-token context, ~1.5 GB).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests with a fixed seed (`.ci/run` sets HYPOTHESIS_PROFILE=ci): a red CI
# must mean a change broke something, not that this run drew a new input. Local runs draw new
# inputs every time; what they find becomes an @example.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])

_GROUPS_BY_FOLDER = {"template": "template", "packaging": "packaging"}


def _group(item: pytest.Item) -> str | None:
    if item.get_closest_marker("terminal"):
        return "terminal"
    path = Path(str(item.fspath))
    if path.name == "test_local_model.py":
        return "local-model"
    return _GROUPS_BY_FOLDER.get(path.parent.name)


@pytest.hookimpl(tryfirst=True)  # before xdist's, which turns the marks into node-id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
