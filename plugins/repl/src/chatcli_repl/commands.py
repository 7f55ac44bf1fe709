"""The built-in slash commands (registered through the hook like any plugin's) and routing."""

from __future__ import annotations

import difflib
import shlex
import threading
from typing import Any

from chatcli import ChatcliError, SlashCommand, translation

_, ngettext = translation(__name__)


def is_command(text: str) -> bool:
    """Whether a sent line is a ``/command``, not a message that starts with a path.

    ``/usr/lib/x.so: cannot open`` or a pasted ``/home/me/app.py:12: TypeError`` trace is a
    question for the model: a command name never holds another ``/``.
    """
    stripped = text.lstrip()
    if not stripped.startswith("/"):
        return False
    words = stripped[1:].split(maxsplit=1)
    return not words or "/" not in words[0]


def dispatch(app: Any, line: str) -> None:
    """Run ``/name args`` from ``app.host.slash_commands()``; unknown names get a suggestion.
    A server's session (``--remote``: it has ``remote_command``) runs every command but
    ``/exit`` there."""
    name, _sep, argument = line[1:].partition(" ")
    remote = getattr(app.session, "remote_command", None)
    if remote is not None and name not in ("exit", "quit"):
        _run_remote(app, remote, line)
        return
    commands = app.host.slash_commands()
    command = commands.get(name) or next(
        (c for c in commands.values() if name in c.aliases), None)
    if command is None:
        names = sorted({*commands, *(a for c in commands.values() for a in c.aliases)})
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        text = (_("unknown command /{name} — did you mean /{close}?").format(
                    name=name, close=close[0]) if close else
                _("unknown command /{name} — /help lists the commands").format(name=name))
        app.console.print(text, style="yellow", markup=False)
        return
    try:
        command.run(app, argument.strip())
    except ChatcliError as err:
        app.console.print(f"✗ {err}", style="red", markup=False)
    except Exception as err:  # a plugin's command must not end the chat
        app.console.print(_("✗ /{name} failed: {kind}: {error}").format(
            name=command.name, kind=type(err).__name__, error=err), style="red", markup=False)


def _run_remote(app: Any, remote: Any, line: str) -> None:
    """A command on the server: its output printed as it comes (raw: the server's colours),
    its menus asked here."""
    console = app.console
    color = console.color_system is not None and not console.no_color
    try:
        for text in remote(line, width=console.width, color=color, pick=app.pick):
            console.file.write(text)
            console.file.flush()
    except ChatcliError as err:
        console.print(f"✗ {err}", style="red", markup=False)


def _help(app: Any, argument: str) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    for name, command in sorted(app.host.slash_commands().items()):
        # the help text says how to use sub-commands; Tab completes them
        table.add_row(Text(f"/{name}", style="bold"), Text(command.help))
    app.console.print(table)
    app.console.print(_("Alt+Enter or Ctrl+J: new line · Ctrl+C: stop an answer · Esc Esc: "
                        "rewind · Ctrl+D: quit · @path completes files"), style="dim")


def _exit(app: Any, argument: str) -> None:
    app.exit()


def _clear(app: Any, argument: str) -> None:
    app.conversation.clear()
    app.console.print(_("conversation cleared (the log keeps it; /rewind can go back)"),
                      style="dim")


def _words(argument: str, usage: str) -> list[str]:
    """Split a command's argument like a shell; unbalanced quotes are a usage error."""
    try:
        return shlex.split(argument)
    except ValueError as err:  # "No closing quotation"
        raise ChatcliError(_("cannot read the arguments ({reason})").format(
            reason=str(err).lower()), usage) from None


SWITCH_USAGE = _("use /switch PROVIDER[/MODEL] or /switch --model MODEL")


def _switch(app: Any, argument: str) -> None:
    args = _words(argument, SWITCH_USAGE)
    provider = model = None
    while args:
        arg = args.pop(0)
        if arg in ("--model", "-m"):
            if not args:
                raise ChatcliError(_("{option} needs a model name").format(option=arg),
                                   SWITCH_USAGE)
            model = args.pop(0)
        elif arg.startswith("--model="):
            model = arg.split("=", 1)[1]
        elif provider is None:
            provider, _sep, slash_model = arg.partition("/")
            model = model or slash_model or None
        else:
            raise ChatcliError(_("unexpected argument '{argument}'").format(argument=arg),
                               SWITCH_USAGE)
    if provider is None and model is None:
        raise ChatcliError(_("nothing to switch to"), SWITCH_USAGE)
    app.session.switch(provider=provider, model=model)
    _say_engine(app, now=True)
    if model:
        _check_model(app)


