"""chatcli provider plugin for Anthropic's Claude models (the Messages API, via the anthropic SDK).

The entry module is :mod:`chatcli_provider_anthropic.plugin`; the SDK is imported only when the
provider is built (:mod:`chatcli_provider_anthropic.provider`).
"""
