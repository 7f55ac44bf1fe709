"""Suite-wide settings: which tests may run in parallel (pytest-xdist, ``--dist loadgroup``).

Tests run on every core by default (``-n auto`` in pyproject.toml). A few families share an
expensive module fixture or a scarce resource, so each family runs in one worker, one test at a
time, while other tests run beside it:

- ``terminal``: the REPL in tmux; timing-sensitive screens are steadier without a twin;
- ``template``: builds wheels and a throwaway environment once per module;
- ``packaging``: throwaway virtual environments with uv;
- ``local-model``: the real offline model (some tests ask for a 64k-token context, ~1.5 GB);
- the security attack tables (``test_sandbox_attacks`` …), one group each: their cases share
  one real run per batch.

The quick selection, ``pytest -m "not slow"``, leaves out what is marked ``slow`` in its module
(the security attack tables keep a few rows of each attack class, and their batches run only the
selected rows: ``security_support.wanted_cases``), every ``terminal`` test (the REPL in tmux)
and the tests listed in ``SLOW`` below, each with its reason: real chatcli processes, the
slowest bubblewrap sandbox cases, MCP and PostgreSQL servers, long property tests (see
:func:`pytest_collection_modifyitems`).

The suite's fixtures for where chatcli keeps its files and where it works (one set, used by every
folder; a folder that needs more builds on them under another name):

- ``home``: an isolated chatcli home (``chatcli_testing``'s ``chatcli_home``): config, data and
  cache dirs in the test's folder, provider keys, base URLs and ``CHATCLI_*`` cleared;
- ``user_home``: ``home`` that is also ``$HOME`` (``~/.claude``, ``~/.agents`` are read there),
  with fake OpenAI and Anthropic keys — for plugins that read the user's folder; a folder whose
  every test needs it asks for it in an autouse fixture of its conftest;
- ``workspace``: a project folder that is a project root (it holds ``.git/``) and the current
  folder, as when chatcli starts in a project.

Helper modules: ``tests/`` is on ``sys.path`` (``pythonpath`` in pyproject.toml), so a test
imports a shared helper as ``session_harness`` or ``repl.terminal``, and its own folder's
helper (``cli_support``…) by its bare name (pytest puts a test's folder on ``sys.path``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The suite speaks English (a test of another language sets CHATCLI_LANG itself): set before
# any chatcli module is imported, since messages made at import take the language then.
os.environ["CHATCLI_LANG"] = "en"

import pytest
from hypothesis import settings

# pytest keeps each test module's assertion-rewritten code in __pycache__, unless bytecode is
# not to be written (PYTHONDONTWRITEBYTECODE=1, as on this machine): then every run — and each
# xdist worker — rewrites all 465 test modules again, 8 of the quick selection's 17 s of
# collection per worker. The suite's own caches are wanted (git ignores __pycache__).
sys.dont_write_bytecode = False

# CI runs the property tests with a fixed seed (`.ci/run` sets HYPOTHESIS_PROFILE=ci): a red CI
# must mean a change broke something, not that this run drew a new input. Local runs draw new
# inputs every time; what they find becomes an @example.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])

_GROUPS_BY_FOLDER = {"template": "template", "packaging": "packaging", "team": "team"}
#: Attack tables whose cases share one real chatcli run per batch (a module fixture): in one
#: worker, in a row, each batch runs once instead of once per worker and again whenever the
#: worker comes back to the module.
_GROUPED_MODULES = {"test_sandbox_attacks.py", "test_policy_class_attacks.py",
                    "test_agent_security.py", "test_otel_export.py"}

#: What ``-m "not slow"`` leaves out besides the tests marked ``slow`` in their own module and the
#: ``terminal`` ones, by reason: tests that take a second or more each (measured). An entry is a
#: module under tests/ or ``module::test_function`` (every parametrisation); tests/test_suite.py
#: checks that each still exists.
SLOW: dict[str, tuple[str, ...]] = {
    "runs chatcli as a real process (a second or more a test)": (
        "cli/test_oneshot_imports.py",
        "personas/test_agent_types.py::test_a_hostile_repository_through_the_real_command_line",
        "skills/test_skills_cli.py",
        "subagents/test_subagents_oneshot.py",
        "agent/test_modes.py",
        "agent/test_run_economy.py",
        "cli/test_help_cache.py",
        "context/test_environment.py",
        "diff/test_diff_oneshot.py",
        "repomap/test_repomap_cli.py",
        "sessions/test_projects.py",
        "agent/test_user_hooks.py",
        "cli/test_bad_api_keys.py",
        "cli/test_config_masking.py",
        "cli/test_exit_codes.py::test_a_model_the_service_does_not_know_is_a_usage_error",
        "cli/test_hook_sequence.py",
        "cli/test_misbehaving_plugins.py",
        "cli/test_non_utf8_arguments.py::test_non_utf8_bytes_in_the_prompt_argument_do_not_crash",
        "cli/test_non_utf8_arguments.py::test_the_prompt_and_system_text_still_take_any_bytes",
        "cli/test_plugin_import_audit.py",
        "cli/test_plugins_uninstall.py::test_plugins_uninstall_refuses_chatcli_itself_and_non_plugins",
        "cli/test_process.py",
        "cli/test_process_ends.py::test_a_reader_closing_the_pipe_early_is_a_normal_end",
        "cli/test_process_ends.py::test_every_json_failure_is_one_object_and_one_line",
        "cli/test_process_ends.py::test_json_after_a_cut_stream_carries_the_partial_text",
        "cli/test_provider_options.py",
        "cli/test_response_timeout.py",
        "cli/test_resume.py",
        "cli/test_retries.py",
        "cli/test_slash_commands.py",
        "cli/test_stdin.py::test_non_utf8_stdin_is_sent_with_replacements_and_a_warning",
        "cli/test_stdin.py::test_utf16_stdin_with_a_bom_is_decoded",
        "cli/test_trace_hooks.py",
        "compaction/test_scenario_cli.py",
        "context/test_prefix.py::test_the_prefix_survives_resume_with_chatcli_c",
        "context/test_pull_off.py::test_the_variable_is_honoured_by_the_command_line",
        "context/test_status.py::test_a_provider_without_prompt_caching_and_the_command_line",
        "cost/test_cost_command.py",
        "cost/test_cost_side_calls.py",
        "cost/test_cost_model_table.py::test_cost_uses_the_model_tables_prices_through_the_real_cli",
        "cost/test_cost_workers.py::test_cost_after_resume_in_a_real_process_shows_the_workers",
        "fallback/test_fallback_chain.py",
        "fallback/test_fallback_pool.py",
        "fallback/test_fallback_text_protocol.py",
        "kernel/test_lazy_plugins.py",
        "memory/test_failures.py::test_a_broken_file_from_the_command_line",
        "memory/test_failures.py::test_an_unknown_backend_from_the_command_line",
        "memory/test_memory_commands.py::test_the_command_line",
        "memory/test_worker.py::test_one_shot_runs_extract_only_when_asked",
        "personas/test_command_templates.py::test_chatcli_p_expands_a_template_and_asks",
        "personas/test_persona_command.py::test_chatcli_c_resumes_the_persona_and_off_ends_it",
        "providers/cli/test_cli_provider_chatcli.py",
        "providers/openai/test_openai_azure.py::test_chatcli_p_answers_from_an_azure_deployment",
        "providers/openai/test_openai_errors.py"
        "::test_the_one_shot_cli_hides_a_password_in_openai_base_url",
        "providers/openai/test_openai_services.py::test_mistral_through_the_cli_sends_tools_natively",
        "providers/openai/test_openai_services.py"
        "::test_perplexity_through_the_cli_sends_no_tools_but_describes_them",
        "providers/q/test_q_cli.py",
        "providers/q/test_q_daemon.py",
        "providers/test_any_character.py",
        "providers/test_audit_faults.py",
        "providers/test_remote_models.py",
        "security/test_git_tool_denied.py::test_the_git_tool_shows_no_denied_change",
        "sessions/test_any_character.py",
        "sessions/test_cli.py",
        "sessions/test_export.py::test_an_answer_cut_inside_a_code_block_is_closed_and_marked",
        "sessions/test_import.py",
        "skills/test_cli_turns.py",
        "trust/test_plugin_gating.py",
        "trust/test_setting_rules.py::test_nothing_a_never_rule_names_gets_through",
        "checkpoints/test_checkpoints_cli.py::test_rewind_last_and_undo_from_the_shell",
        "providers/cli/test_cli_provider_failures.py",
        "coder/test_tool_schemas.py::test_a_stale_or_damaged_cache_is_made_again",
        "cli/test_keys_set.py::test_config_set_refuses_to_write_an_api_key_in_plain_text",
        "cli/test_non_utf8_arguments.py::test_config_set_with_a_non_utf8_value_writes_nothing",
        "cli/test_config_faults.py"
        "::test_config_set_and_keys_set_on_an_unwritable_disk_fail_in_one_line",
        "cli/test_config_faults.py::test_deep_nesting_in_a_real_process",
        "managed/test_managed_loosening.py"
        "::test_a_lower_min_value_is_taken_and_an_equal_fixed_one_is_fine",
        "managed/test_managed_loosening.py"
        "::test_deny_rules_keep_their_items_whatever_the_layers_below_say",
        "providers/openai/test_openai_azure.py"
        "::test_chatcli_p_without_an_endpoint_is_one_line_exit_2",
        # the language tests: the real command line in Portuguese and in English
        "context/test_context_language.py",
        "mcp/test_mcp_language.py",
        "compaction/test_compaction_language.py",
        "personas/test_persona_language.py",
        "memory/test_memory_language.py",
        "coder/test_coder_language.py",
        "agent/test_i18n_agent.py::test_slash_commands_of_a_real_run_in_portuguese",
        "otel/test_otel_language.py",
        "repomap/test_repomap_language.py",
        "remote/test_remote_language.py",
        "fallback/test_fallback_language.py",
        "audit/test_audit_language.py",
        "audit/test_decided_portuguese.py",
        "admin/test_i18n_admin.py",
        "cli/test_cli_portuguese.py",
        "cli/test_i18n_print.py",
        "i18n/test_language.py::test_the_model_is_asked_to_answer_in_the_users_language",
        "i18n/test_click_words.py::test_click_speaks_portuguese",
        "checkpoints/test_checkpoints_cli.py::test_rewind_undo_and_diff_in_brazilian_portuguese",
        "providers/openai/test_openai_pt_br.py::test_a_missing_azure_endpoint_is_told_in_portuguese",
        "providers/q/test_q_pt_br.py::test_q_failures_name_their_fix_in_portuguese",
        "providers/ollama/test_ollama_pt_br.py::test_a_bad_ollama_host_is_told_in_portuguese",
        "providers/local/test_local_pt_br.py::test_an_unknown_local_model_is_told_in_portuguese",
        "providers/cli/test_cli_provider_pt_br.py"
        "::test_a_missing_claude_names_its_install_in_portuguese",
        "memory_postgres/test_postgres_pt_br.py::test_the_command_line_says_it_in_portuguese",
        "sessions/test_pt_br.py::test_the_command_line_speaks_portuguese",
        "sessions_postgres/test_pg_pt_br.py::test_the_command_line_says_it_in_portuguese",
        "skills/test_skills_portuguese.py::test_help_and_errors_speak_portuguese",
        "providers/q/test_q_pt_br.py::test_the_install_hint_is_in_portuguese",
    ),
    "runs commands in the bubblewrap sandbox": (
        "agent/test_policy_classes.py"
        "::test_a_projects_mode_is_never_used_so_its_spelling_stops_nothing",
        "agent/test_policy_classes.py::test_a_rule_for_a_tool_no_plugin_gives_is_kept",
        "agent/test_policy_classes.py::test_a_wrong_mode_or_rule_kind_is_a_configuration_error",
        "agent/test_scripted_runs.py",
        "coder/test_exec.py::test_a_timeout_kills_the_whole_group_even_a_child_ignoring_sigterm",
        "coder/test_exec.py::test_long_output_keeps_its_head_and_tail",
        "coder/test_exec.py::test_no_process_is_left_behind_by_many_quick_commands",
        "coder/test_exec.py::test_output_is_streamed_while_the_command_runs",
        "coder/test_git_and_test.py"
        "::test_a_coding_turn_reads_runs_the_tests_fixes_and_runs_them_again",
        "coder/test_sandbox_confinement.py",
        "security/test_git_runs_nothing.py",
        "security/test_scrubbed_env.py"
        "::test_commands_get_no_secret_variables_with_and_without_the_sandbox",
        "security/test_scrubbed_env.py"
        "::test_mcp_stdio_servers_get_no_secret_variables_but_what_their_config_names",
        "security/test_scrubbed_env.py::test_user_hooks_get_no_secret_variables",
        "trust/test_project_attacks.py",
        "trust/test_trust_flow.py",
    ),
    "waits seconds on purpose (a background worker, a command stopped mid-run)": (
        "coder/test_exec.py::test_stopping_the_turn_kills_the_command",
        "memory/test_worker.py::test_the_worker_never_delays_the_next_prompt",
        "memory/test_idle_extraction.py",
        "render/test_held_text.py"
        "::test_a_steady_stream_is_drawn_by_its_chunks_and_the_timer_adds_no_draw_per_chunk",
    ),
    "starts real MCP servers": (
        "mcp/test_mcp_cli_runs.py",
        "mcp/test_mcp_commands.py",
        "mcp/test_mcp_economy.py",
        "mcp/test_mcp_lifecycle.py",
        "mcp/test_mcp_prompts_resources.py",
        "mcp/test_mcp_serve.py",
    ),
    "runs git in hostile repositories, one process per case": (
        "repomap/test_hostile.py",
        "subagents/test_worktree.py::test_a_hostile_repository_config_runs_nothing",
    ),
    "a real chatcli run per batch of attack cases (the full suite runs every row of every class)":
    (
        "security/test_agent_security.py",
        "security/test_policy_class_attacks.py",
        "security/test_sandbox_attacks.py",
    ),
    "starts PostgreSQL servers or many writer processes": (
        "memory_postgres/test_postgres_contract.py",
        "memory_postgres/test_postgres_errors.py",
        "memory_postgres/test_postgres_plugin.py",
        "memory_postgres/test_postgres_schema.py",
        "memory_postgres/test_postgres_search.py",
        "memory_postgres/test_postgres_stems.py",
        "memory_postgres/test_postgres_any_character.py"
        "::test_any_character_is_remembered_on_postgres",
        "memory_postgres/test_postgres_processes.py::test_concurrent_processes_lose_nothing",
        "sessions/test_concurrency.py",
        "sessions/test_migrate.py::test_the_real_command_line_names_an_unknown_store",
        "sessions/test_backends.py::test_the_user_config_names_the_store_and_a_project_cannot",
        "sessions_postgres/test_pg_any_character.py",
        "sessions_postgres/test_pg_catalog.py",
        "sessions_postgres/test_pg_contract.py",
        "sessions_postgres/test_pg_errors.py",
        "sessions_postgres/test_pg_plugin.py",
        "sessions_postgres/test_pg_replicas.py",
        "sessions_postgres/test_pg_same_as_sqlite.py",
        "sessions_postgres/test_pg_smoke.py",
        "audit/test_audit_postgres.py",
        "memory/test_sqlite.py::test_two_processes_writing_at_once_lose_nothing",
    ),
    "draws hundreds of property-test examples": (
        "coder/test_edit.py::test_an_exact_unique_edit_changes_exactly_that_text",
        "coder/test_edit.py::test_trailing_whitespace_differences_still_find_the_one_block",
        "compaction/test_compaction_properties.py",
        "diff/test_diff_text.py::test_a_large_file_with_scattered_edits_is_diffed_quickly",
        "kernel/test_plugin_order.py::test_any_registration_order_calls_as_the_position_order",
        "context/test_pull_args.py",
        "provider_kit/test_openai_format.py::test_fragmented_arguments_reassemble_exactly",
        "provider_kit/test_textcalls_properties.py"
        "::test_a_well_formed_call_in_any_text_is_found_exactly",
        "provider_kit/test_textcalls_properties.py::test_format_then_parse_round_trips",
        "providers/anthropic/test_anthropic_cache.py::test_breakpoints_in_any_request_shape",
        "providers/cli/test_cli_jsonl_properties.py",
        "providers/q/test_q_clean.py::test_ordinary_text_is_kept_whatever_its_colour",
        "skills/test_properties.py",
        "trust/test_trust_question_text.py::test_any_json_gives_bounded_printable_lines",
        "agent/test_shell.py::test_a_compound_command_is_allowed_only_when_every_part_is",
        "coder/test_patch.py::test_a_generated_begin_patch_applies_exactly",
        "coder/test_patch.py::test_a_generated_unified_diff_applies_exactly",
        "coder/test_patch.py::test_the_parser_and_applier_raise_nothing_but_patch_errors",
        "config_edit/test_config_edit.py::test_any_text_set_for_a_text_setting_is_stored_as_typed",
        "context/test_frontmatter.py::test_globs_read_back_the_same_in_every_style",
        "fallback/test_fallback_units.py::test_entries_read_back_from_text_and_arrays",
        "frontmatter/test_frontmatter_reader.py::test_what_yaml_writes_reads_back_as_yaml_reads_it",
        "frontmatter/test_frontmatter_reader.py"
        "::test_any_text_is_read_or_refused_with_the_readers_own_one_line_error",
        "kernel/test_compaction_view.py::test_the_linked_view_equals_the_definition",
        "kernel/test_stash_historic.py::test_a_stash_behaves_like_a_dict_keyed_by_key_objects",
        "memory/test_extraction_parsing.py::test_well_formed_answers_round_trip",
        "memory/test_extraction_parsing.py::test_any_json_value_parses_or_is_an_extraction_error",
        "personas/test_claude_tools.py::test_chatcli_names_round_trip_as_a_string_and_as_a_list",
        "personas/test_claude_tools.py::test_any_yaml_value_is_read_without_raising",
        "provider_kit/test_util.py::test_tool_arguments_round_trip",
        "providers/anthropic/test_anthropic_convert.py::test_conversion_invariants",
        "providers/local/test_local_repetition.py::test_any_piece_repeated_far_enough_is_caught",
        "render/test_stream.py::test_any_chunking_gives_the_same_output",
        "workspace/test_paths.py::test_whatever_resolves_is_inside_or_refused",
        "agent/test_shell.py::test_the_parser_never_raises",
        "agent/test_shell.py::test_the_policy_never_raises_on_shell_like_text",
        "coder/test_edit.py::test_a_block_shifted_by_one_indentation_is_found_and_new_shifted_alike",
        "coder/test_edit.py::test_the_cascade_never_raises_anything_but_a_tool_error",
        "diff/test_diff_text.py::test_any_text_is_read_without_failing",
        "diff/test_diff_text.py::test_the_full_context_diff_holds_both_texts",
        "diff/test_diff_text.py::test_the_anchored_diff_of_long_changes_holds_both_texts",
        "diff/test_diff_text.py::test_counts_read_back_balance_the_line_counts",
        "provider_kit/test_textcalls_parse.py::test_formatted_calls_round_trip_inside_any_prose",
        "provider_kit/test_textcalls_properties.py"
        "::test_characters_examined_stay_a_small_multiple_of_the_text",
        "memory/test_extraction_parsing.py::test_any_text_parses_or_is_an_extraction_error",
        "providers/q/test_q_clean.py::test_never_crashes_and_removes_every_control",
        "providers/q/test_q_clean.py::test_the_split_into_reads_does_not_matter",
        "providers/q/test_q_clean.py::test_cleaning_is_idempotent",
        "render/test_stream.py::test_any_chunking_on_a_terminal_leaves_the_same_screen",
        "security/test_scrubbed_env.py"
        "::test_scrubbing_only_removes_and_never_keeps_a_secret_unasked",
    ),
    "feeds inputs large enough to show a cost that grows too fast": (
        "render/test_stream.py::test_a_long_growing_code_block_is_not_parsed_again_on_every_line",
        "providers/openai/test_openai_wire.py::test_a_long_history_is_sent_as_create_sends_it",
    ),
    "runs a tool on the code (pytest, mypy, a wheel build) or 200 full garbage collections": (
        "kernel/test_safe_message_memo.py"
        "::test_a_dead_messages_memory_goes_with_it_and_its_id_proves_nothing",
        "packaging/test_typed_api.py::test_mypy_sees_the_real_type_of_every_public_name",
        "personas/test_persona_pack.py::test_the_wheel_ships_the_persona_files",
        "testing/test_contract.py::test_an_incomplete_subclass_fails_with_a_clear_message",
        "testing/test_memory_contract.py"
        "::test_the_contract_fails_exactly_where_a_backend_breaks_a_rule",
    ),
}


def _slow_reasons() -> dict[str, str]:
    return {entry: reason for reason, entries in SLOW.items() for entry in entries}


_SLOW_REASONS = _slow_reasons()


def _slow_reason(item: pytest.Item) -> str | None:
    path = Path(str(item.fspath))
    if not path.is_relative_to(Path(__file__).parent):
        return None
    module = path.relative_to(Path(__file__).parent).as_posix()
    name = getattr(item, "originalname", item.name)
    return _SLOW_REASONS.get(f"{module}::{name}") or _SLOW_REASONS.get(module)


@pytest.fixture
def home(chatcli_home: Path) -> Path:
    """The test's chatcli home: ``<home>/config``, ``<home>/data`` and ``<home>/cache`` are
    chatcli's folders (``CHATCLI_CONFIG_DIR``…); provider keys, base URLs and other ``CHATCLI_*``
    variables are cleared. The same folder as ``chatcli_home`` (chatcli_testing), under the
    suite's short name. ``HOME`` is left alone: git finds its identity there."""
    return chatcli_home


