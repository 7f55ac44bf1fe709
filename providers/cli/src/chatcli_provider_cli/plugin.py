"""Entry module of chatcli-provider-cli: registers ``claude-code`` and ``codex``.

Light on purpose: nothing here starts a process or imports more than chatcli's records; the
providers' modules load when one of them is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from chatcli import Provider, ProviderConfig, ProviderSpec

#: "default": pass no --model, the CLI answers with the model its own settings choose.
DEFAULT_MODEL = "default"

#: These assistants manage (and compact) their own context: chatcli's compaction, which
#: would change the conversation and end the resumed session, should not start first.
CONTEXT_WINDOW = 1_000_000

_SYSTEM_PROMPT_MODES = ("user", "all", "none")

_, ngettext = translation(__name__)


def _store(name: str) -> object:
    from chatcli import data_dir

    from chatcli_provider_cli.conversation import SessionStore

    return SessionStore(data_dir() / "provider-cli" / "sessions.json", name)


def _check(config: ProviderConfig, who: str) -> None:
    from chatcli import ConfigError

    if not config.native_tools:
        # the text protocol would describe chatcli's tools in the prompt and read calls from
        # the answer: the assistant's own words about its tools must never become calls
        raise ConfigError(
            _("{who} runs its own tools; chatcli's cannot be offered to it in text "
              "(`[providers.{name}] tool_calls` says text)").format(who=who, name=config.name),
            _("run `chatcli config unset providers.{name}.tool_calls`").format(
                name=config.name))
    mode = config.options.get("system_prompt", "user")
    if mode not in _SYSTEM_PROMPT_MODES:
        raise ConfigError(
            _("'providers.{name}.system_prompt' must be one of {choices}, not "
              "{value!r:.40}").format(name=config.name, choices=", ".join(_SYSTEM_PROMPT_MODES),
                                      value=mode),
            _("fix it with `chatcli config set providers.{name}.system_prompt user`").format(
                name=config.name))


def make_claude(config: ProviderConfig) -> Provider:
    """Build the Claude Code provider."""
    from chatcli_provider_cli.claude import ClaudeCodeProvider

    _check(config, "Claude Code")
    return ClaudeCodeProvider(config, _store(config.name))  # type: ignore[arg-type]


def make_codex(config: ProviderConfig) -> Provider:
    """Build the Codex provider."""
    from chatcli_provider_cli.codex import CodexProvider

    _check(config, "Codex")
    return CodexProvider(config, _store(config.name))  # type: ignore[arg-type]


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register Claude Code (``claude-code``) and Codex (``codex``).

    They need no key of chatcli's (each CLI has its own login) and are never chosen
    automatically: a CLI may not be installed or logged in, so each is used only when named
    (``--provider claude-code``). They run their own tools, so chatcli's are not offered: the
    capabilities say native tool calling, so the engine passes tools as API definitions, which
    the providers do not forward (``tool_calls = "text"`` is refused).
    """
    from chatcli import Capabilities, ProviderOption, ProviderSpec

    common = {
        "command": ProviderOption((str, list), _("the program (path or name on PATH), or an "
                                                 "argument list to start it with"), items=str),
        "args": ProviderOption((str, list), _("extra arguments for every run"), items=str),
        "tool_timeout": ProviderOption((int, float), _("the longest silence while the "
                                                       "assistant runs one of its own tools "
                                                       "(seconds)")),
        "resume": ProviderOption(bool, _("continue the CLI's own session when the conversation "
                                         "matches it (else a transcript is sent)")),
        "system_prompt": ProviderOption(str, _("what of chatcli's system prompt is forwarded: "
                                               "user (the `system` setting), all, none")),
    }
    capabilities = Capabilities(streaming=True, native_tools=True, prompt_caching=False,
                                vision=False)
    register(ProviderSpec(
        name="claude-code",
        display_name="Claude Code",
        factory=make_claude,
        default_model=DEFAULT_MODEL,
        requires_key=False,
        models=[DEFAULT_MODEL, "sonnet", "opus", "haiku"],
        capabilities=capabilities,
        priority=4,
        auto_select=False,
        description=_("Anthropic's Claude Code CLI (`claude -p`), with its own login and "
                      "tools."),
        options={**common, "partial_messages": ProviderOption(
            bool, _("stream text as it is written (--include-partial-messages)"))},
        context_windows={"": CONTEXT_WINDOW},
    ))
    register(ProviderSpec(
        name="codex",
        display_name="Codex",
        factory=make_codex,
        default_model=DEFAULT_MODEL,
        requires_key=False,
        models=[DEFAULT_MODEL],
        capabilities=capabilities,
        priority=4,
        auto_select=False,
        description=_("OpenAI's Codex CLI (`codex exec`), with its own login and tools."),
        options={**common, "skip_git_repo_check": ProviderOption(
            bool, _("run outside a Git repository too (--skip-git-repo-check)"))},
        context_windows={"": CONTEXT_WINDOW},
    ))
