"""What a fallback chain costs per request: the openai provider on its own against the same
provider as the only entry of a chain, and as the second entry behind one that is cooling down
(skipped: read from the shared state file) — each against the local OpenAI wire server, 100
requests, median. Prints the chain's overhead in milliseconds and as a ratio, and the cost of
one health update of the state file (locked read-modify-write, fsync'd atomic write).

Run: uv run python bench/fallback.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

REQUESTS = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=REQUESTS, help="requests per case")
    requests = parser.parse_args().requests
    home = Path(tempfile.mkdtemp(prefix="chatcli-bench-fallback-"))
    os.environ["CHATCLI_CONFIG_DIR"] = str(home / "config")
    os.environ["CHATCLI_DATA_DIR"] = str(home / "data")
    os.environ["CHATCLI_PLUGINS"] = "fallback,openai,anthropic"
    os.environ["OPENAI_API_KEY"] = "sk-bench-0123456789abcdef"
    os.environ["ANTHROPIC_API_KEY"] = "sk-ant-bench-0123456789abcdef"
    from chatcli import ChatRequest, Message, PluginHost, Settings, build_provider, find_provider
    from chatcli_fallback.settings import Options
    from chatcli_fallback.state import State
    from chatcli_testing import OpenAIServer

    with OpenAIServer() as server:
        os.environ["OPENAI_BASE_URL"] = server.url
        host = PluginHost(warn=lambda line: None)
        host.load_entry_points()

        def provider_for(settings: Settings, name: str):
            host.settings = None
            host.configure(settings, home)
            return build_provider(find_provider(host, name), settings)[0]

        direct = provider_for(Settings(), "openai")
        alone = provider_for(Settings.model_validate(
            {"fallback": {"chain": ["openai/gpt-bench"]}}), "fallback")
        behind = provider_for(Settings.model_validate(
            {"fallback": {"chain": ["anthropic/claude-bench", "openai/gpt-bench"],
                          "cooldown": 3600}}), "fallback")
        State().record_failure("anthropic/claude-bench", "rate limited", "RateLimitError",
                               Options(cooldown=3600).cooldown_for)
        request = ChatRequest(model="gpt-bench", messages=[Message.user("hi")])

        def median_ms(provider) -> float:
            times = []
            for _ in range(requests):
                server.script("ok")
                start = time.perf_counter()
                for _event in provider.stream(request):
                    pass
                times.append((time.perf_counter() - start) * 1000)
            return statistics.median(times)

        median_ms(direct)  # warm the SDK and the connection pool
        base = median_ms(direct)
        one = median_ms(alone)
        skip = median_ms(behind)
        assert not [r for r in server.requests if "claude" in str(r.json)], "a skip asked"
        state = State()
        updates = []
        for _ in range(requests):
            start = time.perf_counter()
            state.record_success("openai/gpt-bench", 0.1)
            updates.append((time.perf_counter() - start) * 1000)
    print(f"openai provider alone:           {base:7.2f} ms per request (median of {requests})")
    print(f"chain [openai]:                  {one:7.2f} ms  (+{one - base:.2f} ms, "
          f"{one / base:.2f}x)")
    print(f"chain [cooling anthropic, openai]: {skip:5.2f} ms  (+{skip - base:.2f} ms, "
          f"{skip / base:.2f}x)")
    print(f"one health update of the state file: {statistics.median(updates):.2f} ms (median)")


if __name__ == "__main__":
    main()
