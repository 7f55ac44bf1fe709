"""``[compaction]``: values read and checked; a wrong one is one warning naming the key, what it
must be and the command that fixes it, and the default is used."""

from __future__ import annotations

from pathlib import Path

from chatcli import PluginHost, Settings
from chatcli_compaction import plugin
from chatcli_compaction.settings import CompactionConfig, read_config


def test_values_are_read_and_text_from_the_environment_is_accepted() -> None:
    config = read_config({"age_after": "5", "age_one_line_after": 12, "strategies": "trim, "
                          "truncate", "summary_piece_tokens": 3000})
    assert config == CompactionConfig(age_after=5, age_one_line_after=12,
                                      strategies=("trim", "truncate"), summary_piece_tokens=3000)


def test_each_wrong_value_is_one_warning_and_the_default_is_used(tmp_path: Path) -> None:
    warnings: list[str] = []
    host = PluginHost(warn=warnings.append)
    host.register(plugin, "compaction")
    settings = Settings(compaction={"age_after": "soon", "aged_chars": 10, "strategies":
                                    ["trim", "magic"], "agee_after": 3})
    host.configure(settings, tmp_path)
    assert warnings == [
        "[compaction] age_after must be a whole number of at least 1, not 'soon'; using 3 — "
        "fix it: chatcli config set compaction.age_after 3",
        "[compaction] aged_chars must be a whole number of at least 200, not 10; using 1500 — "
        "fix it: chatcli config set compaction.aged_chars 1500",
        "[compaction] strategies must be a list of trim, summarise, truncate, not ['trim', "
        "'magic']; using all three — fix it: chatcli config set compaction.strategies "
        "trim,summarise,truncate",
        "[compaction] has no setting 'agee_after' (known: age_after, age_one_line_after, "
        "aged_chars, injected_min_chars, strategies, summary_piece_tokens, tool_output_max); "
        "it is ignored — remove it: chatcli config unset compaction.agee_after",
    ]
    assert read_config(settings.plugin_table("compaction")) == CompactionConfig()


def test_one_line_after_below_age_after_is_raised_to_it() -> None:
    warnings: list[str] = []
    config = read_config({"age_after": 6, "age_one_line_after": 2}, warnings.append)
    assert config.age_one_line_after == 6 and len(warnings) == 1
    assert "age_one_line_after (2) is below age_after (6)" in warnings[0]
