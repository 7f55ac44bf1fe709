"""Entry module of chatcli-provider-anthropic: registers the provider; imports no SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:  # the data model is imported when a hook runs, not at start-up
    from chatcli import Provider, ProviderConfig, ProviderSpec

_, ngettext = translation(__name__)

#: The model used when none is configured.
DEFAULT_MODEL = "claude-sonnet-5-5"

#: Models offered in ``chatcli models`` (any other model id works too).
MODELS = ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-4-8"]

#: Tokens each model's context holds, by model-name prefix (the longest match wins). Every Claude
#: model takes 200,000; the 1M-token window of some models needs a beta header this provider
#: does not send (set ``[providers.anthropic] context_window`` where a gateway gives it). Other
#: names (another service behind ANTHROPIC_BASE_URL) get chatcli's default.
CONTEXT_WINDOWS = {"claude-": 200_000}


def make_provider(config: ProviderConfig) -> Provider:
    """Build the provider; the anthropic SDK is imported only now. ``[providers.anthropic]
    tool_calls = "text"`` makes it speak the text tool-call protocol."""
    from chatcli_provider_kit.textcalls import text_tool_calls

    from chatcli_provider_anthropic.provider import AnthropicProvider

    return text_tool_calls(AnthropicProvider(config), config)


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register Anthropic's Messages API as the provider ``anthropic``."""
    from chatcli import Capabilities, ProviderOption, ProviderSpec

    register(
        ProviderSpec(
            name="anthropic",
            display_name="Anthropic",
            factory=make_provider,
            default_model=DEFAULT_MODEL,
            env_keys=["ANTHROPIC_API_KEY"],
            base_url_env="ANTHROPIC_BASE_URL",
            models=MODELS,
            capabilities=Capabilities(prompt_caching=True, vision=True,
                                      cache_ttls=("5m", "1h"), model_list=True),
            priority=60,
            description=_("Claude models through the Anthropic Messages API (prompt caching)."),
            context_windows=CONTEXT_WINDOWS,
            options={
                "prompt_caching": ProviderOption(bool, _("mark the stable prompt prefix for "
                                                         "caching (default true)")),
                "cache_messages": ProviderOption(bool, _("also cache the conversation so far "
                                                         "(default true)")),
                "cache_ttl": ProviderOption(str, _('cache lifetime: "5m" (default) or "1h"; a '
                                                   "request's own TTL wins")),
                "volatile_last": ProviderOption(bool, _("in agent runs, send the prompt "
                                                        "sections that change every step after "
                                                        "the history, so the cache reaches it "
                                                        "(default true)")),
                "max_tokens": ProviderOption(int, _("output limit when none is set")),
            },
        )
    )
