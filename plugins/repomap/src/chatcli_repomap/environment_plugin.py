"""Entry module of the environment plugin (entry point ``environment``): hook implementations.

A stable prompt section saying where the model works (folder, project root, OS, shell, git
branch, uncommitted changes, recent commits), made once per session: the first request of a
session runs git (through :func:`chatcli_workspace.safe_git`: ``status`` and ``log``), the others
reuse the text, so the section is byte-identical in every request and stays in the cached
prefix. The date stays the kernel's volatile section. Nothing but ``chatcli.hookimpl`` is
imported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import Conversation, Message, PluginHost, PromptSection, Session, Settings

__all__ = ["ENVIRONMENT_ORDER", "EnvironmentPlugin"]

#: After the attached contexts (800), bootstrap files (950) and rules (990), before the map
#: (995): git's state differs from one session to the next (a resumed conversation gets a new
#: one), while those change only when the user edits them — what changes more comes later.
ENVIRONMENT_ORDER = 993


class EnvironmentPlugin:
    """The environment section of one plugin host."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        #: workspace → the section's text, for this session
        self._texts: dict[str, str] = {}
        self._warned: set[str] = set()

    def text(self, workspace: Path, settings: Settings | None) -> str | None:
        """The section's text for ``workspace`` (made on first use in a session)."""
        from chatcli_repomap.settings import RepomapOptions

        options, problems = RepomapOptions.from_settings(settings)
        self._warn(problems)
        if not options.environment:
            return None
        key = f"{workspace}\0{options.commits}"
        found = self._texts.get(key)
        if found is None:
            from chatcli_repomap.environment import describe, git_state
            from chatcli_repomap.project import project_of

            root, in_git = project_of(workspace)
            state = git_state(root, options.commits) if in_git else None
            found = self._texts[key] = describe(workspace, root, in_git, state)
        return found

    def _warn(self, problems: list[str]) -> None:
        for problem in problems:
            if problem not in self._warned and self.host is not None:
                self._warned.add(problem)
                self.host.warn(f"repomap: {problem}")

    @hookimpl
    def configure(self, host: PluginHost) -> None:
        self.host = host
        self._texts.clear()

    @hookimpl
    def session_start(self, session: Session) -> None:
        self._texts.clear()  # a new session looks again

    @hookimpl
    def prompt_sections(self, settings: Settings, workspace: Path, provider: str,
                        messages: list[Message], conversation: Conversation | None
                        ) -> list[PromptSection] | None:
        from chatcli_repomap.common import lean

        if lean(self.host, settings, provider):
            return None
        text = self.text(workspace, settings)
        if text is None:
            return None
        from chatcli import PromptSection

        return [PromptSection(name="environment", text=text, order=ENVIRONMENT_ORDER)]


_PLUGIN = EnvironmentPlugin()

configure = _PLUGIN.configure
session_start = _PLUGIN.session_start
prompt_sections = _PLUGIN.prompt_sections
