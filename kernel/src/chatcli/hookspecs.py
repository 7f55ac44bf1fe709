"""The plugin contract: every hook chatcli calls, when, with what, and what it may return.

Plugins implement hooks with :data:`chatcli.hookimpl` (pluggy's marker). An implementation may
accept any subset of a hook's arguments, by name. The kernel calls every hook through pluggy
(``pm.hook.<name>``), by way of the typed methods of :attr:`chatcli.PluginHost.hooks`, so
pluggy's semantics hold: implementations run last-registered first, ``tryfirst``/``trylast``
move them, ``wrapper=True`` implementations wrap the others and may change their result (pluggy's
old-style ``hookwrapper=True`` is refused), and ``CHATCLI_TRACE_HOOKS=1`` (or ``--trace-hooks``)
prints every call and its result on stderr.

Unless a hook says *first result wins*, every implementation is called and the non-None results
are collected, in call order.

Failure isolation: an implementation that raises (any exception, ``SystemExit`` and other
``BaseException`` subclasses included, but not ``KeyboardInterrupt``) is reported once — one line
on stderr and in ``chatcli plugins list`` — and skipped; the other implementations' results still
count. So is an implementation whose result is not of the type its hook declares below: a wrong
result never crashes a turn. Hooks that document a :class:`chatcli.ChatcliError` let that error
through, because raising it is part of their contract.

Threads: the front ends run turns on one worker thread; every hook of a turn is called on that
thread. ``register_*`` hooks may be called from any thread; the host serialises them.

Plugins declare hooks of their own with ``add_hookspecs``; those are called with
``host.hook.<name>(**kwargs)`` and documented in the declaring plugin's ``hookspecs.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from chatcli._calls import (
        Approval,
        ChatRequest,
        PromptSection,
        Tool,
        ToolContext,
        ToolSpec,
        Verdict,
    )
    from chatcli._compaction import CompactionOutcome
    from chatcli._config import Settings
    from chatcli._conversation import Checkpoint, Conversation
    from chatcli._engine import Engine, Use
    from chatcli._errors import ChatcliError
    from chatcli._plugins import PluginHost
    from chatcli._session import Session, SessionOptions
    from chatcli._specs import Author, Decision, ProviderSpec, SlashCommand
    from chatcli._trust import ControlFile, SettingRule
    from chatcli._types import Message, ToolCallPart, ToolResultPart

hookspec = pluggy.HookspecMarker("chatcli")


# ------------------------------------------------------------------------------ Set-up


@hookspec(historic=True)
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare the hooks this plugin offers other plugins (pytest's ``pytest_addhooks``).

    Called once for every plugin as it is registered (*historic*: the kernel calls it when the
    host is made, and pluggy's history reaches each plugin registered later), before the
    plugin's other hooks.

    :param add: call ``add(module)`` with a module (or class) of ``@chatcli.hookspec``
        functions, conventionally the plugin's ``hookspecs.py``. Its hooks are then called like
        the kernel's, with ``host.hook.<name>(**kwargs)`` (pluggy's result semantics:
        ``firstresult=True`` gives the first non-None result, else the list). Implementers
        write ``@chatcli.hookimpl def <name>(...)`` and import nothing from the declaring
        plugin; an implementation of a hook that no installed plugin declares is refused like
        any unknown hook. A hook name already declared is reported and ignored.

    The return value is ignored.
    """


@hookspec(historic=True)
def configure(host: PluginHost, settings: Settings, workspace: Path) -> None:
    """Set up the plugin for this run, once, before any conversation starts.

    Called once per process (however many sessions open), from the first
    :meth:`chatcli.Session.open` (``chatcli -p`` and the interactive chat alike), on its thread,
    before ``open_conversation``. *Historic*: a plugin registered later (imported later, or by
    hand) is called with the same arguments as it is registered, before any of its other hooks:
    every plugin's ``configure`` runs exactly once, so session hooks need no ``host is None``
    guard. (Hooks called before a session opens, ``register_commands`` say, still come before
    it. A historic hook takes no ``wrapper``.)

    :param host: the plugin host. Keep it to find what other plugins registered
        (``host.providers()``, ``host.tools()``, ``host.collect(...)``) or to announce that
        this plugin's tools changed (``host.tools_changed()``).
    :param settings: the effective settings (read only). A plugin's own settings are its table:
        ``settings.plugin_table("NAME")``.
    :param workspace: the folder the run works in (the current directory, resolved).

    The return value is ignored.
    """


