"""Entry module: the hookimpl that registers the tools (their code loads when an engine needs
them, never for ``chatcli --help``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import Settings, Tool


@hookimpl
def configure(settings: Settings) -> None:
    """Start probing the sandbox while the session opens (the tools say whether commands are
    confined); a bad ``[coder]`` table is reported when the tools are made, as before."""
    from chatcli_coder._probe import probe_in_background
    from chatcli_coder._settings import coder_settings

    try:
        coder = coder_settings(settings)
    except Exception:
        return
    probe_in_background(coder)


@hookimpl
def register_tools(register: Callable[[Tool], None], settings: Settings,
                   workspace: Path) -> None:
    """Register read, write, edit, multiedit, apply_patch, search, glob, tree, exec, git, test."""
    from chatcli_coder._tools import make_tools

    for tool in make_tools(settings, workspace):
        register(tool)


@hookimpl
def register_setting_rules(register: Callable[[Any], None]) -> None:
    """What a project's config may never set of ``[coder]``: the sandbox (off), the folders it
    may write and the secrets commands get — a user or command-line choice only."""
    from chatcli import SettingRule

    for key in ("sandbox", "sandbox_writable", "pass_env"):
        register(SettingRule(f"coder.{key}", "never"))