@pytest.fixture
def user_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``home`` as the user's home folder too (``HOME``; ``CLAUDE_CONFIG_DIR`` unset, so
    ``~/.claude`` is in it), with fake keys (``OPENAI_API_KEY=sk-test``,
    ``ANTHROPIC_API_KEY=sk-ant-test``) and ``NO_COLOR`` unset: nothing of the real user's
    folders or settings reaches plugins that read them (skills, personas, context, MCP, memory)."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return home


@pytest.fixture
def workspace_is_project_root() -> bool:
    """Whether ``workspace`` holds an empty ``.git/``. A folder whose workspace must be no git
    repository (the coder's tests make one when they want it) overrides this with ``False``."""
    return True


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              workspace_is_project_root: bool) -> Path:
    """A project: ``<tmp>/project``, the current folder, and a project root (it holds an empty
    ``.git/``, so chatcli looks no higher for project files; see ``workspace_is_project_root``)."""
    root = tmp_path / "project"
    root.mkdir()
    if workspace_is_project_root:
        (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def _group(item: pytest.Item) -> str | None:
    if item.get_closest_marker("terminal"):
        return "terminal"
    path = Path(str(item.fspath))
    if path.name == "test_local_model.py":
        return "local-model"
    if path.name in _GROUPED_MODULES:
        return path.stem
    return _GROUPS_BY_FOLDER.get(path.parent.name)


@pytest.hookimpl(tryfirst=True)  # before xdist's, which turns the marks into node-id suffixes
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """xdist groups, and ``slow`` (before ``-m`` deselects) on every ``terminal`` test — a REPL in
    tmux takes seconds a test — and on the tests listed in ``SLOW``."""
    for item in items:
        if not item.get_closest_marker("slow"):
            reason = "drives the REPL in tmux" if item.get_closest_marker("terminal") \
                else _slow_reason(item)
            if reason is not None:
                item.add_marker(pytest.mark.slow(reason=reason))
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
