"""Entry module of chatcli-provider-local: registers the offline model.

Light on purpose: llama.cpp (``xllamacpp``) is imported only when the model is first loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:  # the data model is imported when a hook runs, not at start-up
    from chatcli import Provider, ProviderConfig, ProviderSpec

__all__ = ["CONTEXT_WINDOW", "local_spec", "make_local_provider", "register_providers"]

_, ngettext = translation(__name__)

#: The context the model runs with unless ``context_size`` says otherwise
#: (``runtime.DEFAULT_CONTEXT``, not imported here: that module prepares llama.cpp's threads).
#: With ``context_size`` set, set ``[providers.local] context_window`` to the same number.
CONTEXT_WINDOW = 4096


def make_local_provider(config: ProviderConfig) -> Provider:
    """Build the local provider: finds and checks the GGUF file; the model loads on first use.
    Tools, when offered (``[providers.local] tools = true``), go through the text tool-call
    protocol (``config.native_tools`` is False unless ``tool_calls = "native"``)."""
    from chatcli_provider_kit.textcalls import text_tool_calls

    from chatcli_provider_local.provider import LocalProvider

    return text_tool_calls(LocalProvider(config), config)


def local_spec() -> ProviderSpec:
    """The ``local`` provider's spec."""
    from chatcli import Capabilities, ProviderOption, ProviderSpec

    return ProviderSpec(
        name="local",
        display_name=_("Local (offline, SmolLM2-135M)"),
        factory=make_local_provider,
        default_model="smollm2-135m",
        requires_key=False,
        models=["smollm2-135m"],
        # A 135M model cannot use a tool catalog (it alone would take ~4,000 of the 4,096 tokens of
        # context): lean requests, unless [providers.local] tools = true (a bigger GGUF).
        capabilities=Capabilities(streaming=True, native_tools=False, uses_tools=False),
        priority=10,
        context_windows={"": CONTEXT_WINDOW},
        description=_("A small model that runs in-process on the CPU: no key, no network. "
                      "Any GGUF file via providers.local.model_path."),
        options={
            "model_path": ProviderOption(str, _("a GGUF file to run instead of SmolLM2-135M")),
            "context_size": ProviderOption(int, _("context window in tokens")),
            "threads": ProviderOption(int, _("CPU threads generating the answer (default 1: "
                                             "fastest on 2 cores)")),
            "batch_threads": ProviderOption(int, _("CPU threads reading the prompt (default: "
                                                   "every core, at most 4)")),
            "max_tokens": ProviderOption(int, _("longest answer in tokens when none is asked "
                                                "for (default 512)")),
            "stop_on_repetition": ProviderOption(bool, _("stop an answer that repeats itself "
                                                         "(default true)")),
            "chat_template": ProviderOption(str, _("a llama.cpp built-in template (chatml, "
                                                   "llama3…) or a jinja template, instead of "
                                                   "the model's own")),
        },
    )


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register the ``local`` provider."""
    register(local_spec())
