"""Per-request overhead of each provider as the conversation grows: it must not grow with history.

For every provider (openai and an OpenAI-compatible preset, anthropic, ollama, local) one chat
request is sent with 10, 1,000 and 5,000 messages of history (user turns, answers, tool calls and
their results, a system prompt and two tools), through the real SDK against the local server of
``chatcli_testing`` that speaks its wire format. The local provider runs llama.cpp in-process, so
its stand-in is a tiny scripted object with the same ``handle_chat_completions(body, callback)``
call (it serialises the body as xllamacpp does, then streams a short answer).

The figure is the provider's own time: the wall time of the request minus the time the server
spent handling it (reading and parsing the body, writing the answer), median of several runs
after one warm-up request on the same history, so the timed requests find the earlier messages
already converted, as every turn of a conversation does (only its newest messages are new). The
table shows it at each size, its growth per message of history over the 10-message baseline
measured in the same run (µs/message) and as a ratio, the warm-up request at 5,000 messages
("first": every message converted, as after resuming a long session), and the 5,000-message
figure against the goal (≤ 25 ms per request).

Two more rows measure the kernel's own part of a turn: a whole ``Engine.run`` (checkpoint,
appends and their hooks, prompt sections, building the request) answered at once by a scripted
provider, with native tools and with the text tool-call protocol (its view of the history is
converted once per message).

Run: .venv/bin/python bench/turn.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    ProviderConfig,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)

SIZES = (10, 1_000, 5_000)
GOAL_MS = 25.0
KEY = "sk-bench-0123456789abcdef"

_WORDS = [
    "the", "model", "reads", "a", "file", "and", "answers", "with", "a", "short", "plan", "then",
    "calls", "a", "tool", "to", "check", "the", "result", "before", "it", "writes", "the", "patch",
]


def _text(i: int, words: int) -> str:
    return " ".join(_WORDS[(i + k) % len(_WORDS)] for k in range(words)) + f" ({i})"


def history(n: int) -> list[Message]:
    """``n`` messages: user turns, answers, and every third answer a tool call with its result."""
    messages: list[Message] = []
    i = 0
    while len(messages) < n:
        messages.append(Message.user(_text(i, 15)))
        if i % 3 == 2 and len(messages) + 2 < n:
            call = ToolCallPart(id=f"call_{i}", name="read_file", arguments={"path": f"f{i}.py"})
            messages.append(Message(role=Role.ASSISTANT,
                                    parts=[TextPart(text=_text(i, 10)), call]))
            messages.append(Message(role=Role.TOOL, parts=[ToolResultPart(
                call_id=call.id, name="read_file", content=_text(i, 40))]))
        messages.append(Message.assistant(_text(i, 50)))
        i += 1
    return [*messages[:n - 1], Message.user("and now?")] if n > 1 else [Message.user("hi")]


def request(n: int) -> ChatRequest:
    """A request with ``n`` messages of history, a two-section system prompt and two tools."""
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    return ChatRequest(
        model="bench-model",
        system=[PromptSection(name="base", text="You are a careful coding assistant."),
                PromptSection(name="date", text="Today is Monday.", stable=False)],
        messages=history(n),
        tools=[ToolSpec(name="read_file", description="Read a file", parameters=schema),
               ToolSpec(name="list_dir", description="List a folder", parameters=schema)],
        max_tokens=256,
    )


class _Clock:
    """Time a server spends handling requests (summed over its handler threads)."""

    def __init__(self) -> None:
        self.done = threading.Condition()
        self.busy = 0.0
        self.handled = 0

    def add(self, seconds: float) -> None:
        with self.done:
            self.busy += seconds
            self.handled += 1
            self.done.notify_all()

    def take(self, handled: int = 0) -> float:
        """The time counted since the last call, once ``handled`` requests have finished (the
        client may have read the whole answer before the handler thread returns)."""
        with self.done:
            self.done.wait_for(lambda: self.handled >= handled, timeout=5.0)
            value, self.busy, self.handled = self.busy, 0.0, 0
            return value


def _timed(server: Any) -> _Clock:
    """Wrap the running wire server's request handler so its handling time is counted."""
    clock = _Clock()
    base = server._httpd.RequestHandlerClass  # the bench's only use of a private attribute

    class Timed(base):  # type: ignore[misc, valid-type]
        def _handle(self) -> None:
            started = time.perf_counter()
            try:
                super()._handle()
            finally:
                clock.add(time.perf_counter() - started)

        do_GET = do_POST = _handle

    server._httpd.RequestHandlerClass = Timed
    return clock


