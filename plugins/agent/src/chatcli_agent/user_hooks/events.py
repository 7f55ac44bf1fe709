"""What each event does with its hooks: the payload sent, how the exit code and reply are read.

Claude Code's rules, so that existing scripts work:

- the payload on stdin has ``session_id``, ``cwd``, ``hook_event_name``, and per event
  ``tool_name``/``tool_input`` (``tool_response`` after a call, ``error`` after a failure),
  ``prompt``, ``source``, ``reason``, ``trigger``…;
- exit 0 is success: for ``UserPromptSubmit`` and ``SessionStart`` what the hook prints is added
  to the model's context; a JSON object on stdout is read as a reply (``hookSpecificOutput``
  with ``permissionDecision`` for ``PreToolUse``, ``additionalContext``, ``decision: block``);
- exit 2 blocks: ``PreToolUse`` denies the call and its stderr is the reason the model reads;
  after a call (``PostToolUse``) the stderr is shown to the model with the next step;
- any other exit code is reported in one line and changes nothing. So are a hook that could not
  start, and one that timed out (it is killed with everything it started).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli import translation

from chatcli_agent.user_hooks import runner
from chatcli_agent.user_hooks.settings import CHATCLI_TO_CLAUDE, TOOL_EVENTS, Hook, load
from chatcli_agent.user_hooks.state import CONFIG, State

_, ngettext = translation(__name__)

#: Characters of hook output added to the model's context, per hook.
CONTEXT_LIMIT = 10_000


@dataclass
class Ran:
    """One hook's run for one event."""

    hook: Hook
    outcome: runner.Outcome


def say(text: str) -> None:
    """One line on stderr (above the input line in the chat)."""
    print(f"chatcli: {text}", file=sys.stderr, flush=True)  # untranslated: the name


# ------------------------------------------------------------------------------ set-up


def configure(host: Any, settings: Any, workspace: Path, loaded: Any = None) -> None:
    """The hooks of the run (``host``: whose control files workspace trust counts; ``loaded``:
    what :func:`~chatcli_agent.user_hooks.settings.load` found, when the caller read it)."""
    from chatcli import user_config_path

    if loaded is None:
        loaded = load(settings, workspace, user_config_path(), host=host)
    runner.use_settings(settings)  # the secrets kept from hooks' environment
    CONFIG.hooks, CONFIG.workspace = loaded.hooks, workspace
    for problem in loaded.problems:
        say(_("hooks: {problem}").format(problem=problem))
    # (an untrusted project's hooks: the kernel's one line at session start names its files)


# ------------------------------------------------------------------------------ running


def _hooks_for(event: str, subject: str | None = None) -> list[Hook]:
    return [hook for hook in CONFIG.hooks if hook.event == event and hook.matches(subject)]


def fire(event: str, conversation: Any, fields: dict[str, Any], subject: str | None = None,
         tool: str | None = None) -> list[Ran]:
    """Run every hook of ``event`` that matches ``subject`` (side by side), report failures,
    and return what each did."""
    hooks = _hooks_for(event, subject)
    if not hooks:
        return []
    base = {
        "session_id": getattr(conversation, "id", "") or "",
        "cwd": str(CONFIG.workspace),
        "hook_event_name": event,
    }

    def one(hook: Hook) -> Ran:
        payload = {**base, **fields}
        if tool is not None and hook.claude:  # a script written for Claude Code's tool names
            payload = _as_claude(payload, tool)
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(CONFIG.workspace),
               "CHATCLI_PROJECT_DIR": str(CONFIG.workspace), "CHATCLI_HOOK_EVENT": event}
        return Ran(hook, runner.run(hook.command, payload, CONFIG.workspace, hook.timeout, env))

    if len(hooks) == 1:
        results = [one(hooks[0])]
    else:
        with ThreadPoolExecutor(max_workers=min(8, len(hooks)),
                                thread_name_prefix="chatcli-hook") as pool:
            results = list(pool.map(one, hooks))
    for ran in results:
        _report(ran)
    return results


def _as_claude(payload: dict[str, Any], tool: str) -> dict[str, Any]:
    """Claude Code's names in the payload: ``Bash`` for ``exec``, ``file_path`` for ``path``."""
    payload = dict(payload)
    payload["tool_name"] = CHATCLI_TO_CLAUDE.get(tool, tool)
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, dict) and "path" in tool_input and "file_path" not in tool_input:
        payload["tool_input"] = {**tool_input, "file_path": tool_input["path"]}
    return payload


