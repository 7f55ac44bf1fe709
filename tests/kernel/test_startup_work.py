"""Work a start-up must not do: building the kernel's models runs no tokenizer (pydantic reads
each default factory's signature, and a builtin's — ``list``, ``dict`` — is parsed by the
tokenizer, whose first use compiles a large regular expression)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
import chatcli._compaction, chatcli._config, chatcli._session, chatcli._types
from chatcli import Message, Settings
Settings(); Message.user("hi")
tokenize = sys.modules.get("tokenize")
print(0 if tokenize is None else tokenize._compile.cache_info().misses)
"""


def test_building_the_kernel_models_runs_no_tokenizer() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "0"


def test_the_default_factories_give_fresh_values() -> None:
    from chatcli import Message, Settings

    first, second = Settings(), Settings()
    first.allowed_dirs.append("~/notes")
    first.providers["x"] = first.provider_settings("openai")
    assert second.allowed_dirs == [] and second.providers == {}
    one, two = Message.user("a"), Message.user("b")
    assert one.parts is not two.parts


def _depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _spec(factory):  # type: ignore[no-untyped-def]
    from chatcli import ProviderSpec

    return ProviderSpec(name="probe", display_name="Probe", default_model="m", factory=factory,
                        requires_key=False)


def test_a_provider_starts_on_a_fresh_stack_however_deep_the_caller() -> None:
    """The factory (which imports the SDK) runs where a bare script would: a few frames deep,
    not below the caller's stack (CPython 3.11 maps/unmaps frame-stack chunks at their edge)."""
    from chatcli import Settings
    from chatcli._providers import build_provider

    seen: list[int] = []

    def factory(config):  # type: ignore[no-untyped-def]
        seen.append(_depth())
        return object()

    def deep(n: int) -> object:
        return build_provider(_spec(factory), Settings())[0] if n == 0 else deep(n - 1)

    provider = deep(300)
    assert provider is not None and _depth() < 50
    assert seen and seen[0] < 10, seen


def test_a_failing_factory_is_still_one_provider_error_on_the_caller() -> None:
    from chatcli import ProviderError, Settings
    from chatcli._providers import build_provider

    def broken(config):  # type: ignore[no-untyped-def]
        raise SystemExit(3)

    with pytest.raises(ProviderError, match="the Probe provider cannot start: SystemExit: 3"):
        build_provider(_spec(broken), Settings())
