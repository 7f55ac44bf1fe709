"""One run of a mode (``/agent TASK``, ``/coder TASK``): its state, its trace and its report.

A run is one turn of the chat's conversation (``app.ask``), made with a higher turn limit
(``max_turns`` is set to the run's step limit and put back afterwards, whatever happens), with
compaction at the agent loop's threshold (``compact_threshold`` becomes
``agent_compact_threshold`` for the run, put back the same way), with its task message pinned
(``Message.pinned``: compaction never summarises it away), and with two prompt sections while
it lasts: the mode's system prompt (stable) and an anchor reminding the model of the task and
the step it is at (volatile). The plugin's hooks feed the trace: one entry per tool call, with
its step, arguments, result and time.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from chatcli import ChatcliError, translation

from chatcli_agent.modes.prompts import PROMPTS, anchor

_, ngettext = translation(__name__)

#: The step limit of a run when ``[agent] max_steps`` is not set.
DEFAULT_MAX_STEPS = 50
#: The highest ``max_turns`` the kernel accepts.
MOST_STEPS = 500
#: ``chatcli -p``'s exit code for a run that did nothing (no tool call, or all refused).
EXIT_DID_NOTHING = 3


@dataclass
class TraceCall:
    """One tool call of a run, as the trace shows it."""

    step: int
    name: str
    arguments: str
    result: str
    ok: bool
    ran: bool
    seconds: float | None


@dataclass
class Run:
    """A mode's run in progress."""

    mode: str
    task: str
    max_steps: int
    prompt: str
    use_anchor: bool = True
    max_repeated: int = 3
    started: float = field(default_factory=time.monotonic)
    #: model calls made so far (the step the model is at is ``calls + 1`` before a call)
    calls: int = 0
    trace: list[TraceCall] = field(default_factory=list)
    answered_at: int | None = None
    #: the id of the run's task message, once appended (pinned)
    task_message: str | None = None
    #: the command as typed (``/coder fix it``): its checkpoint's label, what /rewind puts back
    typed: str = ""
    #: calls that would change or run something (not read-only) the model made, and ran
    actions_tried: int = 0
    actions_run: int = 0
    #: the calls refused (by the policy or the person), in brief: ``edit(path="calc.py", …)``
    denied: list[str] = field(default_factory=list)
    #: the model gets lean requests (no tools): said before the run, and in its last line
    lean: bool = False
    _starts: dict[str, float] = field(default_factory=dict)
    _last_batch: tuple[Any, ...] | None = None
    _repeats: int = 0

    # ------------------------------------------------------------------ fed by the hooks

    def model_call(self) -> None:
        self.calls += 1

    def appended(self, message: Any) -> None:
        """A message was appended: the run's first message from the person is its task, which
        is pinned so that compaction keeps it verbatim."""
        from chatcli import Role

        if (self.task_message is None and self.calls == 0 and message.role == Role.USER
                and not message.tool_results):
            message.pinned = True
            self.task_message = message.id

    def answer(self, message: Any) -> None:
        """A model call ended with ``message`` (None: nothing arrived)."""
        calls = list(message.tool_calls) if message is not None else []
        if not calls:
            if message is not None and not message.interrupted:
                self.answered_at = self.calls
            return
        batch = tuple((c.name, json.dumps(c.arguments, sort_keys=True, default=str),
                       c.raw_arguments) for c in calls)
        self._repeats = self._repeats + 1 if batch == self._last_batch else 1
        self._last_batch = batch

    def decided(self, call: Any, tool: Any, allowed: bool) -> None:
        """A call was allowed (it runs now) or refused."""
        from chatcli import Risk

        if getattr(tool, "risk", Risk.READ) != Risk.READ:
            self.actions_tried += 1
            self.actions_run += allowed
        if allowed:
            self.tool_started(call)
        else:
            self.denied.append(f"{call.name}({brief_arguments(call, 50)})")

    def tool_started(self, call: Any) -> None:
        self._starts[call.id] = time.monotonic()

    def did_nothing(self) -> str | None:
        """Why the run did nothing of what it was for — no tool call at all, every call
        refused, or every change or command refused — or None when it did something."""
        if not self.trace:
            return _("it made no tool call")
        if not any(entry.ran for entry in self.trace):
            return (_("every tool call it made was denied")
                    if len(self.denied) == len(self.trace) else _("none of its tool calls ran"))
        if self.actions_tried and not self.actions_run:
            return _("every change or command it tried was denied")
        return None

    def tool_finished(self, call: Any, result: Any) -> None:
        start = self._starts.pop(call.id, None)
        self.trace.append(TraceCall(
            step=self.calls, name=call.name, arguments=brief_arguments(call),
            result=brief_result(result.content), ok=not result.is_error, ran=start is not None,
            seconds=None if start is None else time.monotonic() - start))

    # ------------------------------------------------------------------ read by the hooks

    def sections(self) -> list[Any]:
        from chatcli import PromptSection

        sections = [PromptSection(name=f"{self.mode}-mode", text=self.prompt, stable=True,
                                  order=50)]
        if self.use_anchor:
            step = min(self.calls + 1, self.max_steps)
            repeating = self._repeats >= self.max_repeated - 1
            sections.append(PromptSection(
                name="agent-anchor", stable=False, order=50,
                text=anchor(self.task, step, self.max_steps, repeating=repeating)))
        return sections


