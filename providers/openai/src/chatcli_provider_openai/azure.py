"""Azure OpenAI: the same chat completions through the SDK's ``AzureOpenAI`` client.

An Azure resource is addressed by its endpoint (``https://NAME.openai.azure.com``), a
deployment (the name the user gave a model there) and an ``api-version`` query parameter; the
key travels in an ``api-key`` header. The SDK builds
``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`` and the header;
everything else (streaming, tools, usage, errors) is :class:`OpenAIProvider`'s. Importing this
module imports the SDK.
"""

from __future__ import annotations

import os

import openai
from chatcli import ConfigError, ProviderConfig, translation

from chatcli_provider_openai.presets import AZURE_API_VERSION, Preset
from chatcli_provider_openai.provider import OpenAIProvider, http_client

__all__ = ["AzureOpenAIProvider"]

#: Variable naming the API version when the config does not (the SDK's own variable).
API_VERSION_ENV = "OPENAI_API_VERSION"

_, ngettext = translation(__name__)


class AzureOpenAIProvider(OpenAIProvider):
    """Streams chat completions from an Azure OpenAI deployment.

    ``config.options`` may hold ``endpoint`` (else ``config.base_url``: ``[providers.azure]
    base_url`` or ``AZURE_OPENAI_ENDPOINT``), ``deployment`` (else the model name) and
    ``api_version`` (else ``OPENAI_API_VERSION``, else :data:`AZURE_API_VERSION`), besides the
    options every OpenAI preset takes.
    """

    def __init__(self, config: ProviderConfig, preset: Preset | None = None) -> None:
        options = config.options or {}
        endpoint = str(options.get("endpoint") or config.base_url or "").strip()
        if not endpoint:
            raise ConfigError(
                _("no Azure OpenAI endpoint is configured"),
                _("set [providers.azure] endpoint = \"https://NAME.openai.azure.com\" or export "
                  "AZURE_OPENAI_ENDPOINT"))
        self.deployment = str(options.get("deployment") or config.model)
        self.api_version = str(options.get("api_version") or os.environ.get(API_VERSION_ENV)
                               or AZURE_API_VERSION)
        super().__init__(config._replace(base_url=endpoint.rstrip("/")), preset=preset)

    def _make_client(self, headers: dict[str, str] | None) -> openai.OpenAI:
        """``AzureOpenAI`` on the endpoint and deployment (the key as ``api-key``)."""
        return openai.AzureOpenAI(
            api_key=self.config.api_key,
            azure_endpoint=self.base_url,
            azure_deployment=self.deployment,
            api_version=self.api_version,
            timeout=self.config.timeout,
            max_retries=0,
            default_headers=headers,
            http_client=http_client(),
        )
