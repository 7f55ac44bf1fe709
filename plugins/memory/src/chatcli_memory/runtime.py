"""The memory plugin's state for one process: the backend (opened on first need), the memory
model, the extraction worker, and what the current session's prompt shows.

A backend that is missing or fails to open is reported once, in one line naming the cause and
the fix, and the run goes on without memory (:attr:`Runtime.failure` says why).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import ChatcliError, translation
from chatcli_memory_api import MemoryItem, MemoryKind

from chatcli_memory.model import Memory
from chatcli_memory.project import project_root, project_scope
from chatcli_memory.settings import MemoryOptions
from chatcli_memory.state import State

if TYPE_CHECKING:
    from chatcli import (
        Conversation,
        Message,
        PluginHost,
        PromptSection,
        Session,
        Settings,
    )
    from chatcli_memory_api import MemoryBackend

    from chatcli_memory.worker import Worker

__all__ = ["MAINTAIN_EVERY", "Runtime", "memory_folder", "sqlite_factory"]

_, ngettext = translation(__name__)

#: how often (seconds) decay and daily-note expiry run
MAINTAIN_EVERY = 86_400.0


def memory_folder() -> Path:
    """Where memory's own files live: ``<data dir>/memory``."""
    from chatcli import data_dir

    return data_dir() / "memory"


