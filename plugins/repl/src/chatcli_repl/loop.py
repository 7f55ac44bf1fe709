"""The REPL's two halves: the input loop (prompt-toolkit, asyncio) and the worker thread.

The input line stays live while an answer streams: what is typed meanwhile is queued and shown as
queued. The worker thread takes messages and commands from the queue in order, runs the engine,
and prints finished markdown blocks above the input line (``patch_stdout``); the block still
growing, the spinner and the queue are drawn in the prompt's message. Ctrl+C while answering sets
the turn's cancel event: the engine keeps the partial answer, marked interrupted.
"""

from __future__ import annotations

import asyncio
import threading

from chatcli import ChatcliError, PluginHost, Role, SessionOptions, Settings, translation

from chatcli_repl.app import ReplApp, WorkItem
from chatcli_repl.attach import user_message
from chatcli_repl.commands import dispatch, is_command
from chatcli_repl.turn import retry, run_turn

_, ngettext = translation(__name__)


def run(options: SessionOptions, host: PluginHost, settings: Settings) -> int:
    """Start the chat with the CLI's options; returns the exit code."""
    from rich.console import Console

    from chatcli_repl.trust import ask_trust

    console = Console(highlight=False)
    if options.extra.get("remote") is None:  # (a server's workspace is the server's to trust)
        settings = ask_trust(console, host, settings, options)  # before anything reads them
    app = ReplApp(host, settings, console, options)
    with app.session.open():
        asyncio.run(_main(app))
    return 0


def _greeting(app: ReplApp) -> None:
    from rich.markup import escape

    session = app.session
    count = len(app.conversation)
    parts = [f"[bold]chatcli[/] · {session.provider_name}/{session.model}"]
    if count:
        parts.append(escape(ngettext("resumed {count} message", "resumed {count} messages",
                                     count).format(count=count)))
    if getattr(session, "remote_command", None) is not None:  # --remote: a server's session
        url = getattr(session, "url", None) or _("a server")
        parts.append(escape(_("on {url}").format(url=url)))
    parts.append(escape(_("/help for commands, Alt+Enter for a new line, Ctrl+D to quit")))
    app.console.print(" · ".join(parts), style="dim", markup=True)
    if count:
        _recap(app)


#: Source lines of the last answer shown when a session is resumed.
RECAP_LINES = 30


def _recap(app: ReplApp) -> None:
    """Show where a resumed conversation stands: the last message sent and its answer."""
    from chatcli_render import render_markdown as markdown

    messages = app.conversation.messages()
    last_user = next((i for i in range(len(messages) - 1, -1, -1)
                      if messages[i].role == Role.USER), None)
    if last_user is None:
        return
    _echo(app, app.last_user_text() or "")
    answer = "\n\n".join(m.text for m in messages[last_user + 1:]
                          if m.role == Role.ASSISTANT and m.text.strip())
    if not answer:
        app.console.print(_("(not answered yet — /retry asks again)"), style="dim")
        return
    lines = answer.splitlines()
    if len(lines) > RECAP_LINES:
        earlier = len(lines) - RECAP_LINES
        app.console.print(ngettext("… ({count} earlier line)", "… ({count} earlier lines)",
                                   earlier).format(count=earlier), style="dim")
        dropped = lines[:-RECAP_LINES]
        open_fence = sum(line.lstrip().startswith(("```", "~~~")) for line in dropped) % 2
        answer = "\n".join((["```"] if open_fence else []) + lines[-RECAP_LINES:])
    if app.settings.markdown:
        app.console.print(markdown(answer))
    else:
        app.console.print(answer, markup=False)
    if messages[-1].role == Role.ASSISTANT and messages[-1].interrupted:
        app.console.print(_("⏹ this answer was interrupted — /retry answers again"),
                          style="yellow", markup=False)


