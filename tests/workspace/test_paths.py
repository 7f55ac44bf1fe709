"""chatcli-workspace: paths are judged after resolving ``..``, ``~`` and symbolic links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chatcli_workspace import OutsideWorkspace, is_credential, is_inside, is_protected, resolve
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (workspace / "src" / "a.py").write_text("a")
    os.symlink(outside / "secret.txt", workspace / "link-to-file")
    os.symlink(outside, workspace / "link-to-dir")
    os.symlink(workspace / "src", workspace / "inner-link")
    return workspace, outside


@pytest.mark.parametrize("path", [
    "../outside/secret.txt", "src/../../outside/secret.txt", "link-to-file",
    "link-to-dir/secret.txt", "link-to-dir/new-file.txt", "/etc/passwd", "~/.bashrc",
])
def test_escapes_are_refused(tree, path):
    workspace, _ = tree
    with pytest.raises(OutsideWorkspace, match="outside the workspace"):
        resolve(path, workspace)


@pytest.mark.parametrize("path, expected", [
    ("src/a.py", "src/a.py"), ("./src/../src/a.py", "src/a.py"), ("inner-link/a.py", "src/a.py"),
    ("new/dir/file.txt", "new/dir/file.txt"), (".", ""),
])
def test_paths_inside_resolve_to_their_real_place(tree, path, expected):
    workspace, _ = tree
    assert resolve(path, workspace) == (workspace.resolve() / expected).resolve()


def test_an_allowed_folder_is_inside(tree):
    workspace, outside = tree
    assert resolve(str(outside / "secret.txt"), workspace, [outside]) == outside / "secret.txt"
    assert resolve("link-to-dir/secret.txt", workspace, [outside]).parent == outside.resolve()


def test_a_nul_byte_is_refused(tree):
    with pytest.raises(ValueError, match="NUL"):
        resolve("a\x00b", tree[0])


@given(st.lists(st.sampled_from(["..", ".", "src", "a", "link-to-dir", "inner-link"]),
                max_size=8))
def test_whatever_resolves_is_inside_or_refused(parts):
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        workspace = Path(name) / "ws"
        (workspace / "src").mkdir(parents=True)
        os.symlink(Path(name), workspace / "link-to-dir")
        os.symlink(workspace / "src", workspace / "inner-link")
        try:
            found = resolve("/".join(parts) or ".", workspace)
        except OutsideWorkspace:
            return
        assert is_inside(found, [workspace.resolve()])


@pytest.mark.parametrize("path, secret", [
    (".env", True), ("config/.env.production", True), (".env.example", False),
    ("deploy/server.pem", True), ("id_rsa", True), ("id_rsa.pub", False), (".netrc", True),
    ("src/main.py", False), ("README.md", False),
])
def test_credential_files(tmp_path, path, secret):
    assert is_credential(tmp_path / path) is secret


def test_home_secret_folders_and_protected_places():
    home = Path.home().resolve()
    assert is_credential(home / ".aws" / "config") and is_credential(home / ".ssh" / "known")
    assert is_protected(home / ".ssh" / "authorized_keys") and is_protected(Path("/etc/hosts"))
    assert is_protected(home / ".bashrc") and not is_protected(home / "project" / "x.py")
