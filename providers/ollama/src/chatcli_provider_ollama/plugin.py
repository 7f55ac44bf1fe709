"""Entry module of chatcli-provider-ollama: registers the provider; imports no SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

from chatcli_provider_ollama.defaults import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_HOST,
    DEFAULT_MODEL,
    MODELS,
)

if TYPE_CHECKING:  # the data model is imported when a hook runs, not at start-up
    from chatcli import Provider, ProviderConfig, ProviderSpec

_, ngettext = translation(__name__)


def make_provider(config: ProviderConfig) -> Provider:
    """Build the provider; the ollama SDK is imported only now."""
    import os

    try:
        # `import ollama` builds a default client from OLLAMA_HOST and raises on a bad one
        from chatcli_provider_ollama.provider import OllamaProvider
    except ValueError as err:
        from chatcli import ConfigError

        raise ConfigError(
            _("OLLAMA_HOST '{host}' is not a valid address ({reason})").format(
                host=os.environ.get("OLLAMA_HOST", ""), reason=err),
            _("set OLLAMA_HOST to host:port or http://host:port"),
        ) from None
    from chatcli_provider_kit.textcalls import text_tool_calls

    return text_tool_calls(OllamaProvider(config), config)  # tool_calls = "text": in the prompt


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register a local (or remote) Ollama server as the provider ``ollama``.

    It needs no key, and it is never chosen automatically (the server may not be running): it is
    used only when named (``--provider ollama`` or ``provider = "ollama"``).
    """
    from chatcli import Capabilities, ProviderOption, ProviderSpec

    whole, number = ProviderOption(int, _("an Ollama model option")), ProviderOption(
        float, _("an Ollama model option"))
    register(
        ProviderSpec(
            name="ollama",
            display_name="Ollama",
            factory=make_provider,
            default_model=DEFAULT_MODEL,
            requires_key=False,
            env_keys=("OLLAMA_API_KEY",),  # ollama.com only; checked by chatcli before use
            base_url=DEFAULT_HOST,
            base_url_env="OLLAMA_HOST",
            models=MODELS,
            capabilities=Capabilities(vision=True, model_list=True),
            priority=5,
            auto_select=False,
            description=_("Models served by Ollama (`ollama serve`), no API key needed."),
            context_windows={"": DEFAULT_CONTEXT_WINDOW},
            options={
                **dict.fromkeys(("num_ctx", "num_predict", "top_k", "seed", "num_gpu",
                                 "num_thread"), whole),
                **dict.fromkeys(("top_p", "min_p", "repeat_penalty", "temperature"), number),
                "stop": ProviderOption(list, _("stop sequences"), items=str),
                "options": ProviderOption(dict, _("any other Ollama model options")),
                "keep_alive": ProviderOption((str, int), _('how long the model stays loaded '
                                                           '("5m", 0, -1)')),
                "think": ProviderOption((bool, str), _("thinking for models that support it")),
            },
        )
    )
