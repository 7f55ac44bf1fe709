"""Outside git, the files are found by a walk that reads ``.gitignore`` files as git does:
for any tree and any ignore patterns, the walk lists what ``git ls-files --others
--exclude-standard`` lists in the same tree made a repository."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from chatcli_repomap.project import SKIPPED_DIRS, _walk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAMES = st.sampled_from(["a.py", "b.py", "c.ts", "x.log", "keep.py", "sub", "deep", "lib",
                         "gen", "tmp.py"])
PATHS = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
PATTERNS = st.sampled_from(["*.log", "gen/", "/a.py", "sub/*.py", "!keep.py", "deep/**",
                            "lib", "*.ts", "!sub/b.py", "tmp*", "**/c.ts", "# comment", "",
                            "b.py", "/sub/", "*.py", "!*.py"])


def _tree(root: Path, paths: list[str], ignores: dict[str, list[str]]) -> None:
    for path in paths:
        target = root / path
        if any(part in SKIPPED_DIRS for part in target.relative_to(root).parts):
            continue
        if target.exists() or any(p.is_file() for p in target.parents if p != root and
                                  p.is_relative_to(root)):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x\n")
    for folder, lines in ignores.items():
        place = root / folder
        if place.is_dir() or folder == "":
            (place / ".gitignore").write_text("\n".join(lines) + "\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PATHS, min_size=1, max_size=8),
       st.dictionaries(st.sampled_from(["", "sub", "deep", "lib/sub"]),
                       st.lists(PATTERNS, max_size=4), max_size=3))
def test_the_walk_ignores_what_git_ignores(paths: list[str],
                                           ignores: dict[str, list[str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _tree(root, paths, ignores)
        walked, truncated = _walk(root)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        listed = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"],
                                cwd=root, capture_output=True, check=True,
                                env={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
                                     "PATH": "/usr/bin:/bin"}).stdout
        expected = {p for p in listed.decode().split("\0") if p}
        assert not truncated
        assert set(walked) == expected