#: Taken to start or end a run, so that two /agent commands on one conversation cannot both
#: start (a run is kept in the conversation's stash: ``chatcli_agent.modes.state.RUN``).
_lock = threading.Lock()


# ----------------------------------------------------------------------------------- the command


def run_mode(app: Any, mode: str, argument: str) -> None:
    """``/agent TASK`` or ``/coder TASK``: run the task as one turn with the mode's settings
    (one run at a time per conversation: another session's conversation may run its own)."""
    from chatcli import UsageError

    from chatcli_agent.modes.state import RUN

    max_steps_flag, task = parse_argument(mode, argument)
    config = mode_config(app.settings)
    max_steps = max_steps_flag or config["max_steps"]
    run = Run(mode=mode, task=task, max_steps=max_steps, prompt=config[f"{mode}_prompt"],
              use_anchor=config["anchor"], max_repeated=app.settings.max_repeated_calls,
              typed=f"/{mode} {argument.strip()}")
    say = Reporter(app)
    session = app.session
    stash = session.conversation.stash
    with _lock:
        running = stash.get(RUN, None)
        if running is not None:
            raise UsageError(_("a /{mode} run is already in progress").format(
                mode=running.mode), _("wait for it to finish, or stop it with Ctrl+C"))
        stash[RUN] = run
    previous = {"max_turns": session.settings.max_turns,
                "compact_threshold": session.settings.compact_threshold}
    finished = None
    try:
        # the run's step limit, and compaction at the agent loop's threshold while it lasts
        session.update_settings(max_turns=max_steps,
                                compact_threshold=session.settings.agent_compact_threshold)
        say.line(ngettext("▶ {mode} mode · at most {count} step · {task}",
                          "▶ {mode} mode · at most {count} steps · {task}", max_steps).format(
            mode=mode, count=max_steps, task=task_line(task)), "bold cyan")
        run.lean = not _offers_tools(session)
        if run.lean:
            say.line(lean_notice(mode, session), "yellow")
        finished = app.ask(task)
    finally:
        with _lock:
            if stash.get(RUN, None) is run:
                del stash[RUN]
        changed = {key: value for key, value in previous.items()
                   if getattr(session.settings, key) != value}
        if changed:
            session.update_settings(**changed)
    say.report(run, finished)
    why = run.did_nothing() if _answered(finished) else None
    if why is not None and not say.live:  # chatcli -p: a status a script can read
        raise RunDidNothing(_("/{mode} did nothing: {why}{denied}").format(
            mode=mode, why=why, denied=denied_list(run)), fix_hint(run, session))


class RunDidNothing(ChatcliError):
    """A ``-p`` run of ``/agent`` or ``/coder`` that ended without doing anything: no tool
    call, or every call (or every change and command) refused. Exit code 3."""

    exit_code = EXIT_DID_NOTHING


def _answered(finished: Any) -> bool:
    """Whether the run ended with the model's final answer (not stopped, cut or failed)."""
    from chatcli import StopReason

    return (finished is not None and finished.error is None
            and finished.stop_reason not in (StopReason.REPEATED_CALLS, StopReason.TURN_LIMIT,
                                             StopReason.INTERRUPTED, StopReason.ERROR,
                                             StopReason.MAX_TOKENS))


def _offers_tools(session: Any) -> bool:
    """Whether the session's model is offered tools (else it gets lean requests)."""
    try:
        return bool(session.engine.current.tools)
    except Exception:  # a session without an engine (tests' stand-ins): assume it is
        return True


def _tool_providers(session: Any, limit: int = 2) -> list[str]:
    """Installed providers whose models use tools, most preferred first (not the current)."""
    try:
        specs = list(session.host.providers().values())
        current = session.provider_name
    except Exception:
        return []
    usable = [s for s in specs if s.capabilities.uses_tools and s.name != current]
    usable.sort(key=lambda s: -getattr(s, "priority", 0))
    return [s.name for s in usable[:limit]]