def _say_engine(app: Any, now: bool = False) -> None:
    engine = f"{app.session.provider_name}/{app.session.model}"
    text = (_("now using {engine}") if now else _("using {engine}")).format(engine=engine)
    app.console.print(text, style="dim", markup=False)


#: Seconds ``/switch`` waits for a model list still being fetched (Tab started it).
LIST_WAIT = 3.0


def _check_model(app: Any) -> None:
    """Warn when the model just chosen is not in the list its provider's service gave (fetched
    for completion this session): a typo would otherwise show only as the next answer's error.
    The switch stands (a list may leave out aliases and fine-tunes)."""
    name, model = app.session.provider_name, app.session.model
    listed = _remote_models(app).fetched(name, LIST_WAIT)
    spec = app.host.providers().get(name)
    if not listed or model in listed or (spec is not None and model in spec.models):
        return
    close = difflib.get_close_matches(model, sorted(set(listed)), n=3, cutoff=0.4)
    count = len(set(listed))
    hint = (_("closest: {names}").format(names=", ".join(close)) if close else
            ngettext("/switch {name}/ and Tab lists its {count} model",
                     "/switch {name}/ and Tab lists its {count} models", count).format(
                         name=name, count=count))
    app.console.print(_("⚠ {name} does not list a model '{model}' — {hint} (using it anyway)")
                      .format(name=name, model=model, hint=hint),
                      style="yellow", markup=False, soft_wrap=True)


def _model(app: Any, argument: str) -> None:
    if argument:
        app.session.switch(model=argument)
        _say_engine(app, now=True)
        _check_model(app)
    else:
        _say_engine(app)


def _provider(app: Any, argument: str) -> None:
    if argument:
        app.session.switch(provider=argument)
        _say_engine(app, now=True)
        return
    _say_engine(app)
    names = ", ".join(sorted(app.host.providers()))
    app.console.print(_("installed providers: {names}").format(names=names), style="dim",
                      markup=False)


def _system(app: Any, argument: str) -> None:
    if argument:
        app.session.update_settings(system=None if argument in ("-", "none", "off") else argument)
        app.console.print(_("system prompt updated"), style="dim")
    else:
        app.console.print(app.settings.system or _("(no extra system prompt)"), markup=False)


def _retry(app: Any, argument: str) -> None:
    from chatcli_repl.turn import retry

    retry(app)


def _config(app: Any, argument: str) -> None:
    from chatcli import user_config_path
    from chatcli_config_edit import get_value, set_value
    from chatcli_workspace import mask_secrets

    args = _words(argument, _("use /config [list] | get KEY | set KEY VALUE"))
    if not args or args == ["list"]:  # secrets show as *** (`chatcli config get --reveal`)
        data = mask_secrets(app.settings.model_dump(exclude_none=True))
        for key, value in sorted(_flatten(data)):
            app.console.print(f"{key} = {value!r}", markup=False)
        return
    if args[0] == "get" and len(args) == 2:
        secret = any(mask_secrets({part: "x"}) == {part: "***"} for part in args[1].split("."))
        value = mask_secrets(get_value(app.settings, args[1]), secret)
        app.console.print(repr(value), markup=False)
        return
    if args[0] == "set" and len(args) == 3:
        set_value(user_config_path(), args[1], args[2])
        top = args[1].split(".")[0]
        if "." not in args[1] and top in type(app.settings).model_fields:
            from chatcli import load_settings

            app.session.update_settings(**{top: getattr(load_settings(), top)})
        app.console.print(_("saved {key} in {path}").format(key=args[1], path=user_config_path()),
                          style="dim", markup=False)
        return
    raise ChatcliError(_("usage: /config [list] | get KEY | set KEY VALUE"))


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in data.items():
        if isinstance(value, dict) and value:
            items.extend(_flatten(value, f"{prefix}{key}."))
        elif key != "api_key":
            items.append((f"{prefix}{key}", value))
    return items


