"""``ProviderContract`` catches broken providers: run it on deliberately broken ones.

The good providers pass it in ``tests/providers/*/test_*_contract.py``. Here a pytest subprocess
runs the kit against wrappers of the OpenAI provider that each break one rule, and the exact set
of failing contract tests is asserted (everything else must still pass).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

BROKEN = textwrap.dedent('''
    from chatcli import (
        AuthError,
        ProviderConfig,
        ProviderError,
        RateLimitError,
        ServerError,
        StopEvent,
    )
    from chatcli_testing import ProviderContract

    KEY = "sk-broken-0123456789abcdefSECRET"


    class Broken:
        """The real OpenAI provider, wrapped; subclasses break one rule in ``stream``."""

        def __init__(self, server, timeout):
            from chatcli_provider_openai.presets import PRESETS
            from chatcli_provider_openai.provider import OpenAIProvider

            preset = next(p for p in PRESETS if p.name == "openai")
            self.inner = OpenAIProvider(ProviderConfig(
                name="openai", model="gpt-test", api_key=KEY, base_url=server.url,
                timeout=timeout), preset=preset)

        def stream(self, request):
            return self.inner.stream(request)

        def close(self):
            self.inner.close()


    class SwallowsErrors(Broken):
        def stream(self, request):
            try:
                yield from self.inner.stream(request)
            except ProviderError:
                yield StopEvent()


    class LeakyAuthError(AuthError):
        def __str__(self):
            return super().__str__() + " key=" + KEY


    class LeaksTheKey(Broken):
        def stream(self, request):
            try:
                yield from self.inner.stream(request)
            except AuthError as err:
                raise LeakyAuthError(err.message) from None


    class DropsRetryAfter(Broken):
        def stream(self, request):
            try:
                yield from self.inner.stream(request)
            except RateLimitError as err:
                err.retry_after = None
                raise


    class RetriesItself(Broken):
        def stream(self, request):
            try:
                yield from self.inner.stream(request)
            except (RateLimitError, ServerError):
                yield from self.inner.stream(request)


    def contract_for(wrapper):
        class Contract(ProviderContract):
            server_fixture = "openai_server"
            model = "gpt-test"
            api_key = KEY
            reports_cache_write_tokens = False

            def make_provider(self, server, *, timeout=30.0):
                return wrapper(server, timeout)

        return Contract


    TestSwallowsErrors = contract_for(SwallowsErrors)
    TestLeaksTheKey = contract_for(LeaksTheKey)
    TestDropsRetryAfter = contract_for(DropsRetryAfter)
    TestRetriesItself = contract_for(RetriesItself)
''')

ALL = {
    "test_streams_text_in_order", "test_usage_includes_cache_tokens",
    "test_tool_call_arguments_assembled_from_fragments",
    "test_malformed_tool_arguments_are_kept_raw", "test_429_is_a_rate_limit_with_retry_after",
    "test_500_is_a_retryable_server_error", "test_401_is_an_auth_error_without_the_key",
    "test_404_is_model_not_found", "test_cut_mid_stream_after_the_partial_text",
    "test_malformed_chunk_is_a_stream_cut", "test_stall_times_out",
    "test_closing_the_stream_early_releases_the_connection",
}

EXPECTED_FAILURES = {
    "TestSwallowsErrors": {
        "test_429_is_a_rate_limit_with_retry_after", "test_500_is_a_retryable_server_error",
        "test_401_is_an_auth_error_without_the_key", "test_404_is_model_not_found",
        "test_cut_mid_stream_after_the_partial_text", "test_malformed_chunk_is_a_stream_cut",
        "test_stall_times_out",
    },
    "TestLeaksTheKey": {"test_401_is_an_auth_error_without_the_key"},
    "TestDropsRetryAfter": {"test_429_is_a_rate_limit_with_retry_after"},
    "TestRetriesItself": {
        "test_429_is_a_rate_limit_with_retry_after", "test_500_is_a_retryable_server_error",
    },
}


def run_contract(folder: Path) -> dict[str, dict[str, str]]:
    """Run the broken contracts in a pytest subprocess: {class: {test: outcome}}."""
    (folder / "test_broken_contract.py").write_text(BROKEN)
    report = folder / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"--junitxml={report}", "--rootdir", str(folder), str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )
    outcomes: dict[str, dict[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        kinds = {child.tag for child in case}
        outcome = ("failed" if kinds & {"failure", "error"}
                   else "skipped" if "skipped" in kinds else "passed")
        outcomes.setdefault(cls, {})[case.get("name", "")] = outcome
    return outcomes


@pytest.mark.slow  # runs the whole contract against seven broken providers
def test_the_contract_fails_exactly_where_a_provider_breaks_a_rule(tmp_path):
    outcomes = run_contract(tmp_path)

    assert set(outcomes) == set(EXPECTED_FAILURES)
    for cls, expected in EXPECTED_FAILURES.items():
        assert set(outcomes[cls]) == ALL, cls
        failed = {name for name, outcome in outcomes[cls].items() if outcome == "failed"}
        assert failed == expected, cls
        assert all(outcomes[cls][name] == "passed" for name in ALL - expected), cls


def test_an_incomplete_subclass_fails_with_a_clear_message(tmp_path):
    (tmp_path / "test_incomplete.py").write_text(textwrap.dedent('''
        from chatcli_testing import ProviderContract

        class TestNoServer(ProviderContract):
            pass

        class TestNoFactory(ProviderContract):
            server_fixture = "openai_server"
    '''))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
         str(tmp_path), str(tmp_path), "-k", "streams_text"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1, result.stdout
    assert "1 failed" in result.stdout and "1 error" in result.stdout  # error: in setup
    assert "must set server_fixture" in result.stdout
    assert "implement make_provider()" in result.stdout
