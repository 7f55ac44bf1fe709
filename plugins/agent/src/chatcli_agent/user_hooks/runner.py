"""Running one hook: a shell command with the event's JSON on stdin, bounded by its timeout.

The command runs through ``/bin/sh -c`` in the workspace, in a process group of its own, so a
hook that hangs is killed at its timeout together with everything it started (a ``sleep`` in
the background, a pipeline). Nothing here raises for a hook's failure: the outcome says what
happened and the plugin reports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Characters of a hook's stdout and stderr that are kept (context, reasons, reports).
OUTPUT_LIMIT = 20_000

#: (the ``[providers.X] api_key_env`` names, ``[coder] pass_env``) of the current settings.
_SECRETS: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def use_settings(settings: Any) -> None:
    """Take the secret variable names and the ones passed anyway from ``settings``."""
    global _SECRETS
    from chatcli_workspace import secret_names_in_settings

    _SECRETS = secret_names_in_settings(settings)


def hook_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: chatcli's environment) without API keys and secret-looking variables
    (:func:`chatcli_workspace.scrubbed_env`), as every command chatcli starts gets it."""
    from chatcli_workspace import scrubbed_env

    names, passed = _SECRETS
    return scrubbed_env(os.environ if env is None else env, extra_secret_names=names,
                        pass_env=passed)


@dataclass
class Outcome:
    """What a hook did."""

    code: int | None  # None: it did not finish (timeout) or could not start
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""  # why it could not run at all
    seconds: float = 0.0

    @property
    def reply(self) -> dict[str, Any] | None:
        """The JSON object the hook printed on stdout (exit 0), if it printed one."""
        text = self.stdout.strip()
        if self.code != 0 or not text.startswith("{"):
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    @property
    def first_error_line(self) -> str:
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return lines[0][:200] if lines else ""


def run(command: str, payload: dict[str, Any], cwd: Path, timeout: float,
        env: dict[str, str] | None = None) -> Outcome:
    """Run ``command`` with ``payload`` as JSON on stdin, in a scrubbed environment
    (:func:`hook_env`); kill its process group at ``timeout``."""
    env = hook_env(env)
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            command, shell=True, cwd=str(cwd), env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as failed:
        return Outcome(None, error=f"{type(failed).__name__}: {failed.strerror or failed}",
                       seconds=time.monotonic() - started)
    try:
        out, err = process.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = _leftovers(process)
        return Outcome(None, _text(out), _text(err), timed_out=True,
                       seconds=time.monotonic() - started)
    except BaseException:  # Ctrl+C, or anything else: the hook must not outlive chatcli
        _kill_group(process)
        _leftovers(process)
        raise
    finally:
        _close(process)
    return Outcome(process.returncode, _text(out), _text(err),
                   seconds=time.monotonic() - started)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()


def _leftovers(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """What the killed hook had written. A process that left the group (``setsid``) may hold
    the pipes open: give up on them after a moment rather than wait."""
    try:
        return process.communicate(timeout=1)
    except subprocess.TimeoutExpired:
        _close(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1)
        return b"", b""


def _close(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.close()


def _text(data: bytes | None) -> str:
    if not data:
        return ""
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= OUTPUT_LIMIT else text[:OUTPUT_LIMIT] + "\n[… cut …]"
