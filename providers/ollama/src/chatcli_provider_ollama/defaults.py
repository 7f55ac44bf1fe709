"""The provider's defaults: where Ollama listens, the model, its context window (read by the
entry module when it registers the provider, and by the provider when it connects)."""

__all__ = ["DEFAULT_CONTEXT_WINDOW", "DEFAULT_HOST", "DEFAULT_MODEL", "MODELS"]

#: Where Ollama listens unless OLLAMA_HOST or ``[providers.ollama] base_url`` says otherwise.
DEFAULT_HOST = "http://localhost:11434"

#: The model used when none is configured (pull it with ``ollama pull llama3.2``).
DEFAULT_MODEL = "llama3.2"

#: Models offered in ``chatcli models`` (any pulled model works).
MODELS = ["llama3.2", "qwen3", "gpt-oss", "mistral"]

#: The context Ollama gives a model unless told otherwise: 4,096 tokens on machines with less
#: than 24 GiB of VRAM (its documented default; more VRAM gets more). The model's own window
#: does not matter, since Ollama truncates to this one. With ``num_ctx`` (or
#: ``OLLAMA_CONTEXT_LENGTH``) set higher, set ``[providers.ollama] context_window`` to match.
DEFAULT_CONTEXT_WINDOW = 4096