class Runtime:
    """Memory for one process: ``host`` finds backends and providers, ``clock`` tells the time
    (tests move it), ``warn`` reports one-line problems."""

    def __init__(self, host: PluginHost | None, settings: Settings | None,
                 workspace: Path, *, clock: Callable[[], float] = time.time,
                 warn: Callable[[str], None] | None = None) -> None:
        self.host = host
        self.settings = settings
        self.workspace = workspace
        self.clock = clock
        self._warn = warn or (host.warn if host is not None else (lambda _line: None))
        self._warned: set[str] = set()
        self.options, problems = MemoryOptions.from_settings(settings)
        for problem in problems:
            self.warn(problem)
        self.backend: MemoryBackend | None = None
        self.memory: Memory | None = None
        self.failure: str | None = None
        self.state = State(memory_folder() / "state.json")
        self.worker: Worker | None = None
        self.session: Session | None = None
        self.conversation: Conversation | None = None
        self.oneshot = False
        #: a turn is running (from its first model call to its last answer): extraction, which
        #: sends the conversation, waits until the session is idle again — never between two
        #: steps of an agent run, nor while its approval question is open
        self.busy = False
        #: conversation id → (index text, ids shown)
        self.indexes: dict[str, tuple[str, list[str]]] = {}
        #: conversation id → (user message id, paths, recall text)
        self.recalls: dict[str, tuple[Any, str]] = {}
        #: items the person added during this session (recalled until the next session)
        self.added: list[MemoryItem] = []
        self._lock = threading.RLock()
        self._extraction_provider: tuple[tuple[str, str], Any, str] | None = None
        #: what the worker and the maintenance did, newest last (for tests and status)
        self.events: deque[tuple[str, str]] = deque(maxlen=100)

    def warn(self, line: str) -> None:
        if line not in self._warned:
            self._warned.add(line)
            self._warn(_("memory: {message}").format(message=line))

    # ------------------------------------------------------------------ opening

    @property
    def enabled(self) -> bool:
        return self.options.enabled

    def open(self) -> Memory | None:
        """The memory model, opening the backend on first use; None when memory is off or
        the backend failed (reported once)."""
        with self._lock:
            if self.memory is not None or self.failure is not None:
                return self.memory
            try:
                self.backend = self._open_backend()
            except ChatcliError as err:
                self.failure = str(err)
                self.warn(_("{reason}; going on without memory").format(reason=err))
                return None
            except Exception as err:  # a backend plugin's own failure
                self.failure = _("backend {name!r} failed to open: {reason}").format(
                    name=self.options.backend, reason=_one_line(err))
                self.warn(_("{reason}; going on without memory").format(reason=self.failure))
                return None
            scope = project_scope(self.workspace, self.options.project)
            self.memory = Memory(self.backend, self.options, project_scope=scope,
                                 clock=self.clock)
            return self.memory

    def _open_backend(self) -> MemoryBackend:
        name = self.options.backend
        from chatcli_memory_api import MemoryBackendSpec

        specs = (self.host.collect("register_memory_backends", MemoryBackendSpec,
                                   "memory backend") if self.host is not None else {})
        spec = specs.get(name)
        if name == "sqlite" and (spec is None or spec.factory is sqlite_factory):
            return self.sqlite()  # ours: with this runtime's clock
        if spec is None:
            have = ", ".join(sorted(specs)) or _("none")
            raise ChatcliError(_("no memory backend named {name!r} (installed: {have})").format(
                                   name=name, have=have),
                               _("set memory.backend to one of them, e.g. `chatcli config set "
                                 "memory.backend sqlite`, or pip install chatcli-memory-{name}")
                               .format(name=name))
        from chatcli import load_settings

        return spec.factory(self.settings or load_settings())

    def sqlite(self) -> MemoryBackend:
        from chatcli_memory.sqlite_backend import SqliteBackend

        path = Path(self.options.path).expanduser() if self.options.path else \
            memory_folder() / "memory.db"
        return SqliteBackend(path, clock=self.clock)

    def close(self) -> None:
        """Stop the worker (a run in flight gets ``exit_wait``) and close the backend."""
        if self.worker is not None:
            self.worker.close(self.options.exit_wait)
        with self._lock:
            backend, self.backend, self.memory = self.backend, None, None
        if backend is not None:
            backend.close()

    # ------------------------------------------------------------------ sessions

    def start_session(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        self.settings = settings
        self.session = session
        self.workspace = session.workspace
        self.conversation = conversation
        self.oneshot = not session.interactive
        self.options, problems = MemoryOptions.from_settings(settings)
        for problem in problems:
            self.warn(problem)
        self.indexes.pop(conversation.id, None)
        self.recalls.pop(conversation.id, None)
        self.added = []
        if not self.enabled or self.open() is None:
            return
        self.import_files()
        self.maintain_if_due(background=True)
        if self.worker is not None:
            self.worker.close(0)
            self.worker = None
        if self.oneshot and not (self.options.extract and self.options.extract_oneshot):
            return  # a one-shot run that extracts nothing has no use for a worker
        self.worker = self._new_worker()
        if self.options.extract and not self.oneshot:
            self.worker.start_timer(lambda: None if self.busy else self.conversation)

    def end_session(self, conversation: Conversation) -> None:
        self.busy = False
        worker = self.worker
        if worker is None:
            return
        if (self.oneshot and self.options.extract and self.options.extract_oneshot
                and worker.nudge(conversation, _("the end of a one-shot run"), minimum=2)):
            worker.wait(self.options.timeout + 1)
        worker.close(self.options.exit_wait)
        if self.conversation is conversation:
            self.conversation = None

    def _new_worker(self) -> Worker:
        from chatcli_memory.worker import Worker

        return Worker(memory=lambda: self.memory, options=self.options, state=self.state,
                      call=self.call_model, clock=self.clock,
                      on_event=lambda name, detail: self.events.append((name, detail)))

    def after_answer(self, message: Message | None, error: Any,
                     conversation: Conversation) -> None:
        """An answer ended: when it ends the turn (no tool call follows) the session is idle,
        and an extraction starts when one is due (never in one-shot runs)."""
        if message is not None and error is None and not message.interrupted \
                and message.tool_calls:
            return  # the turn goes on: its tools run (maybe after a question), then the model
        self.busy = False
        if (message is None or error is not None or message.interrupted or self.oneshot
                or not self.options.extract or self.worker is None):
            return
        self.worker.nudge(conversation)

    # ------------------------------------------------------------------ upkeep

    def maintain_if_due(self, *, background: bool) -> None:
        """Decay and expire at most once per :data:`MAINTAIN_EVERY` (by the clock)."""
        memory = self.memory
        if memory is None:
            return
        last = self.state.get("last_maintenance")
        now = self.clock()
        if isinstance(last, (int, float)) and now - last < MAINTAIN_EVERY:
            return
        self.state.update(last_maintenance=now)

        def run() -> None:
            try:
                report = memory.maintain(now)
            except Exception as err:
                self.warn(_("maintenance failed: {reason}").format(reason=_one_line(err)))
                return
            self.state.update(last_maintenance_report={
                "at": now, "decayed": len(report.decayed), "expired": len(report.expired)})
            self.events.append(("maintained", f"{len(report.decayed)} decayed, "
                                              f"{len(report.expired)} expired"))

        if background:
            self._maintenance = threading.Thread(target=run, daemon=True,
                                                 name="chatcli-memory-maintenance")
            self._maintenance.start()
        else:
            run()

    def wait_maintenance(self, timeout: float = 30.0) -> None:
        thread = getattr(self, "_maintenance", None)
        if thread is not None:
            thread.join(timeout)

    def markdown_files(self) -> list[tuple[Path, str]]:
        """The MEMORY.md files that feed memory and the scope of each."""
        from chatcli import config_dir

        files = [(config_dir() / "MEMORY.md", "global")]
        root = project_root(self.workspace)
        if root is not None:
            files.append((root / "MEMORY.md", "project"))
        return files

    def import_files(self) -> None:
        """Import MEMORY.md files that changed since they were last imported."""
        import hashlib

        memory = self.memory
        if memory is None or not self.options.import_markdown:
            return
        seen = dict(self.state.get("imports") or {})
        changed = False
        for path, scope in self.markdown_files():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.sha256(text.encode()).hexdigest()
            if seen.get(str(path)) == digest:
                continue
            from chatcli_memory.markdown import import_markdown

            try:
                import_markdown(memory, text, scope=scope, source=str(path))
            except ChatcliError as err:
                self.warn(_("{path} was not imported: {reason}").format(path=path, reason=err))
                continue
            seen[str(path)] = digest
            changed = True
        if changed:
            self.state.update(imports=seen)

    # ------------------------------------------------------------------ the prompt

    def sections(self, messages: list[Message], conversation: Conversation | None = None
                 ) -> list[PromptSection]:
        """The index (stable) and the recall (volatile) for the next model call on
        ``conversation`` (None: the session's)."""
        from chatcli import PromptSection

        from chatcli_memory.recall import INDEX_SECTION, RECALL_SECTION

        memory = self.open() if self.enabled else None
        if memory is None:
            return []
        if conversation is None:
            conversation = self.conversation
        conversation_id = conversation.id if conversation is not None else ""
        index = self.index(conversation_id)
        out = []
        if index[0]:
            out.append(PromptSection(INDEX_SECTION, index[0], stable=True, order=60))
        recall = self.recall(conversation_id, messages, index[1])
        if recall:
            out.append(PromptSection(RECALL_SECTION, recall, stable=False, order=200))
        return out

    def index(self, conversation_id: str) -> tuple[str, list[str]]:
        """This conversation's index, built once (see :mod:`chatcli_memory.recall`)."""
        from chatcli_memory.recall import build_index

        with self._lock:
            cached = self.indexes.get(conversation_id)
            if cached is None and self.memory is not None:
                try:
                    cached = build_index(self.memory)
                except ChatcliError as err:
                    self.warn(_("the memory index could not be read: {reason}").format(
                        reason=err))
                    cached = ("", [])
                self.indexes[conversation_id] = cached
            return cached or ("", [])

    def refresh_index(self) -> None:
        """Rebuild indexes on next use (``/memory forget`` and ``edit``)."""
        with self._lock:
            self.indexes.clear()
            self.recalls.clear()

    def recall(self, conversation_id: str, messages: list[Message], shown: list[str]) -> str:
        from chatcli_memory.recall import build_recall, query_for

        memory = self.memory
        if memory is None:
            return ""
        message_id, query = query_for(messages)
        key = (message_id, query, len(self.added))
        cached = self.recalls.get(conversation_id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            text, items = build_recall(memory, query, exclude=shown, added=self.added)
            first = cached is None or cached[0][0] != message_id
            if items and first:
                memory.backend.touch([i.id for i in items])
        except ChatcliError as err:
            self.warn(_("recall failed: {reason}").format(reason=err))
            text = ""
        self.recalls[conversation_id] = (key, text)
        return text

    # ------------------------------------------------------------------ the extraction model

    def call_model(self, system: str, user: str, timeout: float) -> str:
        """The extraction model's answer to ``user`` under ``system`` within ``timeout``
        seconds (raises TimeoutError, or a ChatcliError from the provider). The call is the
        session engine's side call of purpose "memory", so ``/cost`` and the budget count it."""
        import queue

        from chatcli import ChatRequest, Message, PromptSection, TextDelta, Use

        provider, name, model = self._provider()
        session, conversation = self.session, self.conversation
        if session is None or conversation is None:
            raise ChatcliError(_("no session to extract with"))
        request = ChatRequest(model=model, system=[PromptSection("memory-extraction", system,
                                                                 order=0)],
                              messages=[Message.user(user)], max_tokens=2_000,
                              temperature=0.0, purpose="memory")
        use = Use(provider, name, model, max_retries=0)  # no retry: a later run tries again
        answers: queue.Queue[tuple[str, str | BaseException]] = queue.Queue()
        stop = threading.Event()

        def read() -> None:
            parts: list[str] = []
            # (the provider's own deadline a second later: the wait below decides, and `stop`
            # ends the call; both at once would race and name the wrong cause)
            stream = session.engine.side_call(request, conversation, use=use, cancel=stop,
                                              response_timeout=timeout + 1)
            try:
                for event in stream:
                    if stop.is_set():
                        break
                    if isinstance(event, TextDelta):
                        parts.append(event.text)
                answers.put(("ok", "".join(parts)))
            except BaseException as err:
                answers.put(("error", err))
            finally:
                stream.close()

        threading.Thread(target=read, daemon=True, name="chatcli-memory-model").start()
        try:
            _kind, value = answers.get(timeout=timeout)
        except queue.Empty:
            stop.set()
            raise TimeoutError(timeout) from None
        if isinstance(value, BaseException):  # kind "error"
            if isinstance(value, ChatcliError):
                raise value
            raise ChatcliError(_("the extraction model failed: {reason}").format(
                reason=_one_line(value)))
        return value

    def _provider(self) -> tuple[Any, str, str]:
        """The extraction provider (built once per provider and model), its name and model."""
        from chatcli import build_provider, find_provider

        session = self.session
        if session is None or self.host is None:
            raise ChatcliError(_("no session to extract with"))
        name = self.options.provider or session.provider_name
        if name == "local" and not self.options.provider:
            raise ChatcliError(_("the offline model does not extract memories"),
                               _("set memory.provider (and memory.model) to a hosted model"))
        model = self.options.model or (session.model if name == session.provider_name
                                       else "")
        wanted = (name, model)
        cached = self._extraction_provider
        if cached is not None and cached[0] == wanted:
            return cached[1], name, cached[2]
        spec = find_provider(self.host, name)
        provider, config = build_provider(spec, session.settings, model or None)
        self._extraction_provider = (wanted, provider, config.model)
        return provider, name, config.model

    # ------------------------------------------------------------------ status

    def counts(self) -> dict[tuple[str, bool], int]:
        """(kind, archived) → items."""
        backend = self.backend
        if backend is None:
            return {}
        counts = getattr(backend, "counts", None)
        if callable(counts):  # a backend that counts itself (optional: not in the protocol)
            counted: dict[tuple[str, bool], int] = counts()
            return counted
        out: dict[tuple[str, bool], int] = {}
        for item in backend.list(include_archived=True):
            key = (item.kind.value, item.archived)
            out[key] = out.get(key, 0) + 1
        return out

    def status_lines(self) -> list[str]:
        """``/memory status``: the backend, counts per kind, archived, the last extraction."""
        import datetime as dt

        lines = []
        if not self.enabled:
            lines.append(_("memory is off (memory.enabled = false)"))
        memory = self.open()
        if memory is None:
            if self.failure:
                lines.append(_("memory is unavailable: {reason}").format(reason=self.failure))
            return lines
        backend = memory.backend
        where = getattr(backend, "path", None)
        lines.append(_("backend: {name} ({path})").format(name=backend.name, path=where)
                     if where else _("backend: {name}").format(name=backend.name))
        lines.append(_("scopes: {scopes}").format(scopes=", ".join(memory.scopes)))
        counts = self.counts()
        live = {kind.value: counts.get((kind.value, False), 0) for kind in MemoryKind}
        archived = sum(v for (_k, a), v in counts.items() if a)
        # i18n: {counts} is "3 fact, 1 profile, …" (the kinds' names are not translated)
        lines.append(ngettext("items: {counts}; {archived} archived",
                              "items: {counts}; {archived} archived", archived).format(
            counts=", ".join(f"{v} {k}" for k, v in live.items()), archived=archived))
        last = self.state.get("last_extraction")
        if isinstance(last, dict) and last.get("outcome"):
            when = dt.datetime.fromtimestamp(float(last.get("at") or 0)).strftime(
                "%Y-%m-%d %H:%M")
            lines.append(_("last extraction: {when} ({reason}): {outcome}").format(
                when=when, reason=last.get("reason", "?"), outcome=last["outcome"]))
        else:
            lines.append(_("last extraction: none yet"))
        if self.worker is not None and self.worker.busy:
            lines.append(_("an extraction is running now"))
        on = self.options.extract
        if on and self.oneshot and not self.options.extract_oneshot:
            extract = _("on (not in one-shot runs: memory.extract_oneshot)")
        elif on:
            extract = _("on")
        elif self.oneshot and not self.options.extract_oneshot:
            extract = _("off (not in one-shot runs: memory.extract_oneshot)")
        else:
            extract = _("off")
        lines.append(ngettext("extraction: {state}; every {cooldown:g} s at most, after "
                              "{count} new messages",
                              "extraction: {state}; every {cooldown:g} s at most, after "
                              "{count} new messages", self.options.min_messages).format(
                                  state=extract, cooldown=self.options.cooldown,
                                  count=self.options.min_messages))
        return lines


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:200]


def sqlite_factory(settings: Settings) -> MemoryBackend:
    """Open the SQLite backend ``settings`` name (``memory.path``, else the data folder)."""
    return Runtime(None, settings, Path.cwd()).sqlite()