@hookspec
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register model providers.

    Called once per process, on first need (``-p``, ``chatcli models``, the REPL, ``/switch``).

    :param register: call ``register(ProviderSpec(...))`` once per provider. The spec's
        ``factory`` is called only when that provider is used, so import the SDK inside it.
        Anything but a :class:`chatcli.ProviderSpec` is reported and ignored. When two plugins
        register the same name, the one pluggy calls first (registered later, or ``tryfirst``)
        wins and the other is reported.

    The return value is ignored.
    """


@hookspec
def register_tools(register: Callable[[Tool], None], settings: Settings, workspace: Path) -> None:
    """Register tools the model may call.

    Called when a session first needs its tools (before its first model call), and again before
    the next model call whenever a plugin calls ``host.tools_changed()`` — so a plugin whose
    tools come and go (an MCP server's ``tools/list_changed``) registers its current set each
    time. Called on the turn's worker thread.

    :param register: call ``register(Tool(...))`` once per tool. Tool names match
        ``^[a-zA-Z0-9_-]{1,64}$`` and are unique (when two plugins register the same name, the one
        pluggy calls first wins and the other is reported); anything but a :class:`chatcli.Tool`
        is reported and ignored.
    :param settings: the effective settings (a plugin's own table: ``settings.plugin_table``).
    :param workspace: the workspace root tools work in.

    The return value is ignored.
    """


@hookspec(firstresult=True)
def compact_view(engine: Engine, conversation: Conversation, reason: str, instruction: str | None,
                 use: Use, settings: Settings) -> CompactionOutcome | None:
    """Shorten ``conversation``'s *view* (what the model is sent; the log is never changed).

    Called by the engine on the turn's worker thread when the next request passes
    ``compact_threshold`` of the context window (``reason="threshold"``), once after the
    provider said a request is too long (``"overflow"``), and by :meth:`Session.compact`
    (``/compact``: ``"manual"``, with the person's ``instruction``). chatcli-compaction
    implements it: it runs the compaction strategies other plugins register through
    ``register_compaction_strategies`` (which it declares) and records each
    :class:`chatcli.Compaction` with :meth:`chatcli.Conversation.compact`; compactions are undone
    with :meth:`Conversation.undo_compaction`.

    :param engine: the session's engine (``engine.tokens`` estimates tokens,
        ``engine.context_tokens`` the whole request; :func:`chatcli.read_answer` makes a model
        call).
    :param use: the model and provider of the turn (``use.context_window`` is the yardstick).
    :param settings: the turn's settings.

    First result wins (the first non-None one): return what was done (``changed``: whether
    the view is shorter; ``line()``: one line for the person, shown as ``⟲ …``), or None when
    nothing was attempted (no line is shown, and the request is sent as it is).
    """


@hookspec
def register_setting_rules(register: Callable[[SettingRule | ControlFile], None]) -> None:
    """Declare what a project may change of this plugin's behaviour, for workspace trust: which
    of its settings a project's ``.chatcli/config.toml`` may set, and which project files it
    reads.

    Called once per process for each of the two questions, and only when it is asked: the
    setting rules when settings are first read for a project that has a config file (so it
    costs nothing otherwise; the user's file, ``CHATCLI_*`` variables and flags are never
    filtered), the control files by :func:`chatcli.project_trust` (when a project has a
    ``.chatcli/config.toml``, when a session starts, and when ``chatcli trust`` shows a
    project).

    :param register: call ``register(SettingRule(key, project, merge, keep))`` per rule:
        ``project="never"`` for anything that sends keys elsewhere, runs a program or loosens
        security (``coder.sandbox``); ``"always"`` with ``merge="union"`` or ``"min"`` for what
        only tightens (deny rules, a smaller budget); keys no rule names are ``"trusted"``. See
        :class:`chatcli.SettingRule`. And ``register(ControlFile(pattern))`` per kind of project
        file this plugin reads that changes chatcli's behaviour (``".mcp.json"``,
        ``".chatcli/skills/**"``): such files take effect only in a trusted project (ask
        :func:`chatcli.project_trust` before reading them), a change to any of them asks the
        user again; the kernel always counts ``.chatcli/config.toml``. Anything else is
        reported and ignored.

    The return value is ignored.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add sub-commands to the ``chatcli`` command line.

    Called once per process while the command line is built, for every invocation but
    ``--version`` (``chatcli --help`` included: keep the entry module light and import heavy
    things inside the command's function).

    :param cli: the root ``click.Group``; use ``cli.add_command(cmd)`` or ``@cli.command()``.

    The return value is ignored.
    """


@hookspec
def register_cli_options(register: Callable[[click.Option], None]) -> None:
    """Add options to the root command, ``chatcli`` and ``chatcli -p`` (pytest's
    ``pytest_addoption``): a plugin owns its flags (chatcli-agent ``--allow`` and
    ``--permission-mode``).

    Called once per process while the command line is built, before ``register_commands``, when
    the root command may see them: ``chatcli``, ``chatcli -p …``, ``chatcli --help`` (which lists
    them with the kernel's own: build the ``click.Option`` here and import nothing heavy) — not
    for ``--version``, nor when the first word is a sub-command (``chatcli models``).

    :param register: call ``register(click.Option(["--flag"], help=…))`` per option. Check the
        value in the option's click ``callback`` (raise ``click.BadParameter``: a usage error,
        exit 2, as a JSON object with ``--json``). Plain text options get the kernel's UTF-8
        check. An option whose name or flags another option already uses, or anything but a
        ``click.Option``, is reported and left out.

    The values reach the session: an option named like a field of :class:`chatcli.SessionOptions`
    (``allow``, ``permission_mode``) fills that field; any other is
    ``session.options.extra[name]`` (its default when not given). ``name`` is click's parameter
    name (``--max-cost`` → ``max_cost``).

    The return value is ignored.
    """


@hookspec
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """Register in-chat ``/commands``.

    Called once per process, when the interactive chat first lists its commands, and again
    after a plugin calls ``host.slash_commands_changed()``.

    :param register: call ``register(SlashCommand(...))`` per command. When two plugins
        register the same name, the one pluggy calls first wins and the other is reported.

    The return value is ignored.
    """


# -------------------------------------------------------------------------- Front ends and sessions


@hookspec(firstresult=True)
def cmdline_main(host: PluginHost, settings: Settings, options: SessionOptions,
                 prompt: str | None) -> int | None:
    """Run the root command: the interactive chat, or one answer. First result wins.

    Called from the command line (``chatcli`` without a sub-command), on the main thread, once,
    after the kernel's checks (``-c`` with ``--resume``, a closed stdout). chatcli-repl answers
    when ``prompt`` is None and stdin is a terminal (the interactive chat); chatcli-print answers
    otherwise: it reads piped stdin (the prompt without ``-p`` or with ``-p -``, else sent after
    the ``-p`` text in a fenced block) and refuses an empty prompt. With no answer the command
    names the plugin to install (the one that would have answered).

    :param host: the plugin host; open the session with
        ``Session(host, settings, options, ...).open()``.
    :param settings: the effective settings, command-line flags included.
    :param options: what the command line asked for: provider, model, ``resume``,
        ``continue_last``, the pre-approved risk classes; ``extra`` also holds ``as_json``
        (``--json``) and ``raw`` (``--raw``).
    :param prompt: the ``-p`` text as given (undecodable bytes replaced by U+FFFD, as
        ``--system``'s), or None without ``-p``; stdin is left unread for the plugin.
    :return: the process exit code, or None when this plugin does not run this kind of command.
        Whatever it raises ends the command as any failure of it does: a
        :class:`chatcli.ChatcliError` as its one-line error, ``BrokenPipeError`` quietly.
    """


@hookspec(firstresult=True)
def open_conversation(settings: Settings, resume: str | None,
                      continue_last: bool) -> Conversation | None:
    """Provide the conversation a session starts with. First result wins.

    Called from :meth:`chatcli.Session.open`, once per session, before ``session_start``, only
    when ``resume`` or ``continue_last`` asks for a stored conversation (a new session starts
    with a new, empty :class:`chatcli.Conversation`).

    :param settings: the effective settings.
    :param resume: a session id (or unique prefix, or name) from ``--resume``; ``""`` for
        ``--resume`` without an id (let the person choose), else None.
    :param continue_last: True for ``--continue``/``-c``: the current project's most recent
        session.
    :return: the restored :class:`chatcli.Conversation` (observing nothing yet), or None to let
        the next plugin answer. When no plugin answers, the session refuses to start and says
        which plugin stores sessions. Raise :class:`chatcli.UsageError` when ``resume`` names
        nothing; it ends the command with that error.
    """


@hookspec
def session_start(session: Session, conversation: Conversation, settings: Settings) -> None:
    """A conversation begins in a session: new, resumed, loaded or forked.

    Called once for every conversation a session holds: from :meth:`chatcli.Session.open` for
    the first, and from :meth:`chatcli.Session.set_conversation` for each one that replaces it
    (``/session load``, ``/fork``, ``/session new``), on the thread that made the change, before
    the conversation's first prompt is read. Each call is matched by exactly one
    ``session_end`` for the same conversation.

    :param session: the running session (provider, model, engine, options).
    :param conversation: the conversation that begins (its lifecycle hooks already observe it).
    :param settings: the session's settings.

    The return value is ignored. A :class:`chatcli.ConfigError` raised here (the plugin's
    settings are wrong: ``[permissions] mode = "yolo"``) ends the command with that error (exit
    2); any other exception is reported and isolated.
    """


@hookspec
def session_end(session: Session, conversation: Conversation) -> None:
    """A conversation ends in a session: the session closes, or another conversation replaces it.

    Called exactly once for each conversation that had a ``session_start``, from
    :meth:`chatcli.Session.close` (the chat exits, a one-shot run finishes, errors and Ctrl+C
    included) or :meth:`chatcli.Session.set_conversation`.

    The return value is ignored.
    """


# --------------------------------------------------- A turn: the prompt, the model call, the answer


@hookspec
def user_prompt_submitted(conversation: Conversation, message: Message) -> None:
    """The user sent ``message`` and it was appended to ``conversation``.

    Called from :meth:`chatcli.Engine.run` at the start of a turn that has a prompt (not for a
    retry), after ``message_appended`` and before the turn's first model call.

    The return value is ignored.
    """


@hookspec
def prompt_sections(settings: Settings, workspace: Path, messages: list[Message], provider: str,
                    model: str, conversation: Conversation | None) -> list[PromptSection] | None:
    """Contribute sections of the system prompt for the next model call.

    Called from the engine before every model call of a turn (after tool results too), on the
    turn's thread. The kernel adds its own sections (the base prompt first, the user's
    ``system`` setting, the date).

    :param settings: the session's settings.
    :param workspace: the workspace root.
    :param messages: the conversation view about to be sent (read only).
    :param provider: the provider's name.
    :param model: the model's name.
    :param conversation: the conversation the call answers (keep per-conversation state in
        ``conversation.stash``), or None when the sections are asked for without one.
    :return: a list of :class:`chatcli.PromptSection`, or None. Mark material that changes
        between calls ``stable=False`` so it is placed after the cached prefix. A wrapper
        receives the list of every implementation's list and returns such a list.

    A model that does not use tools (``Capabilities.uses_tools=False``, the offline model; or
    ``[providers.NAME] tools = false``) gets a lean request: the engine keeps only the sections
    marked ``essential=True`` (mark what the user chose to have there: a persona, an attached
    file, a pinned skill) and drops the rest (catalogs, instructions for tools it is not
    offered). A section marked ``needs_tools=True`` (an agent run's instructions) makes the
    request a full one, tools included: mark it only when the user asked for that work.
    """


@hookspec
def before_request(request: ChatRequest, conversation: Conversation) -> None:
    """A request is about to be sent to the provider.

    Called from the engine before every model call (retries of the same call excluded), after
    ``prompt_sections``.

    :param request: the :class:`chatcli.ChatRequest`; implementations may change it in place
        (add a section, set an option, trim tools).
    :param conversation: the conversation it answers.

    The return value is ignored. A :class:`chatcli.ConfigError` raised here refuses the call
    and ends the turn with it (a managed spend limit); any other exception is reported.
    """


@hookspec
def after_response(message: Message | None, error: ChatcliError | None,
                   conversation: Conversation, purpose: str) -> None:
    """A model call ended, however it ended.

    Called from the engine once for every ``before_request``: after a complete answer, an
    interrupted one (Ctrl+C, the iterator closed), and a failed one. Also called, only for the
    implementations that take ``purpose`` (observers counting every call: the cost plugin), when
    a model call a plugin makes for itself through :meth:`chatcli.Engine.side_call` ends (a
    compaction summary, a memory extraction), on the thread that made it; an implementation
    without ``purpose`` sees the turns' calls only.

    :param message: the answer as appended to the conversation (``message.interrupted`` when it
        was cut short), or None when nothing arrived before it failed or was interrupted. For a
        side call: the answer with its ``usage``, ``provider`` and ``model``, not appended.
    :param error: the :class:`chatcli.ChatcliError` that ended the call, or None.
    :param conversation: the conversation.
    :param purpose: the request's :attr:`chatcli.ChatRequest.purpose`: "chat" for a turn's
        call ("agent" or "coder" in an agent run), else the side call's ("compaction", "memory").

    The return value is ignored.
    """


@hookspec(firstresult=True)
def answer_author(conversation: Conversation) -> Author | None:
    """Who writes the next answer of ``conversation``, when a plugin speaks through someone (a
    persona). First result wins.

    Called from the engine when it appends an answer (once per model call, on the turn's
    thread), which records ``author.name`` as the message's :attr:`chatcli.Message.author`; and
    by the front ends when an answer starts to show (its first text or tool call), which print
    ``author.label`` above it in ``author.style`` (as plain text under ``NO_COLOR``; ``chatcli
    -p`` only on a terminal). Both calls come after the turn's ``user_prompt_submitted``.

    :param conversation: the conversation being answered; its last user message is the one the
        answer replies to.
    :return: a :class:`chatcli.Author` (name, label, style), or None when chatcli answers as
        itself: no label is shown and no author recorded.
    """


@hookspec(firstresult=True)
def authorize_tool_call(call: ToolCallPart, tool: ToolSpec,
                        context: ToolContext) -> Decision | Verdict | None:
    """Decide whether a tool call may run. First result wins.

    Called from the engine before each tool call whose arguments validated, in the order the
    model made the calls, on the turn's thread.

    :param call: the call the model made (read only).
    :param tool: the tool's spec (name, schema, risk class, and ``subject``: the argument that
        permission rules match).
    :param context: the workspace root, the settings, the conversation and whether a person can
        be asked.
    :return: a :class:`chatcli.Decision` — ``ALLOW``, ``DENY``, ``ASK`` (ask the person; denied in
        non-interactive runs) — or a :class:`chatcli.Verdict` carrying it with a reason (sent to
        the model on a deny, shown to the person on an ask) and the rule an "always" answer would
        save; or None to leave the decision to the next plugin. When no plugin decides, ``read``
        tools are allowed and every other risk class is asked.
    """


@hookspec
def tool_call_decided(call: ToolCallPart, tool: ToolSpec, allowed: bool, approval: Approval | None,
                      verdict: Verdict, conversation: Conversation | None) -> None:
    """A tool call was decided: ``allowed`` says whether it runs or is refused.

    Called from the engine for every call whose arguments validated, once its decision is made
    — by the policy (``authorize_tool_call`` or the default), or by the person when it asked —
    on the turn's thread, in the order the model made the calls, before an allowed call runs
    (a call that is not read-only runs right after, once the read-only calls decided before it
    ran; consecutive read-only calls are decided, then run together). ``after_tool_call``
    follows with each result. This is where a plugin notes that a call starts (a workspace
    snapshot before a write, a ``PreToolUse`` user hook), and where a policy plugin remembers a
    ``session`` or ``always`` answer (``always``: as the rule ``verdict.rule``).

    :param allowed: True when the call runs, False when it is refused.
    :param approval: the person's :class:`chatcli.Approval` (allow or not, its scope, their
        reason) when they were asked; None when the policy decided alone.
    :param verdict: what the policy said (its decision, reason and rule).
    :param conversation: the conversation the call belongs to (None outside one).

    The return value is ignored.
    """


@hookspec
def after_tool_call(call: ToolCallPart, result: ToolResultPart, conversation: Conversation) -> None:
    """A tool call produced ``result`` (``result.is_error`` for failures, denials, bad arguments).

    Called from the engine for every tool call the model made, whether it ran or not, before the
    results are appended to the conversation.

    The return value is ignored.
    """


# --------------------------------------------- The conversation log: observers (persistence, audit)


@hookspec
def message_appended(conversation: Conversation, message: Message) -> None:
    """A message (user, assistant, tool results) was appended to the conversation log.

    Called synchronously from :meth:`chatcli.Conversation.append`, on the appending thread. This
    is the persistence point: a session store writes ``message`` here, so a crash loses nothing
    already appended.

    The return value is ignored.
    """


@hookspec
def checkpoint_created(conversation: Conversation, checkpoint: Checkpoint) -> None:
    """A checkpoint was taken: one before each model call.

    Called synchronously from :meth:`chatcli.Conversation.checkpoint`, which the engine calls
    before every model call of a turn. The first call of a turn records the head before the
    user's message (rewinding to it brings back the state before that message was sent); later
    calls of the same turn (after tool results) record the head at that moment.

    The return value is ignored.
    """


@hookspec
def head_moved(conversation: Conversation, head: str | None, reason: str) -> None:
    """The conversation's head moved without an append.

    Called synchronously from :meth:`chatcli.Conversation.move_head` and ``undo`` (``/rewind``,
    ``/clear``, ``/retry``, Esc Esc), on the thread that moved it. ``reason`` is "rewind",
    "undo", "clear", or "retry" (the head goes back to the last user message so that it is
    answered again). Nothing is deleted: messages after the new head stay in the log.

    The return value is ignored.
    """


@hookspec
def view_changed(conversation: Conversation, reason: str, strategy: str, removed: int) -> None:
    """The conversation's view changes: a compaction starts, is recorded, or is undone.

    ``reason`` says which:

    - ``"compacting"``: ``strategy`` (its name) is about to run, from the compaction run of
      ``compact_view`` (before a model call that passed the threshold, or ``/compact``), once
      per strategy that runs; ``removed`` is 0. User hooks map ``PreCompact`` here.
    - ``"compact"``: a compaction was added (``conversation.compactions[-1]`` is it): the
      ``removed`` messages of the view are now represented by its replacement; ``strategy``
      made it. Called synchronously from :meth:`chatcli.Conversation.compact`. This is where a
      session store persists ``conversation.compactions``; user hooks map ``PostCompact`` here.
    - ``"undo"``: the newest compaction was removed (:meth:`Conversation.undo_compaction`);
      ``strategy`` is ``""`` and ``removed`` 0.

    The return value is ignored.
    """