@contextmanager
def _wire(server_cls: Any, build: Callable[[str], Any]) -> Iterator[tuple[Any, _Clock]]:
    server = server_cls().start()  # answers "ok" to every request
    try:
        clock = _timed(server)
        provider = build(server.url)
        try:
            yield provider, clock
        finally:
            close = getattr(provider, "close", None)
            if close is not None:
                close()
    finally:
        server.stop()


def _openai(name: str) -> Callable[[], Any]:
    @contextmanager
    def setup() -> Iterator[tuple[Any, _Clock]]:
        from chatcli_provider_openai.presets import PRESETS
        from chatcli_provider_openai.provider import OpenAIProvider
        from chatcli_testing import OpenAIServer

        preset = next(p for p in PRESETS if p.name == name)
        with _wire(OpenAIServer, lambda url: OpenAIProvider(
                ProviderConfig(name=name, model="bench-model", api_key=KEY, base_url=url),
                preset=preset)) as pair:
            yield pair

    return setup


@contextmanager
def _anthropic() -> Iterator[tuple[Any, _Clock]]:
    from chatcli_provider_anthropic.provider import AnthropicProvider
    from chatcli_testing import AnthropicServer

    with _wire(AnthropicServer, lambda url: AnthropicProvider(ProviderConfig(
            name="anthropic", model="bench-model", api_key=KEY, base_url=url))) as pair:
        yield pair


@contextmanager
def _ollama() -> Iterator[tuple[Any, _Clock]]:
    from chatcli_provider_ollama.provider import OllamaProvider
    from chatcli_testing import OllamaServer

    with _wire(OllamaServer, lambda url: OllamaProvider(ProviderConfig(
            name="ollama", model="bench-model", base_url=url))) as pair:
        yield pair


class _LlamaStandIn:
    """Answers like xllamacpp's ``Server.handle_chat_completions``: the body goes out as JSON
    text (client side: counted), llama.cpp's work is replaced by a short scripted answer."""

    #: the model's process never dies here
    alive = True

    def __init__(self, clock: _Clock) -> None:
        self.clock = clock

    def handle_chat_completions(self, body: dict[str, Any], callback: Callable[[Any], bool]
                                ) -> None:
        json.dumps(body)  # what xllamacpp does with a dict before handing it to C++
        started = time.perf_counter()
        chunk = {"object": "chat.completion.chunk", "model": "bench-model"}
        chunks = [
            {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {**chunk, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 1}},
        ]
        for item in chunks:
            if callback(item):
                break
        self.clock.add(time.perf_counter() - started)


@contextmanager
def _local() -> Iterator[tuple[Any, _Clock]]:
    from chatcli_provider_local.provider import LocalProvider
    from chatcli_provider_local.runtime import LoadedModel

    clock = _Clock()
    provider = LocalProvider(ProviderConfig(name="local", model="smollm2-135m"))
    provider._loaded = LoadedModel(provider.path, _LlamaStandIn(clock), provider.runtime, 0.0)
    yield provider, clock


PROVIDERS: dict[str, Callable[[], Any]] = {
    "openai": _openai("openai"),
    "deepseek (openai preset)": _openai("deepseek"),
    "anthropic": _anthropic,
    "ollama": _ollama,
    "local": _local,
}


