"""The skills plugin's state and behaviour for one plugin host (the entry module delegates here).

:class:`Skills` finds the skills (:mod:`chatcli_skills.sources`), decides trust, builds the two
stable prompt sections (:mod:`chatcli_skills.prompt`) and, before every model call, puts the
skills that fire into the turn (:mod:`chatcli_skills.inject`).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, TextPart, translation
from chatcli_records_lite import dataclass

from chatcli_skills.inject import (
    Activation,
    Reach,
    Run,
    add_record,
    decorate,
    entries_for,
    present_blocks,
    records_of,
    stub,
)
from chatcli_skills.matching import match_paths, matched_trigger, paths_in, strings_in
from chatcli_skills.settings import Options, read_options
from chatcli_skills.sources import Catalog, discover
from chatcli_skills.trust import project_chain, project_root, trusted_by_project

if TYPE_CHECKING:
    from chatcli import ChatRequest, Conversation, Message, PluginHost, PromptSection, Settings

    from chatcli_skills.skill import Skill

__all__ = ["READ_TOOLS", "TURNS", "ConversationSkills", "Skills"]

_, ngettext = translation(__name__)

#: Tools that read a file by path, by the names plugins give them.
READ_TOOLS = ("read", "read_file", "Read", "view")


@dataclass
class ConversationSkills:
    """What the plugin keeps about one conversation's turns."""

    #: the run (engine turn) in progress, if known
    run: Run | None = None
    #: ``/skill NAME ARGS`` asked for, for the next run: (name, arguments)
    pending: list[tuple[str, str]] = field(default_factory=list)
    #: the decorated copies of messages, reused call after call
    copies: dict[str, tuple[Any, str, Any]] = field(default_factory=dict)


#: A conversation's :class:`ConversationSkills`, in its stash (it lives as long as the
#: conversation object: a resumed conversation starts afresh, as its records say what fired).
TURNS: StashKey[ConversationSkills] = StashKey()