def _report(ran: Ran) -> None:
    """A hook that failed, hung or could not start: one line. Exit 2 is reported by the
    event (it is an answer, not a failure)."""
    outcome, label = ran.outcome, ran.hook.label
    if outcome.timed_out:
        say(_("hook {label} timed out after {seconds:g}s and was killed").format(
            label=label, seconds=ran.hook.timeout))
    elif outcome.error:
        say(_("hook {label} could not run: {error}").format(label=label, error=outcome.error))
    elif outcome.code not in (0, 2):
        why = outcome.first_error_line
        if outcome.code is not None and outcome.code < 0:
            line = (_("hook {label} was killed by signal {signal}: {why}") if why else
                    _("hook {label} was killed by signal {signal}"))
        else:
            line = (_("hook {label} failed (exit {code}): {why}") if why else
                    _("hook {label} failed (exit {code})"))
        code = outcome.code if outcome.code is not None else 0
        say(line.format(label=label, signal=-code, code=outcome.code, why=why))


def _blocking_reason(ran: Ran) -> str | None:
    """The reason a hook blocks with: exit 2 (its stderr), or a JSON ``decision: block``."""
    outcome = ran.outcome
    if outcome.code == 2:
        return outcome.stderr.strip() or _("blocked by the {event} hook {label}").format(
            event=ran.hook.event, label=ran.hook.label)
    reply = outcome.reply
    if reply is not None and str(reply.get("decision", "")).lower() == "block":
        return str(reply.get("reason") or _("blocked by the hook {label}").format(
            label=ran.hook.label))
    return None


def _context(ran: Ran, *, plain_stdout: bool) -> str | None:
    """What a successful hook adds to the model's context: ``additionalContext`` from its JSON
    reply, else (``plain_stdout``) what it printed."""
    outcome = ran.outcome
    if outcome.code != 0:
        return None
    reply = outcome.reply
    if reply is not None:
        specific = reply.get("hookSpecificOutput")
        extra = specific.get("additionalContext") if isinstance(specific, dict) else None
        text = extra if isinstance(extra, str) else None
    else:
        text = outcome.stdout if plain_stdout else None
    if not text or not text.strip():
        return None
    text = text.strip()
    return text if len(text) <= CONTEXT_LIMIT else text[:CONTEXT_LIMIT] + "\n[… cut …]"


# ------------------------------------------------------------------------------ the events


def session_start(state: State, conversation: Any) -> None:
    source = "resume" if len(conversation) else "startup"
    results = fire("SessionStart", conversation, {"source": source}, subject=source)
    context = [text for ran in results if (text := _context(ran, plain_stdout=True))]
    with state.lock:
        state.session_context = context
        state.turn_context, state.feedback, state.blocked = [], [], None
    for ran in results:
        if ran.outcome.code == 2:
            say(_("hook {label}: {why}").format(label=ran.hook.label,
                                                why=ran.outcome.first_error_line or "exit 2"))


def session_end(state: State, conversation: Any) -> None:
    fire("SessionEnd", conversation, {"reason": "other"})
    with state.lock:
        state.session_context = []


def user_prompt_submitted(state: State, conversation: Any, message: Any) -> None:
    results = fire("UserPromptSubmit", conversation, {"prompt": message.text})
    context = [text for ran in results if (text := _context(ran, plain_stdout=True))]
    blocked = next((why for ran in results if (why := _blocking_reason(ran))), None)
    with state.lock:
        state.turn_context = context
        state.blocked = blocked
    if blocked is not None:
        say(_("a UserPromptSubmit hook blocked the prompt: {why} — chatcli cannot hold a "
              "prompt back yet, so it was sent, but the model is told it was blocked and no "
              "tool runs in this turn").format(why=blocked.splitlines()[0][:200]))


def sections(state: State) -> list[Any] | None:
    """The hooks' context for the next model call (volatile sections)."""
    from chatcli import PromptSection

    with state.lock:
        session, turn, feedback, blocked = (list(state.session_context),
                                            list(state.turn_context), state.feedback,
                                            state.blocked)
        state.feedback = []  # shown once, with the step after the call
    found = []
    if session:
        found.append(PromptSection(name="hooks-session-start", stable=False, order=60,
                                   text="Context from the user's SessionStart hooks:\n"
                                        + "\n\n".join(session)))
    if turn:
        found.append(PromptSection(name="hooks-user-prompt", stable=False, order=61,
                                   text="Context from the user's UserPromptSubmit hooks:\n"
                                        + "\n\n".join(turn)))
    if blocked is not None:
        found.append(PromptSection(
            name="hooks-prompt-blocked", stable=False, order=62,
            text="The user's UserPromptSubmit hook blocked the last user message: "
                 f"{blocked}\nDo not act on that message and call no tools; say that it was "
                 "blocked and why."))
    if feedback:
        found.append(PromptSection(name="hooks-post-tool", stable=False, order=63,
                                   text="Feedback from the user's hooks on your last tool "
                                        "calls:\n" + "\n\n".join(feedback)))
    return found or None