def measure(provider: Any, clock: _Clock, req: ChatRequest, runs: int) -> tuple[float, float]:
    """Seconds of one request on the provider's side (wall time minus server time): the median
    of ``runs`` requests, and the first one (which warms connections and caches)."""
    samples = []
    for _run in range(runs + 1):
        clock.take()
        started = time.perf_counter()
        for _event in provider.stream(req):
            pass
        wall = time.perf_counter() - started
        samples.append(wall - clock.take(handled=1))
    return statistics.median(samples[1:]), samples[0]


class _EngineStandIn:
    """The kernel's part of a turn as a "provider" row: one whole ``Engine.run`` (checkpoint,
    appends, hooks, prompt sections, the request) answered at once by a scripted provider.
    ``native`` False is a model without native tools (the text tool-call protocol)."""

    def __init__(self, native: bool, clock: _Clock) -> None:
        from chatcli import Conversation, Engine, PluginHost, Settings
        from chatcli_testing import AddTool, Reply, ScriptedProvider

        host = PluginHost()
        host.register(AddTool(), "add-tool")
        self.answers = ScriptedProvider()
        self.reply = Reply(text="ok")
        if native:
            self.engine = Engine(host, Settings(), self.answers, "scripted", "m")
        else:
            from chatcli_provider_kit.textcalls import TextToolCalls

            self.engine = Engine(host, Settings(), TextToolCalls(self.answers), "scripted", "m")
        self.conversation = Conversation()
        self.size = -1
        self.clock = clock

    def stream(self, req: ChatRequest) -> Iterator[Any]:
        setup = 0.0
        if len(req.messages) != self.size:  # a new history size: build it, untimed
            from chatcli import Conversation

            started = time.perf_counter()
            self.conversation, self.size = Conversation(), len(req.messages)
            for message in req.messages[:-1]:
                self.conversation.append(message.model_copy())
            setup = time.perf_counter() - started
        self.answers.script(self.reply)
        head = self.conversation.head
        yield from self.engine.run(self.conversation, Message.user("one more question"))
        self.conversation.move_head(head, "retry")  # the same history for the next run
        self.clock.add(setup)  # no server: all but building the history is the kernel's


@contextmanager
def _engine(native: bool) -> Iterator[tuple[Any, _Clock]]:
    clock = _Clock()
    yield _EngineStandIn(native, clock), clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed requests per size (median)")
    parser.add_argument("--only", default="", help="comma-separated provider names")
    args = parser.parse_args()
    requests = {n: request(n) for n in SIZES}
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    last = f"{SIZES[-1]:,}"
    head = ["provider", *(f"{n:,} msgs" for n in SIZES), "growth", f"{last} vs {SIZES[0]}",
            f"first {last}", "goal"]
    rows = []
    every = {**PROVIDERS, "kernel: engine turn": lambda: _engine(True),
             "kernel: engine turn, text tools": lambda: _engine(False)}
    for name, setup in every.items():
        if wanted and name.split()[0].rstrip(":") not in wanted:
            continue
        with setup() as (provider, clock):
            figures = {n: measure(provider, clock, requests[n], args.runs) for n in SIZES}
        base, top = figures[SIZES[0]][0], figures[SIZES[-1]][0]
        growth_us = (top - base) / (SIZES[-1] - SIZES[0]) * 1e6
        rows.append([
            name, *(f"{figures[n][0] * 1e3:.1f} ms" for n in SIZES), f"{growth_us:.2f} µs/msg",
            f"{top / base:.1f}×", f"{figures[SIZES[-1]][1] * 1e3:.1f} ms",
            "ok" if top * 1e3 <= GOAL_MS else f"> {GOAL_MS:g} ms",
        ])
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print("per-request time on the provider's side (wall minus server), median of "
          f"{args.runs} runs; goal ≤ {GOAL_MS:g} ms at {SIZES[-1]:,} messages")
    for row in [head, *rows]:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True))))


if __name__ == "__main__":
    main()