async def _main(app: ReplApp) -> None:
    from prompt_toolkit.patch_stdout import patch_stdout

    from chatcli_repl.input import build_session

    session = build_session(app)
    app.loop = asyncio.get_running_loop()
    with patch_stdout(raw=True):
        _greeting(app)
        app.refresh_status()
        worker = threading.Thread(target=_work, args=(app,), name="chatcli-worker", daemon=True)
        worker.start()
        ticker = asyncio.create_task(_tick(app))
        warned = False
        while not app.exiting:
            app.ui = session.app
            try:
                text = await session.prompt_async(default=app.take_prefill())
            except KeyboardInterrupt:
                if not warned:
                    app.console.print(_("(Ctrl+D or /exit quits)"), style="dim")
                    warned = True
                continue
            except EOFError:
                break
            finally:
                app.ui = None
            warned = False
            if text.strip():
                app.submit(text)
        app.exiting = True
        if app.cancel is not None:
            app.cancel.set()
        question = app.view.question
        if question is not None:
            question.settle(None)
        app.work.put(None)
        await asyncio.to_thread(worker.join, 30)
        ticker.cancel()


#: Seconds between two refreshes of the status line while tool calls run (the worker thread
#: waits for them then: what plugins show — workers running, spend — changes meanwhile).
STATUS_EVERY = 1.0


async def _tick(app: ReplApp) -> None:
    """Redraw the spinner while waiting for an answer; while tool calls run, work out the
    status line again now and then (on a thread of its own: hooks never run while drawing)."""
    refreshing: asyncio.Task[None] | None = None
    last = 0.0
    while True:
        await asyncio.sleep(0.1)
        if app.busy and app.ui is not None:
            app.ui.invalidate()
        now = asyncio.get_running_loop().time()
        if (app.busy and app.view.tools_running and now - last >= STATUS_EVERY
                and (refreshing is None or refreshing.done())):
            last = now
            refreshing = asyncio.create_task(asyncio.to_thread(app.refresh_status))


def _work(app: ReplApp) -> None:
    """The worker thread: messages, commands and retries, one at a time, in order."""
    while True:
        item = app.work.get()
        if item is None or app.exiting:
            return
        app.busy = True
        # a stopped turn's workers that still ask are refused until the next message or
        # command starts (a command asking outside a turn is asked)
        app.turn_cancel = None
        try:
            _handle(app, item)
        except Exception as err:  # never kill the worker: report in one line
            app.console.print(_("error: {kind}: {error}").format(kind=type(err).__name__,
                                                                  error=err),
                              style="red", markup=False)
        finally:
            app.busy = False
            app.cancel = None
            app.view.status = ""
            app.refresh_status()  # (redraws)


def _handle(app: ReplApp, item: WorkItem) -> None:
    kind, text = item
    if kind == "text":
        with app.view.lock:
            if text in app.view.queued:
                app.view.queued.remove(text)
        app.invalidate()
        _echo(app, text)
        if is_command(text):
            dispatch(app, text.strip())
            return
        try:  # a plugin's hook is guarded (its failure reported); the line then goes as typed
            routed = app.host.hook.route_input(app=app, text=text)
        except Exception:
            routed = None
        if isinstance(routed, str) and routed.strip():
            if is_command(routed):
                dispatch(app, routed.strip())
                return
            text = routed
        try:
            message = user_message(text)
        except ChatcliError as err:
            app.console.print(_("✗ {error} — not sent; your message is back in the input line")
                              .format(error=err), style="red", markup=False)
            app.prefill(text)
            return
        run_turn(app, message)
    elif kind == "retry":
        retry(app)


#: Lines of a sent message echoed above the input line (the rest is summarised).
ECHO_LINES = 12


def _echo(app: ReplApp, text: str) -> None:
    from rich.text import Text

    lines = text.splitlines() or [""]
    hidden = len(lines) - ECHO_LINES
    if hidden > 0:  # a huge paste: its start is enough to recognise it
        lines = lines[: ECHO_LINES - 1]
    echo = Text()
    for index, line in enumerate(lines):
        echo.append("› " if index == 0 else "  ", style="bold green")
        echo.append(line + ("\n" if index < len(lines) - 1 else ""), style="bold")
    if hidden > 0:
        # i18n: {count} is 2 or more
        echo.append("\n  " + _("… {count:,} more lines ({chars:,} characters in all)").format(
            count=hidden + 1, chars=len(text)), style="dim")
    app.console.print(echo)

