"""A chain or pool as one :class:`chatcli.Provider`: picks an entry, moves on when it fails.

For each model call the group orders its entries by its strategy and their health (see
:meth:`GroupProvider.plan`), then streams from the first one. An error the kernel's taxonomy
calls the service's (rate limit, server, timeout, network, a stream cut before anything
arrived) records a failure — a cooldown that grows with each failure in a row, an error count —
and the next entry gets the same request. An error that is the user's to fix (auth, bad
request, context too long, unknown model) stops the call with that error, unless ``also_on``
names it. Once an entry has sent text or a tool call, the group never switches: a failure
then ends the answer as the kernel ends any cut stream (the part that arrived is kept).

The answer's :class:`chatcli.StopEvent` says who answered (``provider``, ``model``) and who
failed or was skipped before (``failed``); when every entry fails, the error is of the last
failure's class, lists them all, and is not retried by the engine (the group already tried
everything it has).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_fallback.settings import MOVE_ON, STOP_KINDS, Entry, Group
from chatcli_fallback.state import State

if TYPE_CHECKING:
    from chatcli import (
        ChatRequest,
        FailedAttempt,
        PluginHost,
        Provider,
        ProviderSpec,
        Settings,
        StreamEvent,
    )

__all__ = ["GroupProvider", "error_kind", "resolve_entries"]

_, ngettext = translation(__name__)

_KINDS = (*MOVE_ON, *STOP_KINDS.values())


def error_kind(err: BaseException) -> str:
    """The kernel class an error belongs to (``RateLimitError``), looking through subclasses;
    a set-up error of an entry (no API key, a bad ``[providers.NAME]`` value) counts as
    ``AuthError``, any other error that is not a provider's keeps its own name (and stops)."""
    from chatcli import ConfigError, ProviderError

    if isinstance(err, ConfigError):
        return "AuthError"
    if not isinstance(err, ProviderError):  # another set-up error: never the service's
        return type(err).__name__
    for cls in type(err).__mro__:
        if cls.__name__ in _KINDS:
            return cls.__name__
    return "ProviderError"