class Skills:
    """Skills for one plugin host. ``dedup=False`` turns the live-history check off (every
    activation sends the whole body): the baseline ``bench/skills.py`` measures against."""

    def __init__(self, dedup: bool = True) -> None:
        self.dedup = dedup
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        #: project roots trusted for this run (``/skills trust``)
        self.trusted_roots: set[Path] = set()
        #: pins made in this run (``/skill pin``) and the configured ones taken back
        self.pins: list[str] = []
        self.unpinned: set[str] = set()
        self._warned: set[str] = set()
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        #: the catalog :meth:`sections` read for a request's messages (that very list), which
        #: the same request's :meth:`before_request` then uses instead of reading it again
        self._read_for: tuple[list[Message], Catalog] | None = None

    # ------------------------------------------------------------------ what there is

    def reset(self, host: PluginHost | None, settings: Settings | None,
              workspace: Path | None) -> None:
        """A new run of chatcli (``configure``)."""
        with self._lock:
            self.host, self.settings, self.workspace = host, settings, workspace
            self.trusted_roots.clear()
            self.pins.clear()
            self.unpinned.clear()
            self._warned.clear()

    def ws(self) -> Path:
        """The workspace (the current folder before ``configure``)."""
        if self.workspace is not None:
            return self.workspace
        hosted = getattr(self.host, "workspace", None)  # (None before configure)
        if hosted is not None:
            return Path(hosted)
        return Path.cwd().resolve()

    def options(self) -> Options:
        settings = self.settings or (self.host.settings if self.host is not None else None)
        options = read_options(settings)
        for problem in options.problems:
            self.warn(problem)
        return options

    def warn(self, line: str) -> None:
        """Say ``line`` once per run (through the host: one line on stderr or in the chat)."""
        with self._lock:
            if line in self._warned:
                return
            self._warned.add(line)
        if self.host is not None:
            self.host.warn(line if line.startswith("skills") else f"skills: {line}")

    def package_sources(self) -> list[tuple[str, Path]]:
        if self.host is None:
            return []
        from chatcli_plugin_records import SkillSource

        sources = self.host.collect("register_skill_sources", SkillSource, "skill source")
        return [(name, Path(source.path)) for name, source in sources.items()]

    def project(self) -> Path | None:
        return project_root(self.ws())

    def trusted(self) -> bool:
        """Whether the project's own skills may be activated: the user trusts the project
        (``chatcli trust``), or its skills for this session (``/skills trust``)."""
        workspace = self.ws()
        return self._trusted(workspace, project_chain(workspace))

    def _trusted(self, workspace: Path, chain: list[Path]) -> bool:
        root = chain[-1] if chain else None  # the chain ends at the project root
        if root is None:
            return True
        return root in self.trusted_roots or trusted_by_project(workspace, self.host,
                                                                chain=chain)

    def catalog(self) -> Catalog:
        """Every skill, read afresh (cheap: loading is cached by file content). The project's
        folders are found once for the trust and the sources."""
        workspace = self.ws()
        chain = project_chain(workspace)
        catalog = discover(workspace, self.package_sources(),
                           trusted=self._trusted(workspace, chain), chain=chain)
        for line in [*catalog.skipped, *catalog.warnings]:
            self.warn(line)
        return catalog

    def pinned(self, catalog: Catalog, options: Options | None = None) -> list[Skill]:
        """The pinned skills that exist, in pin order."""
        options = options or self.options()
        names = [n for n in (*options.pinned, *self.pins) if n not in self.unpinned]
        found = []
        for name in dict.fromkeys(names):
            skill = catalog.find(name)
            if skill is not None and skill not in found:
                found.append(skill)
        return found

    def reach(self) -> Reach:
        """How the model can read a skill back, from the tools it is offered."""
        if self.host is None:
            return Reach()
        try:
            names = set(self.host.tools())
        except Exception:  # a plugin's broken register_tools must not stop a turn here
            names = set()
        read = next((n for n in READ_TOOLS if n in names), None)
        return Reach(pull="context_pull" in names, read_tool=read)

    # ------------------------------------------------------------------ the prompt

    def sections(self, messages: list[Message] | None = None) -> list[PromptSection]:
        """The catalog and the pinned skills (both stable). ``messages``: the list the
        request is built on, whose :meth:`before_request` then reuses this catalog (one
        request reads the skills once)."""
        from chatcli import PromptSection

        from chatcli_skills.prompt import CATALOG_ORDER, PINNED_ORDER, catalog_text, pinned_text

        options = self.options()
        catalog = self.catalog()
        with self._lock:
            self._read_for = (messages, catalog) if messages is not None else None
        sections = []
        text = catalog_text(catalog.visible(options.disabled), self.reach())
        if text:
            sections.append(PromptSection(name="skills-catalog", text=text, order=CATALOG_ORDER))
        pinned = pinned_text(self.pinned(catalog, options))
        if pinned:
            # the user chose it: a model without tools (a lean request) gets it too
            sections.append(PromptSection(name="skills-pinned", text=pinned, order=PINNED_ORDER,
                                          essential=True))
        return sections

    # ------------------------------------------------------------------ turns

    def turns(self, conversation: Conversation) -> ConversationSkills:
        """What the plugin keeps about ``conversation`` (made on first need; under the lock)."""
        turns = conversation.stash.get(TURNS, None)
        if turns is None:
            turns = conversation.stash[TURNS] = ConversationSkills()
        return turns

    def invoke(self, conversation: Conversation, name: str, arguments: str) -> None:
        """``/skill NAME ARGS``: the next run on ``conversation`` activates ``name``."""
        with self._lock:
            self.turns(conversation).pending.append((name, arguments))

    def cancel_invocations(self, conversation: Conversation) -> None:
        """The turn ``/skill`` asked for did not start: forget its invocation."""
        with self._lock:
            self.turns(conversation).pending = []

    def prompt_submitted(self, conversation: Conversation, message: Message) -> None:
        """A new run starts with ``message``."""
        with self._lock:
            turns = self.turns(conversation)
            forced, turns.pending = turns.pending, []
            turns.run = Run(id=f"{conversation.id}:{next(self._ids)}", prompt=message.id,
                            forced=forced)

    def retried(self, conversation: Conversation) -> None:
        """The head went back to the last user message to answer it again: a new run."""
        with self._lock:
            self.turns(conversation).run = None

    def _run(self, conversation: Conversation, messages: list[Message],
             records: list[dict[str, Any]]) -> tuple[Run, int]:
        """The run this call belongs to, and the index of its prompt in ``messages``."""
        from chatcli import Role

        log = conversation.log

        def typed(message: Message) -> bool:  # a person's message, not tool results (which
            original = log.get(message.id, message)  # the text protocol sends as user text)
            return original.role == Role.USER and not original.tool_results

        with self._lock:
            run = self.turns(conversation).run
        ids = [m.id for m in messages]
        if run is not None and run.prompt in ids:
            start = ids.index(run.prompt)
        else:
            start = next((i for i in range(len(messages) - 1, -1, -1) if typed(messages[i])),
                         -1)
        prompt = messages[start].id if start >= 0 else None
        with self._lock:
            turns = self.turns(conversation)
            run = turns.run
            if run is None or run.prompt != prompt:
                run = turns.run = Run(id=f"{conversation.id}:{next(self._ids)}", prompt=prompt)
                # a run answering a prompt again (a retry) has what fired there already
                later = {m.id for m in messages[max(start, 0):]}
                for record in records:
                    if record.get("anchor") in later:
                        run.fired.update(e.get("name", "") for e in record.get("entries", []))
        return run, start

    def activations(self, run: Run, messages: list[Message], start: int, catalog: Catalog,
                    options: Options, log: Any = None) -> list[Activation]:
        """The skills firing at this call: asked for by the user, then (when ``auto``) those a
        trigger word in the prompt or a path the turn touches matches."""
        found: list[Activation] = []
        for name, arguments in run.forced:
            skill = catalog.find(name)
            if skill is not None and skill.name not in run.fired:
                found.append(Activation(skill, f"the user asked for it with /skill {skill.name}",
                                        arguments))
                run.fired.add(skill.name)
        run.forced = []
        if not options.auto or start < 0:
            return found
        prompt = messages[start]
        typed = next((p.text for p in prompt.parts if isinstance(p, TextPart)), "")
        texts = [typed]
        for message in messages[start + 1:]:
            # the logged message: the text protocol sends calls as text, without their parts
            original = log.get(message.id, message) if log is not None else message
            for call in original.tool_calls:
                texts.extend(strings_in(call.arguments))
        workspace = self.ws()
        root = self.project() or workspace
        paths = paths_in(texts, [workspace, root])
        candidates = [s for s in catalog.active()
                      if s.model_invocable and s.name not in options.disabled]
        for skill in candidates:
            if skill.name in run.fired:
                continue
            trigger = matched_trigger(skill, typed)
            reason = f'the message mentions "{trigger}"' if trigger else None
            if reason is None:
                path = match_paths(skill, paths)
                reason = f"this turn touches {path}" if path else None
            if reason is not None:
                found.append(Activation(skill, reason))
                run.fired.add(skill.name)
        for name, skill in catalog.untrusted.items():
            if matched_trigger(skill, typed) or match_paths(skill, paths):
                self.warn(_("skills: project skill {name!r} matches, but this project is not "
                            "trusted, so it stays off: /skills trust (this session) or `chatcli "
                            "trust`").format(name=name))
        return found

    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        """Age old bodies, add what fires now, and put every live record back in place."""
        records = records_of(conversation)
        messages = request.messages
        run, start = self._run(conversation, messages, records)
        run.calls += 1
        options = self.options()
        reach = self.reach()
        with self._lock:
            read, self._read_for = self._read_for, None
        # the catalog the prompt of this very request was built with (the engine builds the
        # prompt, then calls before_request with it: nothing runs in between), else afresh
        catalog = read[1] if read is not None and read[0] is messages else self.catalog()
        self._age(records, run, options, catalog, reach)
        activations = self.activations(run, messages, start, catalog, options,
                                       conversation.log)
        pinned = {s.name for s in self.pinned(catalog, options)}
        activations = [a for a in activations if a.skill.name not in pinned]
        if activations and messages:
            present = present_blocks(messages, records)
            entries = entries_for(activations, present, run, options.budget, reach,
                                  dedup=self.dedup)
            anchor = messages[-1]
            results = anchor.tool_results
            add_record(records, {"anchor": anchor.id,
                                 "call": results[-1].call_id if results else None,
                                 "run": run.id, "step": run.calls, "aged": False,
                                 "entries": entries})
        with self._lock:
            copies = self.turns(conversation).copies
        decorate(messages, records, copies)

    def _age(self, records: list[dict[str, Any]], run: Run, options: Options,
             catalog: Catalog, reach: Reach) -> None:
        """Shorten the bodies this run injected ``age_after`` calls ago or more."""
        if options.age_after <= 0:
            return
        for record in records:
            if (record.get("run") != run.id or record.get("aged")
                    or run.calls - int(record.get("step", run.calls)) < options.age_after):
                continue
            bodies = [e for e in record.get("entries", []) if e.get("kind") == "body"]
            if not bodies:
                continue
            for entry in bodies:
                entry["stub"] = stub(entry, catalog.find(entry.get("name", "")), reach)
            record["aged"] = True
