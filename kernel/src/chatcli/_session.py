"""A session: what one front end (``chatcli -p`` or the interactive chat) runs.

:meth:`Session.open` configures the plugins, opens (or resumes) the conversation, chooses the
provider and model, builds the engine and fires ``session_start``; :meth:`Session.close` fires
``session_end``. Each conversation the session holds gets exactly one of each, whatever happens
in between — :meth:`Session.set_conversation` ends one and starts the next. Switching provider or
model and changing a setting for the rest of the session are methods, so front ends and slash
commands never reach into the engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from chatcli_records_lite import dataclass

from chatcli._calls import FileAccess
from chatcli._compaction import CompactionOutcome
from chatcli._config import Settings
from chatcli._conversation import Conversation
from chatcli._engine import Approver, Engine, EngineEvent, attach_hooks
from chatcli._errors import ConfigError, UsageError
from chatcli._i18n import translation
from chatcli._plugins import PluginHost
from chatcli._providers import (
    build_provider,
    choose_provider,
    context_window,
    find_provider,
    has_key,
    uses_tools,
)
from chatcli._specs import Provider, ProviderSpec
from chatcli._stash import Stash
from chatcli._streaming import Retrying
from chatcli._types import Message, Role

__all__ = ["Session", "SessionOptions", "resumed_model"]
_, ngettext = translation(__name__)


@dataclass(frozen=True)
class SessionOptions:
    """What the command line asked of a session.

    ``provider``/``model`` are the ``--provider``/``--model`` flags (already part of the
    settings; kept here because naming one overrides what a resumed conversation used).
    ``resume`` is ``--resume REF`` (``""`` without REF), ``continue_last`` is ``-c``. ``system``
    is ``--system`` (part of the settings too). ``allow`` holds what the command line
    pre-approves: risk class names (``write``: the front ends' approvers read them) and
    permission rules (``exec(npm test:*)``, read by a policy plugin); ``permission_mode`` is the
    mode a policy plugin runs in, None when not given. Both are set by a plugin's options of
    those names (chatcli-agent's ``--allow`` and ``--permission-mode``); ``extra`` holds the
    values of the other options plugins add (``register_cli_options``), by parameter name, and
    the root command's ``as_json`` (``--json``) and ``raw`` (``--raw``).
    """

    provider: str | None = None
    model: str | None = None
    resume: str | None = None
    continue_last: bool = False
    allow: frozenset[str] = frozenset()
    permission_mode: str | None = None
    system: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def resumed_model(conversation: Conversation) -> tuple[str | None, str | None]:
    """The provider and model that last answered ``conversation`` (from its messages); for an
    answer a fallback chain or pool handed on (``message.via``), that chain with its default."""
    for message in reversed(conversation.messages()):
        if message.role == Role.ASSISTANT and message.via:
            return message.via, None
        if message.role == Role.ASSISTANT and message.provider:
            return message.provider, message.model
    return None, None


class Session:
    """One front end's run: a conversation, the provider answering it, and the engine.

    :param host: the plugin host (plugins loaded).
    :param settings: the effective settings, command-line flags included.
    :param options: what the command line asked (resume, continue, pre-approved risks).
    :param interactive: whether a person is there to be asked (tools, menus).
    :param approver: asks the person whether a tool call may run (None: nobody can be asked).
    :param workspace: the folder tools work in (default: the current directory).
    :param on_retry: told of each retry before its wait starts.
    :param sleep: the wait between retries (tests pass a recorder).
    :param wrap_provider: applied to every provider the session builds (tests, instrumentation).
    :param on_tool_output: shows a running tool's live output (a shell command's) to the user.
    :param files: where the file tools read and write text (default: the disk).
    """

    def __init__(
        self, host: PluginHost, settings: Settings, options: SessionOptions | None = None, *,
        interactive: bool = False, approver: Approver | None = None,
        workspace: Path | None = None, on_retry: Callable[[Retrying], None] | None = None,
        sleep: Callable[[float], None] | None = None,
        wrap_provider: Callable[[Provider], Provider] | None = None,
        on_tool_output: Callable[[str], None] | None = None, files: FileAccess | None = None,
    ) -> None:
        self.host = host
        self.settings = settings
        self.options = options or SessionOptions()
        self.interactive = interactive
        self.workspace = (workspace or Path.cwd()).resolve()
        self._approver = approver
        self._on_retry = on_retry
        self._sleep = sleep
        self._wrap = wrap_provider or (lambda provider: provider)
        self._on_tool_output = on_tool_output
        self._files = files
        self._engine: Engine | None = None
        self._conversation: Conversation | None = None
        self._spec: ProviderSpec | None = None
        self._lock = threading.RLock()
        #: Plugins' state for this session (``session.stash[KEY]``; not persisted).
        self.stash = Stash()

    # ------------------------------------------------------------------ state

    @property
    def engine(self) -> Engine:
        """The engine answering this session (after :meth:`open`)."""
        if self._engine is None:
            raise RuntimeError("the session is not open")
        return self._engine

    @property
    def conversation(self) -> Conversation:
        """The current conversation (after :meth:`open`)."""
        if self._conversation is None:
            raise RuntimeError("the session is not open")
        return self._conversation

    @property
    def provider_name(self) -> str:
        """The name of the provider answering."""
        return self.engine.current.provider_name

    @property
    def model(self) -> str:
        """The model answering."""
        return self.engine.current.model

    @property
    def spec(self) -> ProviderSpec:
        """The spec of the provider answering."""
        assert self._spec is not None
        return self._spec

    @property
    def is_open(self) -> bool:
        """Between :meth:`open` and :meth:`close`."""
        return self._conversation is not None

    # ------------------------------------------------------------------ opening and closing

    def open(self) -> Session:
        """Configure plugins, open the conversation, choose the provider, fire ``session_start``.

        Raises :class:`chatcli.ChatcliError` (unknown session, no provider, no key…) without
        having started anything.
        """
        self.host.configure(self.settings, self.workspace)
        conversation = self._open_conversation()
        settings = self._settings_for(conversation)
        spec = choose_provider(self.host, settings)
        provider, config = build_provider(spec, settings)
        self.settings = settings
        self._spec = spec
        self._engine = Engine(
            self.host, settings, self._wrap(provider), spec.name, config.model,
            workspace=self.workspace, approver=self._approver, interactive=self.interactive,
            max_retries=config.max_retries, tools=uses_tools(spec, settings),
            context_window=context_window(spec, settings, config.model), sleep=self._sleep,
            on_retry=self._on_retry, on_tool_output=self._on_tool_output, files=self._files)
        self._begin(conversation)
        return self

    def _open_conversation(self) -> Conversation:
        options = self.options
        if options.resume is None and not options.continue_last:  # "": --resume without ID
            return Conversation(max_checkpoints=self.settings.max_checkpoints)
        conversation = self.host.hooks.open_conversation(
            settings=self.settings, resume=options.resume, continue_last=options.continue_last)
        if conversation is None:
            flag = "--resume" if options.resume is not None else "--continue"
            raise UsageError(_("{flag} needs a session store, and none is installed").format(
                flag=flag), _("pip install chatcli-sessions (or run without it)"))
        return conversation

    def _settings_for(self, conversation: Conversation) -> Settings:
        """A resumed conversation goes on with the provider and model that last answered it,
        unless the command line named one, or that provider is gone or has lost its key."""
        provider, model = resumed_model(conversation)
        if self.options.provider or self.options.model or provider is None:
            return self.settings
        spec = self.host.providers().get(provider)
        if spec is None or not has_key(spec, self.settings):
            return self.settings
        return self.settings.model_copy(update={"provider": provider, "model": model})

    def _begin(self, conversation: Conversation) -> None:
        attach_hooks(conversation, self.host)
        self._conversation = conversation
        self.host.hooks.session_start(session=self, conversation=conversation,
                                      settings=self.settings)

    def close(self) -> None:
        """Fire ``session_end`` for the current conversation (once; later calls do nothing)."""
        with self._lock:
            conversation, self._conversation = self._conversation, None
        if conversation is not None:
            self.host.hooks.session_end(session=self, conversation=conversation)

    def __enter__(self) -> Session:
        return self if self.is_open else self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ during the session

    def run(self, prompt: Message | None, cancel: threading.Event | None = None
            ) -> Generator[EngineEvent, None, None]:
        """One turn on the current conversation (see :meth:`chatcli.Engine.run`)."""
        return self.engine.run(self.conversation, prompt, cancel)

    def compact(self, instruction: str | None = None) -> CompactionOutcome | None:
        """Compact the conversation's view now (``/compact``, the ``compact_view`` hook with
        reason "manual"), steered by ``instruction``; the log keeps everything. None when no
        plugin compacts."""
        return self.engine.compact(self.conversation, reason="manual", instruction=instruction)

    def context_tokens(self) -> int:
        """The estimate of the next request's input tokens (corrected by the provider's count)
        — compare with ``engine.current.context_window``."""
        return self.engine.context_tokens(self.conversation)

    def set_conversation(self, conversation: Conversation) -> None:
        """Replace the current conversation (load, new, fork): ``session_end`` for the old one,
        ``session_start`` for the new one."""
        if conversation is self._conversation:
            return
        self.close()
        self._begin(conversation)

    def switch(self, provider: str | None = None, model: str | None = None) -> None:
        """Answer with another provider and/or model from the next message on; history is kept.

        A new provider without a model uses its configured or default model. Raises
        :class:`chatcli.ChatcliError` (unknown provider, no key, bad options) and changes
        nothing.
        """
        engine, current = self.engine, self.engine.current
        spec = find_provider(self.host, provider or current.provider_name)
        if model is None and spec.name == current.provider_name:
            model = current.model
        new, config = build_provider(spec, self.settings, model)
        engine.use(self._wrap(new), spec.name, config.model, max_retries=config.max_retries,
                   context_window=context_window(spec, self.settings, config.model),
                   tools=uses_tools(spec, self.settings))
        self._spec = spec

    def update_settings(self, **changes: Any) -> Settings:
        """Settings for the rest of the session (``system="…"``), validated; returns them.

        The settings object is replaced, never changed in place, so a turn in progress keeps
        the settings it started with. Raises :class:`chatcli.ConfigError` for a bad value.
        """
        from pydantic import ValidationError

        try:
            settings = Settings.model_validate({**self.settings.model_dump(), **changes})
        except ValidationError as err:
            first = err.errors()[0]
            key = ".".join(str(part) for part in first["loc"])
            raise ConfigError(_("invalid value for '{key}': {reason}").format(
                key=key, reason=first["msg"])) from None
        self.settings = settings
        self.engine.settings = settings
        return settings