def lean_notice(mode: str, session: Any) -> str:
    """What a run says before it starts on a model that gets no tools."""
    where = f"{session.provider_name}/{session.model}"
    names = _tool_providers(session)
    first = names[0] if names else "openai"
    also = _(" (or {names})").format(names=", ".join(names[1:])) if len(names) > 1 else ""
    return _("⚠ {where} gets no tools (a model too small for them): /{mode} can only answer "
             "in text here — it cannot read, edit or run anything. For a model with tools: "
             "`chatcli keys set {first}`{also}, then `chatcli --provider {first}` (in the chat: "
             "/switch {first}/MODEL); or `chatcli config set providers.{provider}.tools true` to "
             "offer them to this model anyway").format(
                 where=where, mode=mode, first=first, also=also, provider=session.provider_name)


def denied_list(run: Run, limit: int = 4) -> str:
    """``; denied: edit(path="a.py"), exec(command="make")`` (the first few), or ""."""
    if not run.denied:
        return ""
    shown = ", ".join(run.denied[:limit])
    if len(run.denied) > limit:
        return _("; denied: {calls} and {count} more").format(calls=shown,
                                                             count=len(run.denied) - limit)
    return _("; denied: {calls}").format(calls=shown)


def fix_hint(run: Run, session: Any) -> str:
    """How to let the next run do something."""
    if run.lean:
        names = _tool_providers(session)
        first = names[0] if names else "openai"
        return _("use a model with tools: `chatcli keys set {first}`, then "
                 "`--provider {first}`").format(first=first)
    if run.denied:
        return _("allow what it needs: --permission-mode accept-edits for edits, "
                 "--allow 'exec(CMD:*)' or --allow execute for commands, or run it in the chat "
                 "(`chatcli`) to be asked")
    return _("say what to change, or run it in the chat (`chatcli`) and look at the answer")


def parse_argument(mode: str, argument: str) -> tuple[int | None, str]:
    """``[--max-steps N] TASK`` → (N or None, TASK); a usage error when the task is missing."""
    from chatcli import UsageError

    usage = _("use /{mode} [--max-steps N] TASK, e.g. /{mode} fix the failing test").format(
        mode=mode)
    text = argument.strip()
    steps: int | None = None
    if text.startswith("--max-steps"):
        flag, _sep, rest = text.partition(" ")
        value = flag.partition("=")[2] if "=" in flag else None
        if value is None:
            value, _sep, rest = rest.strip().partition(" ")
        if not value.isdigit() or not 1 <= int(value) <= MOST_STEPS:
            raise UsageError(_("--max-steps takes a whole number from 1 to {most}, not "
                               "{value!r}").format(most=MOST_STEPS, value=value), usage)
        steps, text = int(value), rest.strip()
    if not text:
        raise UsageError(_("/{mode} needs a task").format(mode=mode), usage)
    return steps, text


def mode_config(settings: Any) -> dict[str, Any]:
    """The ``[agent]`` table, checked, with defaults filled in."""
    from chatcli import ConfigError

    table = settings.plugin_table("agent")
    config: dict[str, Any] = {"max_steps": DEFAULT_MAX_STEPS, "anchor": True,
                              "agent_prompt": PROMPTS["agent"], "coder_prompt": PROMPTS["coder"]}
    steps = table.get("max_steps", DEFAULT_MAX_STEPS)
    if isinstance(steps, str) and steps.strip().isdigit():  # from CHATCLI_AGENT__MAX_STEPS
        steps = int(steps)
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MOST_STEPS:
        raise ConfigError(_("invalid value for 'agent.max_steps': it must be a whole number "
                            "from 1 to {most}, not {value!r:.40}").format(most=MOST_STEPS,
                                                                         value=steps),
                          _("fix it with `chatcli config set agent.max_steps 50`"))
    config["max_steps"] = steps
    use_anchor = table.get("anchor", True)
    if isinstance(use_anchor, str):
        use_anchor = use_anchor.strip().lower() not in ("0", "false", "no", "off")
    config["anchor"] = bool(use_anchor)
    for key in ("agent_prompt", "coder_prompt"):
        value = table.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(_("invalid value for 'agent.{key}': it must be text").format(
                key=key), _("fix it with `chatcli config set agent.{key} \"…\"` or unset it"
                            ).format(key=key))
        config[key] = value
    return config


# ----------------------------------------------------------------------------------- showing it


