"""What a provider's service serves now: :func:`remote_models` (``chatcli models --remote``, the
REPL's ``/switch`` completion) through a provider's optional :class:`ModelLister` capability.
``chatcli.remote_models`` and ``chatcli.ModelLister`` until kernel 2.0: the kernel never used
them."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import ProviderSpec, Settings

__all__ = ["ModelLister", "remote_models"]
_, ngettext = translation(__name__)


@runtime_checkable
class ModelLister(Protocol):
    """The optional capability of a :class:`chatcli.Provider` to say which models its service
    serves.

    A provider whose spec sets ``Capabilities(model_list=True)`` implements it;
    :func:`remote_models` checks with ``isinstance(provider, ModelLister)`` before calling it.
    """

    def list_models(self) -> list[str]:
        """The ids of the models the service offers now (``GET /v1/models``, Ollama's
        ``/api/tags``…), in the service's order, each usable as ``--model``.

        Asks the service every time (callers cache). Raises a :class:`chatcli.ProviderError`
        subclass (no key, refused key, unreachable service) with a one-line message.
        """
        ...


def remote_models(spec: ProviderSpec, settings: Settings, *, timeout: float = 15.0
                  ) -> list[str]:
    """The model ids ``spec``'s service lists now, through the provider's optional
    :meth:`ModelLister.list_models` (``Capabilities.model_list``).

    Raises :class:`chatcli.UsageError` for a provider that cannot list its models, the
    :class:`chatcli.ConfigError` of a missing key, or the provider's
    :class:`chatcli.ProviderError` (refused key, service down), each one line. Waits at most
    ``timeout`` seconds for the service.
    """
    from chatcli import ChatcliError, ProviderError, UsageError, build_provider

    if not spec.capabilities.model_list:
        raise UsageError(_("{provider} does not list the models it serves").format(
            provider=spec.display_name), _("`chatcli models` shows the ones chatcli knows for "
                                           "{name}").format(name=spec.name))
    provider, _config = build_provider(spec, settings, timeout=timeout)
    try:
        if not isinstance(provider, ModelLister):
            raise ProviderError(
                _("the {provider} provider says it lists models but has no list_models()").format(
                    provider=spec.display_name),
                _("update the plugin that provides it (`chatcli plugins list` names it)"),
                provider=spec.name)
        try:
            return [str(m) for m in provider.list_models()]
        except ChatcliError:
            raise
        except Exception as err:
            raise ProviderError.unexpected(
                _("listing the {provider} models failed").format(provider=spec.display_name), err,
                _("report it to the plugin's authors (`chatcli plugins list` names it)"),
                spec.name) from err
    finally:
        close = getattr(provider, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
