"""chatcli-provider-local: an offline GGUF model (SmolLM2-135M by default) run in-process."""
