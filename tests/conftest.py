"""Suite-wide settings: which tests may run in parallel (pytest-xdist, ``--dist loadgroup``).

Tests run on every core by default (``-n auto`` in pyproject.toml). A few families share an
expensive module fixture or a scarce resource, so each family runs in one worker, one test at a
time, while other tests run beside it:

- ``terminal``: the REPL in tmux; timing-sensitive screens are steadier without a twin;
- ``template``: builds wheels and a throwaway environment once per module;
- ``packaging``: throwaway virtual environments with uv;
- ``local-model``: the real offline model (some tests ask for a 64k-token context, ~1.5 GB).

The quick selection, ``pytest -m "not slow"``, leaves out what is marked ``slow`` and every
``terminal`` test (the REPL in tmux): see :func:`pytest_collection_modifyitems`.

The suite's fixtures for where chatcli keeps its files and where it works (one set, used by every
folder; a folder that needs more builds on them under another name):

- ``home``: an isolated chatcli home (``chatcli_testing``'s ``chatcli_home``): config, data and
  cache dirs in the test's folder, provider keys, base URLs and ``CHATCLI_*`` cleared;
- ``user_home``: ``home`` that is also ``$HOME`` (``~/.claude``, ``~/.agents`` are read there),
  with fake OpenAI and Anthropic keys — for plugins that read the user's folder; a folder whose
  every test needs it asks for it in an autouse fixture of its conftest;
- ``workspace``: a project folder that is a project root (it holds ``.git/``) and the current
  folder, as when chatcli starts in a project.

Helper modules: ``tests/`` is on ``sys.path`` (``pythonpath`` in pyproject.toml), so a test
imports a shared helper as ``session_harness`` or ``repl.terminal``, and its own folder's
helper (``cli_support``…) by its bare name (pytest puts a test's folder on ``sys.path``).
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


@pytest.fixture
def home(chatcli_home: Path) -> Path:
    """The test's chatcli home: ``<home>/config``, ``<home>/data`` and ``<home>/cache`` are
    chatcli's folders (``CHATCLI_CONFIG_DIR``…); provider keys, base URLs and other ``CHATCLI_*``
    variables are cleared. The same folder as ``chatcli_home`` (chatcli_testing), under the
    suite's short name. ``HOME`` is left alone: git finds its identity there."""
    return chatcli_home


@pytest.fixture
def user_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``home`` as the user's home folder too (``HOME``; ``CLAUDE_CONFIG_DIR`` unset, so
    ``~/.claude`` is in it), with fake keys (``OPENAI_API_KEY=sk-test``,
    ``ANTHROPIC_API_KEY=sk-ant-test``) and ``NO_COLOR`` unset: nothing of the real user's
    folders or settings reaches plugins that read them (skills, personas, context, MCP, memory)."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return home


@pytest.fixture
def workspace_is_project_root() -> bool:
    """Whether ``workspace`` holds an empty ``.git/``. A folder whose workspace must be no git
    repository (the coder's tests make one when they want it) overrides this with ``False``."""
    return True


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              workspace_is_project_root: bool) -> Path:
    """A project: ``<tmp>/project``, the current folder, and a project root (it holds an empty
    ``.git/``, so chatcli looks no higher for project files; see ``workspace_is_project_root``)."""
    root = tmp_path / "project"
    root.mkdir()
    if workspace_is_project_root:
        (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def _group(item: pytest.Item) -> str | None:
    if item.get_closest_marker("terminal"):
        return "terminal"
    path = Path(str(item.fspath))
    if path.name == "test_local_model.py":
        return "local-model"
    return _GROUPS_BY_FOLDER.get(path.parent.name)


@pytest.hookimpl(tryfirst=True)  # before xdist's, which turns the marks into node-id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """xdist groups, and ``slow`` on every ``terminal`` test (before ``-m`` deselects: a REPL
    in tmux takes seconds a test, so ``-m "not slow"`` leaves them all out)."""
    for item in items:
        if item.get_closest_marker("terminal") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
