"""Entry module of chatcli-provider-q: registers the provider ``q`` (light: imports nothing heavy).

The provider runs the Amazon Q Developer CLI: a persistent ``q chat`` process (the daemon, by
default) or one ``q chat --no-interactive`` per answer (``CHATCLI_Q_DAEMON=false`` or
``[providers.q] daemon = false``). Processes and their cleaning are imported when it is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:  # the data model is imported when a hook runs, not at start-up
    from chatcli import Provider, ProviderConfig, ProviderSpec

__all__ = ["make_provider", "q_spec", "register_providers"]

_, ngettext = translation(__name__)


def make_provider(config: ProviderConfig) -> Provider:
    """The daemon provider, unless the daemon is switched off; finds ``q`` on PATH (or
    ``[providers.q] command``) now, so that a missing CLI is one line before anything runs."""
    from chatcli_provider_kit.textcalls import text_tool_calls

    from chatcli_provider_q._options import daemon_wanted

    # q takes no tool definitions: chatcli's tools, when offered (``tools = true``), are
    # described in the prompt and read from the answer (the text tool-call protocol)
    if daemon_wanted(config.options):
        from chatcli_provider_q._daemon import QDaemonProvider

        return text_tool_calls(QDaemonProvider(config), config)
    from chatcli_provider_q._plain import QProvider

    return text_tool_calls(QProvider(config), config)


def q_spec() -> ProviderSpec:
    """The ``q`` provider's spec."""
    from chatcli import Capabilities, ProviderOption, ProviderSpec

    return ProviderSpec(
        name="q",
        display_name="Amazon Q (q chat)",
        factory=make_provider,
        default_model="default",
        requires_key=False,
        models=["default"],
        # q runs its own tools (trust_all_tools); chatcli's are not offered to it: lean requests
        capabilities=Capabilities(streaming=True, native_tools=False, uses_tools=False),
        priority=3,
        auto_select=False,
        description=_("The Amazon Q Developer CLI you are logged in to (`q login`): no API "
                      "key."),
        options={
            "command": ProviderOption(str, _("the q executable, with arguments if needed")),
            "daemon": ProviderOption(bool, _("keep one q chat running (default true)")),
            "context": ProviderOption(str, _("how q learns the conversation: transcript or "
                                             "resume")),
            "trust_all_tools": ProviderOption(bool, _("pass --trust-all-tools: q runs its "
                                                      "tools without asking")),
            "args": ProviderOption(list, _("more q chat arguments (\"--agent\", \"NAME\")"),
                                   items=str),
            "idle_end": ProviderOption((int, float), _("seconds of silence that end a daemon "
                                                       "answer when no prompt shows (0: "
                                                       "never)")),
            "settle": ProviderOption((int, float), _("seconds the output must rest after the "
                                                     "prompt shows")),
            "system_prompt": ProviderOption(bool, _("also send chatcli's identity and the "
                                                    "date (q has its own)")),
        },
    )


@hookimpl
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register ``q``: keyless, used only when named (``--provider q``, ``provider = "q"``)."""
    register(q_spec())
