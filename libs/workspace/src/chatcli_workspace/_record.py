"""Writing the record of trusted projects (``chatcli trust``, the chat's trust question).

The kernel reads the record (``chatcli.trusted_projects``, ``chatcli.project_trust``) and decides
with it; this module writes it: ``{"version": 1, "projects": {root: {"digest", "files",
"when"}}}`` in chatcli's data folder, 0600, under a lock, atomically. The kernel notices a
changed record by itself (it keeps its answers only while the record's file is unchanged).
The kernel is imported when a function here runs."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost, ProjectTrust

__all__ = ["TRUST_FILE", "trust_project", "untrust_project"]
_, ngettext = translation(__name__)

#: The record's name in chatcli's data folder (the kernel reads the same file).
TRUST_FILE = "trusted-projects.json"


@contextlib.contextmanager
def _locked_record() -> Iterator[dict[str, Any]]:
    """The record's projects, read under an exclusive lock, and written back (0600,
    atomically) when the caller changed them: a read-modify-write that concurrent chatcli
    processes cannot mix."""
    import fcntl

    from chatcli import ConfigError, atomic_write, data_dir, trusted_projects

    path = data_dir() / TRUST_FILE
    fix = _("check the permissions of the folder, or set CHATCLI_DATA_DIR")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(str(path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise ConfigError(_("{path}: cannot write ({reason})").format(
            path=path.parent, reason=err.strerror), fix) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        projects = trusted_projects()
        before = json.dumps(projects, sort_keys=True)
        yield projects
        if json.dumps(projects, sort_keys=True) != before:
            text = json.dumps({"version": 1, "projects": projects}, indent=2, sort_keys=True,
                              ensure_ascii=False)
            try:
                atomic_write(path, text + "\n", mode=0o600)
            except OSError as err:
                raise ConfigError(_("{path}: cannot write ({reason})").format(
                    path=path, reason=err.strerror), fix) from None
    finally:
        os.close(fd)


def trust_project(workspace: Path | str, host: PluginHost | None = None, *,
                  expected: str | None = None) -> ProjectTrust:
    """Record that the user trusts the project of ``workspace`` with its control files as they
    are now; returns the new state (``trusted`` True). A project without control files has
    nothing to record.

    :param expected: the digest of what the user was shown: when the files changed since (their
        digest differs), nothing is recorded and ``chatcli.ConfigError`` says so.
    """
    import time

    from chatcli import ConfigError, project_trust

    state = project_trust(workspace, host)
    if expected is not None and state.digest != expected:
        raise ConfigError(_("the project's files changed while you looked at them; nothing was "
                            "recorded"), _("run `chatcli trust` again to see them as they are "
                                           "now"))
    if state.root is None or not state.files:
        return state
    with _locked_record() as projects:
        projects[str(state.root)] = {"digest": state.digest, "files": list(state.files),
                                     "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return project_trust(workspace, host)


def untrust_project(workspace: Path | str, host: PluginHost | None = None) -> ProjectTrust:
    """Forget the user's trust in the project of ``workspace`` (also when its root was given
    as a path that no longer exists); returns the new state."""
    from chatcli import project_root, project_trust

    wanted = {project_root(workspace), os.path.realpath(workspace), os.path.abspath(workspace)}
    with _locked_record() as projects:
        for name in wanted - {None}:
            projects.pop(str(name), None)
    return project_trust(workspace, host)
