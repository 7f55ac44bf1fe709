"""Entry module of chatcli-provider-openai: registers OpenAI and its compatible presets.

Light on purpose: the ``openai`` SDK is imported only when a provider is built (see
:func:`make_factory`), so ``chatcli --help`` never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

from chatcli_provider_openai.presets import PRESETS, Preset

if TYPE_CHECKING:  # the data model is imported when a hook runs, not at start-up
    from chatcli import Provider, ProviderConfig, ProviderOption, ProviderSpec

__all__ = ["make_factory", "register_providers", "spec_for"]

_, ngettext = translation(__name__)
#: A preset's description, marked with ``N_`` in presets.py, in the user's language.
_translate = _


def make_factory(preset: Preset) -> Callable[[ProviderConfig], Provider]:
    """The factory of ``preset``: builds an ``OpenAIProvider``, importing the SDK only then
    (speaking the text tool-call protocol when ``config.native_tools`` is False: a preset
    without tools, or ``[providers.NAME] tool_calls = "text"``)."""

    def factory(config: ProviderConfig) -> Provider:
        from chatcli_provider_kit.textcalls import text_tool_calls

        if preset.kind == "azure":
            from chatcli_provider_openai.azure import AzureOpenAIProvider

            return text_tool_calls(AzureOpenAIProvider(config, preset=preset), config)
        from chatcli_provider_openai.provider import OpenAIProvider

        return text_tool_calls(OpenAIProvider(config, preset=preset), config)

    factory.__name__ = f"make_{preset.name}_provider"
    return factory


def options(preset: Preset | None = None) -> dict[str, ProviderOption]:
    """The provider-specific keys of ``[providers.NAME]`` (checked by chatcli before use);
    Azure's table also takes ``endpoint``, ``deployment`` and ``api_version``."""
    from chatcli import ProviderOption

    azure = {
        "endpoint": ProviderOption(str, _("the resource's endpoint, https://NAME.openai.azure.com "
                                          "(or AZURE_OPENAI_ENDPOINT)")),
        "deployment": ProviderOption(str, _("the deployment to call (default: the model name)")),
        "api_version": ProviderOption(str, _("the api-version query parameter "
                                             "(or OPENAI_API_VERSION)")),
    } if preset is not None and preset.kind == "azure" else {}
    return {
        **azure,
        "max_tokens_param": ProviderOption(str, _("the request field for the output limit "
                                                  "(max_tokens or max_completion_tokens)")),
        "stream_usage": ProviderOption(bool, _("ask for token usage in the stream "
                                               "(false for servers that reject stream_options)")),
        "headers": ProviderOption(dict, _("extra HTTP headers"), items=str),
        "extra_body": ProviderOption(dict, _("extra fields merged into every request body")),
        "volatile_last": ProviderOption(bool, _("in agent runs, send the prompt sections that "
                                                "change every step after the history, so the "
                                                "cached prefix reaches it (default true)")),
    }


def spec_for(preset: Preset, shared: Mapping[str, ProviderOption] | None = None) -> ProviderSpec:
    """The :class:`ProviderSpec` a preset registers; ``shared`` is its :func:`options` when the
    caller made them already (one table serves every preset of a kind)."""
    from chatcli import Capabilities, ProviderSpec

    return ProviderSpec(
        name=preset.name,
        display_name=preset.display_name,
        factory=make_factory(preset),
        default_model=preset.default_model,
        env_keys=list(preset.env_keys),
        requires_key=preset.requires_key,
        base_url=preset.base_url or None,
        base_url_env=preset.base_url_env,
        models=list(preset.models),
        capabilities=Capabilities(vision=preset.vision, native_tools=preset.native_tools,
                                  model_list=bool(preset.models_path)),
        priority=preset.priority,
        auto_select=preset.auto_select,
        description=_translate(preset.description) if preset.description else "",
        options=options(preset) if shared is None else shared,
        context_windows=dict(preset.context_windows),
    )


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register ``openai`` and every OpenAI-compatible preset of :data:`PRESETS`. The presets
    of a kind share one options table (the specs only read it), so its descriptions are made,
    and translated, once rather than for each of the twenty presets."""
    tables: dict[str, Mapping[str, ProviderOption]] = {}
    for preset in PRESETS:
        shared = tables.get(preset.kind)
        if shared is None:
            shared = tables[preset.kind] = options(preset)
        register(spec_for(preset, shared))
