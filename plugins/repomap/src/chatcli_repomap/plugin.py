"""Entry module of the repomap plugin (entry point ``repomap``): hook implementations.

The map section is stable: it is made at a conversation's first request (weighted by the
files the view mentions up to its first user message) and kept in the conversation's stash, so
every later request carries the same bytes and the cached prefix holds; a resumed conversation
gets the same map while the files are unchanged. It is made again when the view
changes (a compaction rewrote the messages: the prefix is new anyway) and in a new session.
``context_pull {"kind":"repomap"}`` always builds afresh, weighted by the whole conversation.

Nothing but ``chatcli.hookimpl`` and ``StashKey`` is imported here; tree-sitter loads only
when a file has to be parsed (a warm map is read from the cache without it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import StashKey, hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import Conversation, Message, PluginHost, PromptSection, Session, Settings
    from chatcli_plugin_records import PullKind

    from chatcli_repomap.settings import RepomapOptions

__all__ = ["MAP", "REPOMAP_ORDER", "RepomapPlugin"]

#: Last of the stable sections (after bootstrap files 950 and rules 990): of all of them it
#: is the one most likely to change (a new conversation, a compaction).
REPOMAP_ORDER = 995

_, ngettext = translation(__name__)
#: The map the conversation's prompt carries: (workspace, budget, text).
MAP: StashKey[tuple[str, int, str]] = StashKey()


class RepomapPlugin:
    """The repository map of one plugin host."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self._warned: set[str] = set()
        #: maps made without a conversation, by (workspace, budget)
        self._loose: dict[tuple[str, int], str] = {}
        #: workspaces whose parsing goes on in the background
        self._finishing: set[str] = set()

    def options(self, settings: Settings | None) -> RepomapOptions:
        from chatcli_repomap.settings import RepomapOptions

        options, problems = RepomapOptions.from_settings(settings)
        for problem in problems:
            if problem not in self._warned and self.host is not None:
                self._warned.add(problem)
                self.host.warn(f"repomap: {problem}")
        return options

    def section_text(self, workspace: Path, settings: Settings | None,
                     messages: list[Message], conversation: Conversation | None) -> str | None:
        """The map for the prompt (the conversation's, when it has one already)."""
        options = self.options(settings)
        if not options.map:
            return None
        key = (str(workspace), options.tokens)
        if conversation is not None:
            kept = conversation.stash.get(MAP, None)
            if kept is not None and kept[:2] == key:
                return kept[2]
        elif key in self._loose:
            return self._loose[key]
        text = self.make(workspace, options, _opening(messages))
        if conversation is not None:
            conversation.stash[MAP] = (*key, text)
        else:
            self._loose[key] = text
        return text

    def make(self, workspace: Path, options: RepomapOptions, texts: list[str]) -> str:
        """A map within the budget, pointing to the whole one."""
        from chatcli_repomap.build import build_map
        from chatcli_repomap.pull import pull_call

        try:
            built = build_map(workspace, tokens=options.tokens, mentioned_texts=texts,
                              max_files=options.max_files,
                              max_file_bytes=options.max_file_kb * 1024,
                              seconds=options.seconds)
        except Exception as err:  # the map is a help: a failure must not stop the turn
            if self.host is not None and "build" not in self._warned:
                self._warned.add("build")
                self.host.warn(_("repomap: the map could not be made ({error}); the prompt "
                                 "goes without it").format(error=err))
            return ""
        if built.pending:
            self._finish(workspace, options)
        if built.files == 0:
            return ""
        if self._pull_offered():
            return (f"{built.text}\n\nThe whole map (every definition): {pull_call()}; one file "
                    f"or folder: {pull_call(file='PATH')}.")
        return built.text

    def _finish(self, workspace: Path, options: RepomapOptions) -> None:
        """Parse what the time budget left, on a thread of its own, for the next map (this
        conversation keeps the one it has: its prompt stays the same bytes). A one-shot run that
        ends first loses nothing: the cache is written whole or not at all."""
        import threading

        from chatcli_repomap.build import build_map

        key = str(workspace)
        if key in self._finishing:
            return
        self._finishing.add(key)

        def run() -> None:
            try:
                build_map(workspace, tokens=options.tokens, max_files=options.max_files,
                          max_file_bytes=options.max_file_kb * 1024)
            except Exception:  # (the next map tries again, and reports)
                pass
            finally:
                self._finishing.discard(key)

        threading.Thread(target=run, name="repomap-finish", daemon=True).start()

    def _pull_offered(self) -> bool:
        if self.host is None:
            return False
        try:
            return "context_pull" in self.host.tools()
        except Exception:  # a plugin's broken register_tools is reported where it is used
            return False

    # ------------------------------------------------------------------ hooks

    @hookimpl
    def configure(self, host: PluginHost) -> None:
        self.host = host
        self._loose.clear()

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation) -> None:
        self._loose.clear()
        _forget(conversation)  # a new session looks at the files again

    @hookimpl
    def view_changed(self, conversation: Conversation) -> None:
        _forget(conversation)  # the prefix is rewritten anyway: map afresh

    @hookimpl(optionalhook=True)  # chatcli-context declares it, when installed
    def register_pull_kinds(self, register: Callable[[PullKind], None]) -> None:
        from chatcli_repomap.pull import pull_kind

        register(pull_kind(self.options))

    @hookimpl
    def prompt_sections(self, settings: Settings, workspace: Path, provider: str,
                        messages: list[Message], conversation: Conversation | None
                        ) -> list[PromptSection] | None:
        from chatcli_repomap.common import lean

        if lean(self.host, settings, provider):
            return None  # (the engine would drop it: a model without tools)
        text = self.section_text(workspace, settings, messages, conversation)
        if not text:
            return None
        from chatcli import PromptSection

        return [PromptSection(name="repomap", text=text, order=REPOMAP_ORDER)]




def _opening(messages: list[Message]) -> list[str]:
    """The texts the prompt's map is weighted by: the view up to its first user message (at a
    conversation's first request, that is all of it; on resume or after a compaction the same
    messages give the same map)."""
    texts = []
    for message in messages:
        texts.append(message.text)
        if message.role == "user":
            break
    return texts


def _forget(conversation: Conversation) -> None:
    if MAP in conversation.stash:
        del conversation.stash[MAP]


_PLUGIN = RepomapPlugin()

configure = _PLUGIN.configure
session_start = _PLUGIN.session_start
view_changed = _PLUGIN.view_changed
register_pull_kinds = _PLUGIN.register_pull_kinds
prompt_sections = _PLUGIN.prompt_sections
