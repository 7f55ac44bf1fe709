"""Entry module of the {{title}} provider: hookimpls and the spec only.

chatcli imports this module on every start, so it stays light: the HTTP client lives in
``client.py`` and is imported by :func:`create_provider` when the provider is first used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from chatcli import Provider, ProviderConfig, ProviderSpec

#: This package's messages in the user's language (its catalog is read on the first one, not
#: when chatcli imports this module).
_, ngettext = translation(__name__)

#: The provider's name: ``chatcli -p … --provider NAME``, ``[providers.NAME]`` in the
#: config file.
NAME = "{{name}}"
#: Where the service lives unless the variable named by ``base_url_env`` below or
#: ``[providers.NAME].base_url`` says otherwise. Any server speaking the OpenAI
#: chat-completions API works.
DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
#: The model used unless ``--model`` or ``[providers.NAME].model`` says otherwise.
DEFAULT_MODEL = "{{name}}-default"


def create_provider(config: ProviderConfig) -> Provider:
    """The factory chatcli calls with the resolved key, base URL and model."""
    from {{package}}.client import OpenAICompatibleProvider

    return OpenAICompatibleProvider(config, display_name="{{title}}")


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register the {{title}} provider."""
    from chatcli import Capabilities, ProviderSpec

    register(
        ProviderSpec(
            name=NAME,
            display_name="{{title}}",
            factory=create_provider,
            default_model=DEFAULT_MODEL,
            env_keys=["{{env}}_API_KEY"],
            requires_key=True,  # False for a local service that needs no key
            base_url=DEFAULT_BASE_URL,
            base_url_env="{{env}}_BASE_URL",
            models=[DEFAULT_MODEL],
            capabilities=Capabilities(streaming=True, native_tools=True),
            description=_("{{title}} (an OpenAI-compatible endpoint)"),
        )
    )
