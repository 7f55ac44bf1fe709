"""Whether bubblewrap can build a sandbox here: one short process, run once per process (in a
thread started by ``configure``, so that the tools made a little later find the answer ready).
Apart from :mod:`._run` so that describing the tools imports no more than this."""

from __future__ import annotations

import shutil
import subprocess
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli_coder._settings import CoderSettings

__all__ = ["probe_in_background", "will_confine"]

_probe_lock = threading.Lock()
_probed: dict[str, str | None] = {}


def _probe(binary: str) -> str | None:
    """None when ``binary`` can build a sandbox here, else why not (checked once)."""
    with _probe_lock:
        if binary not in _probed:
            try:
                done = subprocess.run(
                    [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                     "--unshare-net", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL",
                     "true"],
                    stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
                why = None if done.returncode == 0 else (
                    done.stderr.decode(errors="replace").strip().splitlines() or ["it failed"]
                )[-1]
            except (OSError, subprocess.SubprocessError) as err:
                why = str(err)
            _probed[binary] = why
        return _probed[binary]


def probe_in_background(settings: CoderSettings) -> None:
    """Start finding out whether bwrap works here (one short process, about 10 ms) in a thread,
    so that :func:`will_confine` and :func:`._run.choose_sandbox` later find the answer ready."""
    binary = shutil.which("bwrap") if settings.sandbox != "off" else None
    if binary is not None:
        threading.Thread(target=_probe, args=(binary,), name="chatcli-bwrap-probe",
                         daemon=True).start()


def will_confine(settings: CoderSettings) -> bool:
    """Whether commands will run in bubblewrap (``[coder] sandbox`` is not off and bwrap works
    here): what the exec and test tools tell the permission policy (``Tool.confined``)."""
    if settings.sandbox == "off":
        return False
    binary = shutil.which("bwrap")
    return binary is not None and _probe(binary) is None