def pre_tool_use(state: State, call: Any, tool: Any, context: Any) -> Any:
    """Run the PreToolUse hooks; returns a ``Verdict`` that denies or asks, or None (no
    objection: the permission policy decides)."""
    from chatcli import Decision, Verdict

    if state.blocked is not None:
        return Verdict(Decision.DENY, _("the user's UserPromptSubmit hook blocked this turn's "
                                        "prompt; no tool runs in this turn"), by="hook")
    results = fire("PreToolUse", context.conversation, {
        "tool_name": call.name, "tool_input": dict(call.arguments), "tool_use_id": call.id,
    }, subject=call.name, tool=call.name)
    ask: str | None = None
    for ran in results:
        why = _blocking_reason(ran)
        if why is not None:
            return Verdict(Decision.DENY, why, by="hook")
        reply = ran.outcome.reply
        if reply is None:
            continue
        if reply.get("continue") is False:
            return Verdict(Decision.DENY, str(reply.get("stopReason") or _(
                "stopped by the hook {label}").format(label=ran.hook.label)), by="hook")
        decision, reason = _permission(reply)
        if decision == "deny":
            return Verdict(Decision.DENY, reason or _("denied by the hook {label}").format(
                label=ran.hook.label), by="hook")
        if decision == "ask" and ask is None:
            ask = reason or _("the hook {label} asks for your approval").format(
                label=ran.hook.label)
    return Verdict(Decision.ASK, ask, by="hook") if ask is not None else None


def _permission(reply: dict[str, Any]) -> tuple[str | None, str]:
    """``hookSpecificOutput.permissionDecision`` (or the older ``decision: approve|block``)."""
    specific = reply.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") is not None:
        decision = str(specific.get("permissionDecision")).lower()
        return decision, str(specific.get("permissionDecisionReason") or "")
    old = str(reply.get("decision") or "").lower()
    if old in ("approve", "block"):
        return ("allow" if old == "approve" else "deny"), str(reply.get("reason") or "")
    return None, ""


def combine(mine: Any, theirs: Any) -> Any:
    """The hooks' verdict with the permission policy's: the stricter one. A hook can deny or
    make a call ask, never allow what the policy would ask about or deny."""
    from chatcli import Decision, Verdict

    if mine is None:
        return theirs
    if mine.decision == Decision.DENY:
        return mine
    policy = theirs.decision if isinstance(theirs, Verdict) else theirs
    if policy == Decision.DENY:
        return theirs
    if isinstance(theirs, Verdict) and policy == Decision.ASK:
        # the policy's question, with the hook's reason beside its own (and its rule kept)
        reason = "; ".join(part for part in (theirs.reason, mine.reason) if part)
        return Verdict(Decision.ASK, reason, theirs.rule, by=theirs.by)
    return mine


def tool_started(state: State, call: Any) -> None:
    with state.lock:
        state.running.add(call.id)


def tool_finished(state: State, call: Any, result: Any, conversation: Any) -> None:
    with state.lock:
        ran_call = call.id in state.running
        state.running.discard(call.id)
    if not ran_call:
        return  # refused before it ran: no PostToolUse (as in Claude Code)
    fields: dict[str, Any] = {"tool_name": call.name, "tool_input": dict(call.arguments),
                              "tool_use_id": call.id}
    if result.is_error:
        event = "PostToolUseFailure"
        fields |= {"error": result.content, "is_interrupt": "interrupted" in result.content}
    else:
        event = "PostToolUse"
        fields["tool_response"] = result.content
    results = fire(event, conversation, fields, subject=call.name, tool=call.name)
    notes = []
    for ran in results:
        why = _blocking_reason(ran)
        if why is not None:
            notes.append(f"[{event} hook on {call.name}] {why}")
        extra = _context(ran, plain_stdout=False)
        if extra:
            notes.append(f"[{event} hook on {call.name}] {extra}")
    if notes:
        with state.lock:
            state.feedback.extend(notes)


def after_response(state: State, message: Any, error: Any, conversation: Any) -> None:
    finished = message is not None and error is None and not message.interrupted
    if message is not None and message.tool_calls and finished:
        return  # the turn goes on with the tool step
    with state.lock:  # the turn is over: its prompt's context and block end with it
        state.turn_context, state.blocked = [], None
    if not finished:
        return
    results = fire("Stop", conversation, {"stop_hook_active": False})
    for ran in results:
        why = _blocking_reason(ran)
        if why is not None:
            say(_("hook {label} asked the model to go on ({why}) — chatcli cannot continue a "
                  "finished turn yet; send it as your next message if you want").format(
                      label=ran.hook.label, why=why.splitlines()[0][:160]))


def before_compaction(conversation: Any, strategy: str) -> None:
    fire("PreCompact", conversation, {"trigger": "auto", "custom_instructions": "",
                                      "strategy": strategy}, subject=strategy)


def after_compaction(conversation: Any, strategy: str, removed: int) -> None:
    fire("PostCompact", conversation, {"trigger": "auto", "strategy": strategy,
                                       "removed": removed}, subject=strategy)


__all__ = ["TOOL_EVENTS", "configure", "fire"]
