"""The model table, ``[models."PATTERN"]``: validated entries, which entry names a model (exact
names, globs, bare names, the most literal pattern winning; checked with hypothesis), and its
context window taking precedence in the kernel's lookup (compaction's yardstick)."""

from __future__ import annotations

import pytest
from chatcli import (
    ConfigError,
    ModelSettings,
    ProviderSpec,
    Settings,
    load_settings,
    user_config_path,
)
from chatcli._providers import context_window
from hypothesis import given
from hypothesis import strategies as st

SPEC = ProviderSpec(name="openai", display_name="OpenAI", factory=lambda c: None,
                    default_model="gpt-5.4-mini", context_windows={"gpt-5": 272_000})


def write(text: str) -> None:
    user_config_path().parent.mkdir(parents=True, exist_ok=True)
    user_config_path().write_text(text)


def test_entries_are_read_from_the_config_file() -> None:
    write('[models."openai/gpt-5.4-mini"]\ncontext_window = 272000\ninput = 0.25\n'
          'output = 2.0\n\n[models."ollama/*"]\ncontext_window = 32768\n')
    settings = load_settings()
    pattern, entry = settings.model_settings("openai", "gpt-5.4-mini")
    assert pattern == "openai/gpt-5.4-mini"
    assert (entry.context_window, entry.input, entry.output) == (272_000, 0.25, 2.0)
    assert settings.model_settings("ollama", "qwen3:8b")[1].context_window == 32_768


@pytest.mark.parametrize(("body", "words"), [
    ("context_windw = 5000", "context_windw"),
    ("context_window = 10", "context_window"),
    ('input = "cheap"', "input"),
    ("output = -1.0", "output"),
])
def test_a_bad_entry_is_one_line_naming_the_file_and_key(body: str, words: str) -> None:
    write(f'[models."openai/gpt-x"]\n{body}\n')
    with pytest.raises(ConfigError) as info:
        load_settings()
    text = str(info.value)
    assert words in text and str(user_config_path()) in text and "\n" not in text
    assert info.value.exit_code == 2


def test_precedence_of_the_context_window() -> None:
    assert context_window(SPEC, Settings(), "gpt-5.4-mini") == 272_000
    assert context_window(SPEC, Settings(context_window=60_000), "gpt-5.4-mini") == 60_000
    table = {"openai/gpt-5*": {"context_window": 100_000}}
    assert context_window(SPEC, Settings(models=table, context_window=60_000,
                                         providers={"openai": {"context_window": 70_000}}),
                          "gpt-5.4-mini") == 100_000
    # an entry that only prices the model leaves the window to the next source
    priced = {"openai/gpt-5.4-mini": {"input": 1.0, "output": 2.0}, **table}
    assert context_window(SPEC, Settings(models=priced), "gpt-5.4-mini") == 100_000
    assert context_window(SPEC, Settings(models=table), "o3") is None  # nobody knows


def test_the_most_specific_entry_wins() -> None:
    settings = Settings(models={
        "*": {"context_window": 8_000},
        "openai/*": {"context_window": 16_000},
        "openai/gpt-5*": {"context_window": 32_000},
        "gpt-5.4-mini": {"context_window": 64_000},
        "openai/gpt-5.4-mini": {"context_window": 128_000},
    })

    def window(provider: str, model: str) -> int:
        return settings.model_settings(provider, model)[1].context_window

    assert window("openai", "gpt-5.4-mini") == 128_000  # the exact name
    assert window("azure", "gpt-5.4-mini") == 64_000  # a bare name matches any provider
    assert window("openai", "gpt-5.5") == 32_000
    assert window("openai", "o3") == 16_000
    assert window("anthropic", "claude-x") == 8_000
    # a vendor-qualified model id (OpenRouter) matches its vendor's entry
    assert window("openrouter", "openai/gpt-5.4-mini") == 128_000


_NAME = st.text(st.characters(codec="ascii", categories=("L", "N"),
                              include_characters="-._:"), min_size=1, max_size=20)


@given(provider=_NAME, model=_NAME, globs=st.lists(st.sampled_from(
    ["*", "{p}/*", "{m}", "{p}/{m}*", "*{m}", "?*", "{p}/?*"]), max_size=6))
def test_an_exact_name_beats_every_glob_and_star_matches_all(provider: str, model: str,
                                                              globs: list[str]) -> None:
    table = {g.format(p=provider, m=model): {"context_window": 2_000 + i}
             for i, g in enumerate(globs)}
    star = Settings(models={**table, "*": {"context_window": 1_000}})
    assert star.model_settings(provider, model) is not None
    exact = Settings(models={**table, f"{provider}/{model}": {"context_window": 999_999}})
    assert exact.model_settings(provider, model)[1].context_window == 999_999
    assert Settings(models={f"{provider}x/{model}": {}}).model_settings(provider, model) is None


def test_the_entry_type_is_public_and_documented() -> None:
    assert ModelSettings.__doc__ and "PATTERN" in ModelSettings.__doc__
    assert ModelSettings(context_window=5_000).input is None


def test_a_misspelt_entry_key_is_named_with_the_closest_one() -> None:
    write('[models."openai/gpt-x"]\ncontext_windw = 5000\n')
    with pytest.raises(ConfigError) as info:
        load_settings()
    assert "unknown setting 'models.openai/gpt-x.context_windw'" in str(info.value)
    assert "did you mean 'context_window'?" in str(info.value)


def test_config_set_edits_an_entry_and_refuses_a_key_it_has_not() -> None:
    from chatcli_config_edit import set_value

    set_value(user_config_path(), "models.ollama/*.context_window", "32768")
    assert load_settings().model_settings("ollama", "qwen3")[1].context_window == 32_768
    assert '[models."ollama/*"]' in user_config_path().read_text()
    with pytest.raises(ConfigError) as info:
        set_value(user_config_path(), "models.ollama/*.ouput", "2.0")
    assert "unknown setting" in str(info.value) and "did you mean 'output'?" in str(info.value)
