"""The map's cache: private files written whole, a file parsed again only when its bytes
change, and a warm map that does not even import tree-sitter."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from chatcli_repomap.build import build_map, cache_folder
from repomap_support import PROJECT, make_repo


def test_the_cache_is_private(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    build_map(root, tokens=200)
    folder = cache_folder()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    made = sorted(folder.iterdir())
    assert [p.name.split(".", 1)[1] for p in made] == ["maps.json", "tags.json"]
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in made)
    assert not [p for p in made if p.name.startswith(".")]  # no temporary file left


def test_a_file_is_parsed_again_only_when_its_bytes_change(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    first = build_map(root, tokens=200)
    assert (first.how, first.parsed) == ("built", 5)
    assert build_map(root, tokens=200).how == "cached"
    models = root / "app" / "models.py"
    os.utime(models, ns=(1, 1))  # touched: another stat, the same bytes
    touched = build_map(root, tokens=200)
    assert (touched.how, touched.parsed) == ("built", 0)
    (root / "app" / "copy.py").write_text(models.read_text())  # the same bytes elsewhere
    copied = build_map(root, tokens=None)
    assert copied.parsed == 0 and "app/copy.py:" in copied.text
    models.write_text(models.read_text() + "\ndef added_later_function():\n    pass\n")
    changed = build_map(root, tokens=None)
    assert changed.parsed == 1 and "added_later_function" in changed.text


def test_a_broken_cache_is_rebuilt(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    good = build_map(root, tokens=None).text
    for path in cache_folder().iterdir():
        path.write_text("{not json")
    again = build_map(root, tokens=None)
    assert again.text == good and again.parsed == 5
    for path in cache_folder().iterdir():
        path.write_text('{"v": "1", "files": {"app/models.py": [1, 2, "nope"]}, "tags": 7}')
    assert build_map(root, tokens=None).text == good


PROBE = ("import sys; from pathlib import Path; from chatcli_repomap.build import build_map; "
         "b = build_map(Path(sys.argv[1]), tokens=300); "
         "print(b.how, 'tree_sitter' in sys.modules)")


def test_a_warm_map_does_not_import_tree_sitter(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {**PROJECT})
    runs = [subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True,
                           text=True, timeout=60, check=True).stdout.split() for _ in range(2)]
    assert runs == [["built", "True"], ["cached", "False"]]


def test_the_time_budget_leaves_files_for_the_next_map(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    hurried = build_map(root, tokens=None, seconds=0)
    assert (hurried.parsed, hurried.pending) == (0, 5)
    assert "5 files are not parsed yet" in hurried.text and "UserAccount" not in hurried.text
    again = build_map(root, tokens=None, seconds=0)  # not cached: the next goes on parsing
    assert again.how == "built" and again.pending == 5
    done = build_map(root, tokens=None)
    assert (done.how, done.parsed, done.pending) == ("built", 5, 0)
    assert "not parsed yet" not in done.text and "UserAccount" in done.text
    assert build_map(root, tokens=None, seconds=0).how == "cached"  # all parsed: no deadline


def test_max_files_keeps_the_working_folder_first_and_says_what_was_left(tmp_path: Path) -> None:
    files = {f"other/o{i}.py": f"def other_fn_{i}():\n    pass\n" for i in range(4)}
    files |= {f"here/h{i}.py": f"def here_fn_{i}():\n    pass\n" for i in range(3)}
    root = make_repo(tmp_path / "r", files)
    built = build_map(root / "here", tokens=None, max_files=4)
    assert (built.files, built.left_out) == (4, 3)
    assert all(f"here_fn_{i}" in built.text for i in range(3))
    assert sum(f"other_fn_{i}" in built.text for i in range(4)) == 1
    assert "3 more source files were not mapped ([repomap] max_files)" in built.text