class RemoteModels:
    """The models each provider's service lists, fetched on a background thread the first time
    ``/switch`` completes that provider and kept for the session (a failure, such as no key or
    a server that is down, counts as an empty list: typing is never blocked or interrupted)."""

    def __init__(self) -> None:
        self._lists: dict[str, list[str]] = {}
        self._asked: dict[str, threading.Event] = {}  # set once that list is in
        self._lock = threading.Lock()

    def fetched(self, name: str, wait: float = 0.0) -> list[str] | None:
        """What ``name`` lists, if it was fetched — waiting up to ``wait`` seconds for a fetch
        under way; None when it was never asked for (nothing is fetched here)."""
        with self._lock:
            arrived = self._asked.get(name)
        if arrived is None:
            return None
        arrived.wait(wait)
        with self._lock:
            return self._lists.get(name)

    def get(self, app: Any, name: str) -> list[str]:
        """What ``name`` lists, or nothing yet (the fetch starts then, once)."""
        with self._lock:
            if name in self._lists:
                return self._lists[name]
            if name in self._asked:
                return []
            self._asked[name] = threading.Event()
        threading.Thread(target=self._fetch, args=(app, name), daemon=True,
                         name=f"chatcli-models-{name}").start()
        return []

    def _fetch(self, app: Any, name: str) -> None:
        from chatcli import ChatcliError
        from chatcli_provider_kit import remote_models

        spec = app.host.providers().get(name)
        models: list[str] = []
        try:
            if spec is not None and spec.capabilities.model_list:
                models = remote_models(spec, app.settings, timeout=10.0)
        except ChatcliError:
            pass
        except Exception:  # a plugin's bug must not reach the chat
            pass
        with self._lock:
            self._lists[name] = models
            self._asked[name].set()
        if models:
            _refresh_completion(app, name)


def _refresh_completion(app: Any, name: str) -> None:
    """Show the new names now if the menu for ``/switch NAME…`` is still being typed."""
    ui, loop = getattr(app, "ui", None), getattr(app, "loop", None)
    if ui is None or loop is None:
        return

    def apply() -> None:
        buffer = ui.current_buffer
        if buffer.text.startswith(("/switch ", "/provider ")) and name in buffer.text:
            buffer.start_completion(select_first=False)

    loop.call_soon_threadsafe(apply)


def _remote_models(app: Any) -> RemoteModels:
    cache = getattr(app, "_remote_models", None)
    if cache is None:
        cache = RemoteModels()
        app._remote_models = cache
    return cache


def _complete_providers(app: Any, text: str) -> list[str]:
    return sorted(app.host.providers())


def _complete_switch(app: Any, text: str) -> list[str]:
    """``/switch`` completes provider names, then ``PROVIDER/MODEL`` for the providers the text
    names: the models chatcli knows at once and, once ``PROVIDER/`` is typed, those the service
    lists (fetched in the background that first time)."""
    specs = app.host.providers()
    names = sorted(specs)
    word = text.split()[-1] if text.split() and not text.endswith(" ") else ""
    if not word or word.startswith("-"):
        return names
    head, slash, _rest = word.partition("/")
    wanted = [n for n in names if n == head] if slash else [n for n in names if n.startswith(head)]
    candidates = list(names)
    for name in wanted:
        fetched = _remote_models(app).get(app, name) if slash else []
        known = [*specs[name].models, *fetched]
        candidates += [f"{name}/{model}" for model in dict.fromkeys(known)]
    return candidates


def builtin_commands() -> list[SlashCommand]:
    """The REPL's own commands."""
    return [
        SlashCommand(name="help", help=_("list the commands"), run=_help, aliases=["?"]),
        SlashCommand(name="exit", help=_("leave the chat"), run=_exit, aliases=["quit"]),
        SlashCommand(name="clear", help=_("start over with an empty conversation view"),
                     run=_clear),
        SlashCommand(name="switch", help=_("use another provider and/or model: "
                                           "/switch PROVIDER[/MODEL] or /switch --model MODEL"),
                     run=_switch, complete=_complete_switch),
        SlashCommand(name="model", help=_("show or change the model"), run=_model),
        SlashCommand(name="provider", help=_("show or change the provider"), run=_provider,
                     complete=_complete_providers),
        SlashCommand(name="system", help=_("show or set extra system prompt text ('-' clears)"),
                     run=_system),
        SlashCommand(name="retry", help=_("send the last message again"), run=_retry),
        SlashCommand(name="config", help=_("show settings, or /config get KEY | set KEY VALUE"),
                     run=_config, subcommands=["list", "get", "set"]),
    ]
