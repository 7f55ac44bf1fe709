"""Build hook: ship ../../plugin-template inside chatcli-admin as ``chatcli_admin/_template``.

The template's source of truth is the repository's ``plugin-template/`` folder, outside this
project. Wheels built from the repository take it from there; the sdist carries a copy at
``src/chatcli_admin/_template`` so a wheel built from the sdist finds it as ordinary package data.
Editable installs need nothing: ``chatcli_admin.scaffold`` finds the repository folder itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: Files of plugin-template/ that only serve the repository (ruff.toml excludes the raw template).
_LEAVE_OUT = {"ruff.toml", "__pycache__"}


class PluginTemplateHook(BuildHookInterface):
    """Force-include the plugin template into wheels and sdists."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        template = Path(self.root).parents[1] / "plugin-template"
        if version == "editable" or not template.is_dir():
            return  # editable: the repo folder is used; from an sdist: already under src/
        target = ("chatcli_admin/_template" if self.target_name == "wheel"
                  else "src/chatcli_admin/_template")
        for entry in sorted(template.iterdir()):
            if entry.name in _LEAVE_OUT or entry.name.startswith("."):
                continue
            build_data["force_include"][str(entry)] = f"{target}/{entry.name}"
