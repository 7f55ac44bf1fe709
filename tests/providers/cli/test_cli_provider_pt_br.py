"""chatcli-provider-cli in Brazilian Portuguese: the install hints of Claude Code and Codex, the
errors of a run and their fixes (the assistant's own words kept inside the sentence), the
options' descriptions; English unchanged."""

from __future__ import annotations

import chatcli_provider_cli.plugin as cli_plugin
from chatcli import PluginHost
from chatcli_provider_cli.base import cli_error
from process_support import CHATCLI, run_process


def test_a_missing_claude_names_its_install_in_portuguese(tmp_path):
    args = [CHATCLI, "-p", "hello", "--provider", "claude-code"]
    done = run_process(args, tmp_path, PATH="/usr/bin:/bin", CHATCLI_LANG="pt_BR")
    assert done.returncode == 2
    assert "`claude` não está instalado ou não está no PATH" in done.stderr
    assert ("instale o Claude Code (npm install -g @anthropic-ai/claude-code) e faça login uma "
            "vez com `claude`, ou defina o caminho dele: chatcli config set "
            "providers.claude-code.command /path/to/claude") in done.stderr
    english = run_process(args, tmp_path, PATH="/usr/bin:/bin")
    assert "`claude` is not installed or not on PATH" in english.stderr
    assert "install Claude Code (npm install -g @anthropic-ai/claude-code)" in english.stderr


def test_a_text_tool_protocol_is_refused_in_portuguese(tmp_path):
    (tmp_path / "config").mkdir(exist_ok=True)
    (tmp_path / "config" / "config.toml").write_text('[providers.codex]\ntool_calls = "text"\n')
    done = run_process([CHATCLI, "-p", "hello", "--provider", "codex"], tmp_path,
                       CHATCLI_LANG="pt_BR")
    assert "Codex executa as próprias ferramentas" in done.stderr
    assert "rode `chatcli config unset providers.codex.tool_calls`" in done.stderr


def test_the_assistant_words_stay_inside_the_translated_sentence(chatcli_language):
    chatcli_language("pt_BR")
    error = cli_error("the flux capacitor is empty", who="Codex", provider="codex",
                      hints={"other": "x"})
    assert error.message == "Codex falhou: the flux capacitor is empty"


def test_the_descriptions_are_translated(chatcli_language):
    chatcli_language("pt_BR")
    host = PluginHost()
    host.register(cli_plugin, "cli")
    codex = host.providers()["codex"]
    assert codex.description == ("A CLI Codex da OpenAI (`codex exec`), com login e "
                                 "ferramentas próprios.")
    assert codex.options["args"].description == "argumentos extras para cada execução"
