"""chatcli-workspace: where tools may go, and which files are secrets.

Paths are judged after they are resolved: ``..`` and ``~`` expanded, symbolic links followed
(a link inside the workspace that points out of it is outside), and a path that does not exist
yet is resolved through its nearest existing parent (so ``link/new.txt`` with ``link`` pointing
out of the workspace is outside too).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path

from chatcli_workspace._control import CONTROL_NAMES, control_paths, is_control_file
from chatcli_workspace._env import (
    KNOWN_SECRETS,
    is_secret_variable,
    pass_env_names,
    scrubbed_env,
    secret_names_in_settings,
)
from chatcli_workspace._git import GitMissing, neutral_config, safe_git, safe_git_env
from chatcli_workspace._glob import glob_regex
from chatcli_workspace._locks import FileBusy, claim, claims_of, holder, release_claims
from chatcli_workspace._mask import MASK, looks_secret, mask_secrets
from chatcli_workspace._programs import control_file_programs
from chatcli_workspace._record import TRUST_FILE, trust_project, untrust_project
from chatcli_workspace._slot import QuestionSlot
from chatcli_workspace._summary import trust_notice, trust_summary, trust_waiting

__all__ = ["CONTROL_NAMES", "OutsideWorkspace", "control_paths", "is_control_file",
           "is_credential", "is_inside", "is_protected", "resolve"]
__all__ += ["KNOWN_SECRETS", "is_secret_variable", "pass_env_names", "scrubbed_env",
            "secret_names_in_settings"]
__all__ += ["GitMissing", "neutral_config", "safe_git", "safe_git_env"]
__all__ += ["MASK", "looks_secret", "mask_secrets"]
__all__ += ["FileBusy", "QuestionSlot", "claim", "claims_of", "holder", "release_claims"]
__all__ += ["control_file_programs", "glob_regex", "trust_summary"]
__all__ += ["TRUST_FILE", "trust_notice", "trust_project", "trust_waiting", "untrust_project"]
__version__ = "1.2.0"


class OutsideWorkspace(ValueError):
    """A path that leaves the workspace (and every folder the user allowed)."""

    def __init__(self, path: str, resolved: Path, workspace: Path) -> None:
        super().__init__(f"'{path}' is outside the workspace {workspace} (it resolves to "
                         f"{resolved}); use a path inside it, or ask the user to allow that folder")
        self.path, self.resolved, self.workspace = path, resolved, workspace


def _real(path: Path) -> Path:
    """``path`` with every symbolic link resolved, existing or not (strict=False follows the
    links of the parts that exist)."""
    return Path(os.path.realpath(path))


def resolve(path: str | os.PathLike[str], workspace: Path,
            allowed: Iterable[Path] = ()) -> Path:
    """The real absolute path of ``path`` (relative to ``workspace``), if it stays inside the
    workspace or an ``allowed`` folder; else :class:`OutsideWorkspace`."""
    text = os.fspath(path)
    if "\x00" in text:
        raise ValueError(f"{text!r}: a path cannot hold a NUL character")
    root = _real(Path(workspace))
    candidate = Path(os.path.expanduser(text))
    resolved = _real(candidate if candidate.is_absolute() else root / candidate)
    roots = [root, *(_real(Path(a)) for a in allowed)]
    if not is_inside(resolved, roots):
        raise OutsideWorkspace(text, resolved, root)
    return resolved


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether the (resolved) ``path`` is one of ``roots`` or below one."""
    return any(path == root or path.is_relative_to(root) for root in roots)


#: File names (shell patterns, any folder) that hold secrets.
_SECRET_NAMES = (
    ".env", ".env.*", "*.env", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc",
    ".pypirc", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks", "id_rsa*",
    "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.ppk", "credentials", "credentials.json",
    "*.tfvars", "secrets.yml", "secrets.yaml", "secrets.json", ".htpasswd",
)
_NOT_SECRET = (".env.example", ".env.sample", ".env.template", "*.pub")
#: Folders (below home) whose every file is a secret.
_SECRET_FOLDERS = (".ssh", ".aws", ".gnupg", ".docker", ".kube", ".config/gcloud",
                   ".azure", ".password-store")


def is_credential(path: Path) -> bool:
    """Whether ``path`` looks like a file of secrets (keys, tokens, passwords)."""
    name = path.name
    if any(fnmatch.fnmatch(name, pattern) for pattern in _NOT_SECRET):
        return False
    if any(fnmatch.fnmatch(name, pattern) for pattern in _SECRET_NAMES):
        return True
    home = _real(Path.home())
    return any(is_inside(path, [home / folder]) for folder in _SECRET_FOLDERS) or (
        path.parent.name == ".ssh")


#: Where nothing is written without asking (absolute, or below home when relative).
_PROTECTED_SYSTEM = ("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/dev",
                     "/proc", "/sys", "/var/lib", "/opt")
_PROTECTED_HOME = (".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker",
                   ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile",
                   ".config/fish", ".gitconfig", ".netrc", ".local/bin")


def is_protected(path: Path) -> bool:
    """Whether writing ``path`` could harm the system or the user's accounts."""
    home = _real(Path.home())
    return is_inside(path, [Path(p) for p in _PROTECTED_SYSTEM]) or is_inside(
        path, [home / p for p in _PROTECTED_HOME])
