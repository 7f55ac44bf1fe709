"""chatcli provider plugin for Ollama (``/api/chat``, via the official ``ollama`` SDK).

The entry module is :mod:`chatcli_provider_ollama.plugin`; the SDK is imported only when the
provider is built (:mod:`chatcli_provider_ollama.provider`).
"""