class Reporter:
    """Where a run's own lines go: the chat above the input line (the REPL, which shows each
    tool call live as it happens), or stderr (``chatcli -p``: stdout holds only the answer)."""

    def __init__(self, app: Any) -> None:
        self.live = bool(getattr(app, "live_trace", False))
        if self.live:
            self.console = app.console
            self.prefix = ""
        else:
            from rich.console import Console

            self.console = Console(stderr=True, highlight=False)
            self.prefix = "chatcli: "

    def line(self, text: str, style: str = "dim") -> None:
        self.console.print(self.prefix + text, style=style, markup=False, soft_wrap=True)

    def report(self, run: Run, finished: Any) -> None:
        """The trace (when the front end did not show it live) and how the run ended."""
        if not self.live and run.trace:
            self.line(_("{mode} trace:").format(mode=run.mode))
            for entry in run.trace:
                self.line("  " + trace_line(entry))
        if not self.live and run.answered_at is not None:
            self.line(_("  step {step} · final answer").format(step=run.answered_at))
        text, style = outcome(run, finished)
        self.line(text, style)


def trace_line(entry: TraceCall) -> str:
    """``step 2 · exec(command="pytest -q") → ✗ exit 1 · 1.20s``."""
    mark = "✓" if entry.ok else "✗"
    took = f" · {entry.seconds:.2f}s" if entry.seconds is not None else _(" · not run")
    return _("step {step} · {name}({arguments}) → {mark} {result}{took}").format(
        step=entry.step, name=entry.name, arguments=entry.arguments, mark=mark,
        result=entry.result, took=took)


def outcome(run: Run, finished: Any) -> tuple[str, str]:
    """The run's last line: how it ended, and its style."""
    from chatcli import StopReason

    seconds = time.monotonic() - run.started
    steps = run.calls
    calls = len(run.trace)
    counts = (ngettext("{count} step", "{count} steps", steps).format(count=steps) + " · "
              + ngettext("{count} tool call", "{count} tool calls", calls).format(count=calls)
              + f" · {seconds:.1f}s")
    who = run.mode
    if finished is None:
        return _("⏹ {who}: stopped at step {step} before the turn finished ({counts})").format(
            who=who, step=steps, counts=counts), "yellow"
    reason = finished.stop_reason
    if reason == StopReason.REPEATED_CALLS:
        return _("⏹ {who}: stopped at step {step}: the model made the same tool calls "
                 "{repeated} times in a row, so they were not run again — it was going in "
                 "circles ({counts})").format(who=who, step=steps, repeated=run.max_repeated,
                                              counts=counts), "yellow"
    if reason == StopReason.TURN_LIMIT:
        return _("⏹ {who}: stopped at the step limit ({limit} model calls) before a final "
                 "answer; ask it to go on, or allow more steps with --max-steps N or [agent] "
                 "max_steps ({counts})").format(who=who, limit=run.max_steps,
                                                counts=counts), "yellow"
    if reason == StopReason.INTERRUPTED:
        return _("⏹ {who}: interrupted at step {step} ({counts})").format(
            who=who, step=steps, counts=counts), "yellow"
    if reason == StopReason.ERROR or finished.error is not None:
        error = str(finished.error or "").strip().splitlines()
        if error:
            return _("✗ {who}: stopped by an error at step {step}: {error} ({counts})").format(
                who=who, step=steps, error=error[0], counts=counts), "red"
        return _("✗ {who}: stopped by an error at step {step} ({counts})").format(
            who=who, step=steps, counts=counts), "red"
    if reason == StopReason.MAX_TOKENS:
        return _("⏹ {who}: the final answer was cut at max_tokens ({counts})").format(
            who=who, counts=counts), "yellow"
    nothing = run.did_nothing()
    if nothing is not None:
        lean = _(" (this model gets no tools)") if run.lean else ""
        return _("⚠ {who}: finished, but {nothing}{lean} — nothing was changed or run"
                 "{denied} ({counts})").format(who=who, nothing=nothing, lean=lean,
                                               denied=denied_list(run), counts=counts), "yellow"
    return _("✔ {who}: done in {counts}").format(who=who, counts=counts), "green"


def task_line(task: str, limit: int = 80) -> str:
    one_line = " ".join(task.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def brief_arguments(call: Any, limit: int = 70) -> str:
    """A call's arguments in brief: ``path="a.py", limit=20``."""
    if call.raw_arguments is not None:
        text = call.raw_arguments
    else:
        text = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
                         for key, value in call.arguments.items())
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def brief_result(content: str, limit: int = 70) -> str:
    """A result in brief: its first non-empty line, and how many lines it has."""
    lines = [line for line in content.splitlines() if line.strip()]
    if not lines:
        return _("(no output)")
    first = " ".join(lines[0].split())
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    more = len(lines) - 1
    if not more:
        return first
    return first + ngettext(" ({count} more line)", " ({count} more lines)", more).format(
        count=more)