def _one_line(err: BaseException, limit: int = 160) -> str:
    from chatcli import redact

    text = getattr(err, "message", None) or str(err) or type(err).__name__
    text = redact(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def resolve_entries(host: PluginHost, group: Group, own: set[str]) -> dict[Entry, ProviderSpec]:
    """Each entry's spec; a :class:`chatcli.ConfigError` naming the closest provider for one
    that is not installed, or for an entry that is itself a chain or pool."""
    from chatcli import ConfigError, UsageError, find_provider

    specs = {}
    for entry in group.entries:
        if entry.provider in own:
            raise ConfigError(_("{where}: '{provider}' is a chain or pool itself").format(
                                  where=group.where, provider=entry.provider),
                              _("name providers (openai/MODEL, anthropic/MODEL, local…) as "
                                "entries"))
        try:
            specs[entry] = find_provider(host, entry.provider)
        except UsageError as err:
            raise ConfigError(_("{where} names an unknown provider '{provider}'").format(
                                  where=group.where, provider=entry.provider),
                              err.hint or _("see `chatcli models`")) from None
    return specs


class GroupProvider:
    """The provider a chain or pool presents to the kernel."""

    def __init__(self, group: Group, host: PluginHost, settings: Settings,
                 specs: dict[Entry, ProviderSpec], state: State | None = None) -> None:
        self.group = group
        self.host = host
        self.settings = settings
        self.specs = specs
        self.state = state or State()
        self._built: dict[Entry, tuple[Provider, str]] = {}

    # ------------------------------------------------------------------ entries

    def _settings_for(self, entry: Entry) -> Settings:
        """The settings an entry is built with: its own timeout, at most the group's."""
        table = self.settings.provider_settings(entry.provider)
        if table.timeout <= self.group.options.timeout:
            return self.settings
        providers = dict(self.settings.providers)
        providers[entry.provider] = table.model_copy(
            update={"timeout": self.group.options.timeout})
        return self.settings.model_copy(update={"providers": providers})

    def build(self, entry: Entry) -> tuple[Provider, str]:
        """The entry's provider and resolved model, built on first use."""
        found = self._built.get(entry)
        if found is None:
            from chatcli import build_provider

            provider, config = build_provider(self.specs[entry], self._settings_for(entry),
                                              entry.model)
            found = self._built[entry] = (provider, config.model)
        return found

    def model_of(self, entry: Entry) -> str:
        """The model an entry answers with (resolved once it was built)."""
        built = self._built.get(entry)
        if built is not None:
            return built[1]
        if entry.model:
            return entry.model
        spec = self.specs[entry]
        return self.settings.provider_settings(entry.provider).model or spec.default_model

    def close(self) -> None:
        """Close the entries' providers that can be closed."""
        for provider, _model in self._built.values():
            close = getattr(provider, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):  # closing must not fail an ended run
                    close()

    # ------------------------------------------------------------------ choosing

    def plan(self) -> tuple[list[Entry], list[tuple[Entry, str]]]:
        """The entries to try, in order, and those put last with why (cooling, unhealthy).

        - ``chain``: in order; an entry cooling down goes last (the soonest to recover first),
          so it is asked only when every other entry failed too;
        - ``round_robin``: from the pool's shared position (one further per call), the healthy
          entries first;
        - ``failover``: in order, the healthy entries first — the primary whenever it is healthy.
        """
        group, options = self.group, self.group.options
        health = self.state.snapshot()
        now = self.state.clock()
        entries = list(group.entries)
        if group.strategy == "round_robin" and len(entries) > 1:
            start = self.state.next_cursor(group.name, len(entries))
            entries = entries[start:] + entries[:start]
        ready, parked = [], []
        for entry in entries:
            state = health.get(entry.key)
            if state is None:
                ready.append(entry)
            elif group.strategy == "chain" and state.cooling(now) > 0:
                parked.append((entry, state.cooldown_until,
                               # i18n: {error} is "a rate limit", "a timeout"…
                               _("cooling down for {seconds:.0f}s more after {error}").format(
                                   seconds=state.cooling(now), error=_article(state.last_kind))))
            elif group.strategy != "chain" and state.unhealthy(
                    now, options.unhealthy_after, options.recovery):
                left = options.recovery - (now - state.last_failure)
                parked.append((entry, state.last_failure,
                               ngettext("unavailable after {count} errors in a row (tried "
                                        "again in {seconds:.0f}s)",
                                        "unavailable after {count} errors in a row (tried "
                                        "again in {seconds:.0f}s)", state.errors).format(
                                   count=state.errors, seconds=left)))
            else:
                ready.append(entry)
        parked.sort(key=lambda item: item[1])
        return ready + [entry for entry, _at, _why in parked], [(e, why) for e, _at, why in parked]

    # ------------------------------------------------------------------ one call

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Stream ``request`` from the first entry that answers (see the module's notes).

        The stream has ``cancel()``: the engine calls it when the answer is interrupted while
        its reader waits inside; it is handed on to the entry answering now (a CLI provider
        stops its process) and the chain moves on to no other entry."""
        from chatcli_provider_kit import CancellableStream

        call = _Call()
        return CancellableStream(self._stream(request, call), call.cancel)

    def _stream(self, request: ChatRequest, call: _Call) -> Iterator[StreamEvent]:
        from chatcli import FailedAttempt, ProviderError, StopEvent, UsageEvent

        order, parked = self.plan()
        failed: list[FailedAttempt] = []
        tried: set[Entry] = set()
        last: BaseException | None = None
        for entry in order:
            if call.cancelled.is_set():
                break
            tried.add(entry)
            started = False
            latency: float | None = None
            events: Any = None
            try:
                provider, model = self.build(entry)
                began = time.monotonic()
                events = call.current = provider.stream(dataclasses.replace(request, model=model))
                if call.cancelled.is_set():
                    call.cancel()
                pending: list[Any] = []
                for event in events:
                    if not started and isinstance(event, UsageEvent):
                        pending.append(event)  # usage alone is no answer yet: may still move on
                        continue
                    if not started:
                        started = True
                        latency = time.monotonic() - began
                        yield from pending
                    if isinstance(event, StopEvent):
                        skipped = [FailedAttempt(e.provider, self.model_of(e), why, "skipped")
                                   for e, why in parked if e not in tried]
                        event = dataclasses.replace(
                            event, model=event.model or model, provider=entry.provider,
                            failed=(*event.failed, *failed, *skipped))
                    yield event
                if not started:  # an empty stream: the entry said nothing at all
                    yield from pending
            except GeneratorExit:
                raise
            except Exception as caught:
                if call.cancelled.is_set():  # stopped by the user: not the entry's failure
                    raise
                err = caught
                if not isinstance(caught, ProviderError) and not _is_chatcli(caught):
                    err = ProviderError.unexpected(
                        _("the {provider} provider failed").format(provider=entry.provider),
                        caught, _("try again; CHATCLI_DEBUG=1 shows the traceback"),
                        entry.provider)
                kind = error_kind(err)
                self._failed(entry, err, kind)
                attempt = FailedAttempt(entry.provider, self.model_of(entry), _one_line(err), kind)
                if started or not self.group.options.moves_on(kind):
                    err.failed = (*failed, attempt)  # type: ignore[attr-defined]
                    if err is caught:
                        raise
                    raise err from caught
                failed.append(attempt)
                last = err
                continue
            finally:
                call.current = None
                close = getattr(events, "close", None)
                if close is not None:
                    close()
            self.state.record_success(entry.key, latency)
            return
        if call.cancelled.is_set():
            return
        raise self._exhausted(last, failed)

    def _failed(self, entry: Entry, err: BaseException, kind: str) -> None:
        from chatcli import ConfigError

        if isinstance(err, ConfigError):  # the entry's set-up (no key), not the service
            return
        retry_after = getattr(err, "retry_after", None)
        options = self.group.options
        self.state.record_failure(
            entry.key, _one_line(err, 300), kind,
            lambda errors: options.cooldown_for(
                errors, retry_after if isinstance(retry_after, int | float) else None))

    def _exhausted(self, last: BaseException | None, failed: list[FailedAttempt]
                   ) -> BaseException:
        """The error of a call every entry failed: the last one's class, listing them all."""
        from chatcli import ProviderError

        names = "; ".join(f"{a.provider}/{a.model}: {a.error}" for a in failed)
        group = self.group
        if group.strategy == "chain" and group.name == "fallback":
            message = _("every entry of the fallback chain failed — {failures}").format(
                failures=names)
        else:
            message = _("every entry of the {strategy} group '{name}' failed — {failures}").format(
                strategy=group.strategy.replace("_", "-"), name=group.name, failures=names)
        hint = _("try again later, or add an entry (`chatcli providers status` shows each "
                 "entry's health)")
        cls = type(last) if isinstance(last, ProviderError) else ProviderError
        try:
            error = cls(message, hint, provider=self.group.name)
        except TypeError:
            error = ProviderError(message, hint, provider=self.group.name)
        error.retryable = False  # the group already went through every entry it has
        error.failed = tuple(failed)
        return error



class _Call:
    """One call of a group: the entry stream it reads now, and whether it was cancelled."""

    def __init__(self) -> None:
        self.current: Any = None
        self.cancelled = threading.Event()

    def cancel(self) -> None:
        self.cancelled.set()
        stop = getattr(self.current, "cancel", None)
        if callable(stop):
            with contextlib.suppress(Exception):  # the entry may be gone already
                stop()


def _is_chatcli(err: BaseException) -> bool:
    from chatcli import ChatcliError

    return isinstance(err, ChatcliError)


def _article(kind: str) -> str:
    words = {"RateLimitError": _("a rate limit"), "ServerError": _("a server error"),
             "ProviderTimeoutError": _("a timeout"), "NetworkError": _("a network error"),
             "StreamCutError": _("a cut stream"), "AuthError": _("an auth error")}
    return words.get(kind, _("an error"))
