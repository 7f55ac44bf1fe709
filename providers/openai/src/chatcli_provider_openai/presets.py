"""The providers this package registers, as data: OpenAI and OpenAI-compatible services.

Each :class:`Preset` becomes one :class:`~chatcli.ProviderSpec`. Adding a service is adding a
row to :data:`PRESETS`; nothing else changes. This module imports no SDK.
"""

from __future__ import annotations

__all__ = ["AUTO_MODEL", "AZURE_API_VERSION", "PRESETS", "Preset"]

#: A default model meaning "ask the server (``GET /models``) and use the first model it lists";
#: used by local servers (LM Studio, vLLM) whose model names depend on what the user loaded.
AUTO_MODEL = "auto"

#: The Azure OpenAI data-plane API version used when neither ``[providers.azure] api_version``
#: nor ``OPENAI_API_VERSION`` names one (the latest generally available version).
AZURE_API_VERSION = "2024-10-21"


def N_(message: str) -> str:
    """Marks ``message`` for the catalog without translating it: a preset's description is
    translated where its spec is made (plugin.spec_for), not when this module is imported."""
    return message


class Preset:
    """One OpenAI-compatible service (read-only by convention).

    :param name: provider name (``--provider NAME``, ``[providers.NAME]``).
    :param display_name: how messages and ``chatcli models`` name it.
    :param base_url: the API root (the SDK appends ``/chat/completions``).
    :param default_model: used when no model is configured (:data:`AUTO_MODEL`: ask the server).
    :param env_keys: variables that may hold the API key (first found wins).
    :param requires_key: False for local servers that accept any key.
    :param base_url_env: variable that overrides ``base_url``.
    :param priority: automatic-selection order among providers that have a key.
    :param auto_select: False for local servers that may not be running: used only when named.
    :param max_tokens_param: request field carrying the output limit (``max_tokens`` or
        ``max_completion_tokens``); ``[providers.NAME] max_tokens_param`` overrides it.
    :param vision: whether the default models accept images.
    :param models: models offered in ``chatcli models`` (any other id works too).
    :param context_windows: ``(model-name prefix, tokens)`` pairs: how much input each model's
        context holds (the longest matching prefix wins; a model matching none gets chatcli's
        default, 128,000, or ``[providers.NAME] context_window``).
    :param native_tools: False for services whose chat API takes no ``tools`` (Perplexity):
        chatcli then describes the tools in the prompt and reads calls from the answer.
    :param models_path: where the service lists its models (``chatcli models --remote``),
        relative to ``base_url`` (``"../catalog/models"`` climbs out of it first); empty for
        a service that has no list.
    :param kind: ``"openai"`` (the SDK's ``OpenAI`` client) or ``"azure"`` (its
        ``AzureOpenAI`` client: endpoint, deployment and api-version instead of a base URL).
    :param short_tool_ids: the service accepts only tool-call ids of nine letters and digits
        (Mistral): other ids in the history (from another provider) are sent as a stable
        nine-character digest of themselves.
    """

    # A plain class, not a NamedTuple: ``collections.namedtuple`` builds 18 field properties
    # and compiles a constructor, a third of this module's import, which ``chatcli models`` pays.
    #: the fields in the order the constructor takes them
    _FIELDS = (
        "name", "display_name", "base_url", "default_model", "env_keys", "requires_key",
        "base_url_env", "priority", "auto_select", "max_tokens_param", "vision", "models",
        "description", "context_windows", "native_tools", "models_path", "kind", "short_tool_ids")
    __slots__ = _FIELDS

    name: str
    display_name: str
    base_url: str
    default_model: str
    env_keys: tuple[str, ...]
    requires_key: bool
    base_url_env: str | None
    priority: int
    auto_select: bool
    max_tokens_param: str
    vision: bool
    models: tuple[str, ...]
    description: str
    context_windows: tuple[tuple[str, int], ...]
    native_tools: bool
    models_path: str
    kind: str
    short_tool_ids: bool

    def __init__(self, name: str, display_name: str, base_url: str, default_model: str, env_keys:
                 tuple[str, ...] = (), requires_key: bool = True, base_url_env: str | None = None,
                 priority: int = 40, auto_select: bool = True, max_tokens_param: str =
                 "max_tokens", vision: bool = False, models: tuple[str, ...] = (), description: str
                 = "", context_windows: tuple[tuple[str, int], ...] = (), native_tools: bool =
                 True, models_path: str = "models", kind: str = "openai", short_tool_ids: bool =
                 False) -> None:
        self.name = name
        self.display_name = display_name
        self.base_url = base_url
        self.default_model = default_model
        self.env_keys = env_keys
        self.requires_key = requires_key
        self.base_url_env = base_url_env
        self.priority = priority
        self.auto_select = auto_select
        self.max_tokens_param = max_tokens_param
        self.vision = vision
        self.models = models
        self.description = description
        self.context_windows = context_windows
        self.native_tools = native_tools
        self.models_path = models_path
        self.kind = kind
        self.short_tool_ids = short_tool_ids

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"Preset({fields})"


# Context windows of the model families, as their vendors' model pages gave them (late 2025),
# counting input only where the total context also holds the output: GPT-5 models take 400,000
# tokens of which up to 128,000 are output, so 272,000 of input. Conservative on purpose: where
# a newer point release may hold more, the family's figure stands (compaction then starts early
# rather than after the service refuses), and a family not listed gets chatcli's default,
# 128,000; ``[providers.NAME] context_window`` overrides both.
_OPENAI_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-5", 272_000),
    ("gpt-5-chat", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4.5", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-4-32k", 32_768),
    ("gpt-3.5-turbo", 16_385),
    ("o1", 200_000),
    ("o1-mini", 128_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gpt-oss", 131_072),
)


PRESETS: tuple[Preset, ...] = (
    Preset(
        name="openai",
        display_name="OpenAI",
        base_url="https://api.openai.com/v1",
        default_model="gpt-5.4-mini",
        env_keys=("OPENAI_API_KEY",),
        base_url_env="OPENAI_BASE_URL",
        priority=55,
        max_tokens_param="max_completion_tokens",
        vision=True,
        models=("gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-4.1-mini"),
        description=N_("OpenAI chat completions; OPENAI_BASE_URL points it at any compatible "
                       "server."),
        context_windows=_OPENAI_WINDOWS,
    ),
    Preset(
        name="xai",
        display_name="xAI",
        base_url="https://api.x.ai/v1",
        default_model="grok-4.3",
        env_keys=("XAI_API_KEY",),
        vision=True,
        models=("grok-4.3", "grok-3-mini"),
        description=N_("Grok models from xAI."),
        context_windows=(("grok-4", 256_000), ("grok-3", 131_072)),
    ),
    Preset(
        name="zai",
        display_name="Z.ai",
        base_url="https://api.z.ai/api/paas/v4",
        default_model="glm-5.1",
        env_keys=("ZAI_API_KEY",),
        models=("glm-5.1", "glm-5", "glm-4.7", "glm-4.6"),
        description=N_("GLM models from Z.ai (Zhipu)."),
        context_windows=(("glm-4.7", 200_000), ("glm-4.6", 200_000), ("glm-4.5", 128_000)),
    ),
    Preset(
        name="minimax",
        display_name="MiniMax",
        base_url="https://api.minimax.io/v1",
        default_model="MiniMax-M3",
        env_keys=("MINIMAX_API_KEY",),
        max_tokens_param="max_completion_tokens",
        models=("MiniMax-M3", "MiniMax-M2.7"),
        description=N_("MiniMax models."),
        context_windows=(("MiniMax-M", 196_608),),
    ),
    Preset(
        name="moonshot",
        display_name="Moonshot AI",
        base_url="https://api.moonshot.ai/v1",
        default_model="kimi-k2.6",
        env_keys=("MOONSHOT_API_KEY",),
        models=("kimi-k2.6", "kimi-k2.5"),
        description=N_("Kimi models from Moonshot AI."),
        context_windows=(("kimi-k2", 131_072),),
    ),
    Preset(
        name="openrouter",
        display_name="OpenRouter",
        base_url="https://openrouter.ai/api/v1",
        default_model="openai/gpt-5.4-mini",
        env_keys=("OPENROUTER_API_KEY",),
        priority=45,
        vision=True,
        models=("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4.5", "z-ai/glm-5.1"),
        description=N_("Hundreds of models from many vendors behind one key."),
        context_windows=(*(("openai/" + prefix, tokens) for prefix, tokens in _OPENAI_WINDOWS),
                         ("anthropic/claude-", 200_000)),
    ),
    Preset(
        name="deepseek",
        display_name="DeepSeek",
        base_url="https://api.deepseek.com/v1",
        default_model="deepseek-chat",
        env_keys=("DEEPSEEK_API_KEY",),
        models=("deepseek-chat", "deepseek-reasoner"),
        description=N_("DeepSeek models."),
        context_windows=(("deepseek-", 128_000),),
    ),
    Preset(
        name="groq",
        display_name="Groq",
        base_url="https://api.groq.com/openai/v1",
        default_model="openai/gpt-oss-120b",
        env_keys=("GROQ_API_KEY",),
        models=("openai/gpt-oss-120b", "openai/gpt-oss-20b", "llama-3.3-70b-versatile"),
        description=N_("Fast inference of open models on Groq."),
        context_windows=(("openai/gpt-oss", 131_072), ("llama-3.3-70b", 131_072)),
    ),
    Preset(
        name="gemini",
        display_name="Google Gemini",
        base_url="https://generativelanguage.googleapis.com/v1beta/openai",
        default_model="gemini-3.5-flash",
        env_keys=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        vision=True,
        models=("gemini-3.5-flash", "gemini-3.1-pro-preview", "gemini-3-flash-preview",
                "gemini-2.5-pro", "gemini-2.5-flash"),
        description=N_("Gemini through Google's OpenAI-compatible endpoint (AI Studio key)."),
        context_windows=(("gemini-", 1_048_576), ("gemma-", 131_072)),
    ),
    Preset(
        name="github",
        display_name="GitHub Models",
        base_url="https://models.github.ai/inference",
        default_model="openai/gpt-4.1",
        env_keys=("GITHUB_TOKEN",),
        # GITHUB_TOKEN is set for many other reasons (gh, CI): used only when named
        auto_select=False,
        max_tokens_param="max_completion_tokens",
        vision=True,
        models=("openai/gpt-4.1", "openai/gpt-4.1-mini", "openai/gpt-5-mini",
                "deepseek/DeepSeek-V3-0324", "meta/Llama-4-Maverick-17B-128E-Instruct-FP8"),
        description=N_("Models hosted by GitHub, with a GitHub token that has the models scope."),
        context_windows=(*(("openai/" + prefix, tokens) for prefix, tokens in _OPENAI_WINDOWS),
                         ("deepseek/", 128_000), ("meta/Llama-4", 128_000)),
        models_path="../catalog/models",
    ),
    Preset(
        name="mistral",
        display_name="Mistral AI",
        base_url="https://api.mistral.ai/v1",
        default_model="mistral-medium-latest",
        env_keys=("MISTRAL_API_KEY",),
        vision=True,
        models=("mistral-medium-latest", "mistral-large-latest", "mistral-small-latest",
                "codestral-latest", "devstral-medium-latest"),
        description=N_("Mistral's models on la Plateforme."),
        short_tool_ids=True,  # "Tool call id … must be a-z, A-Z, 0-9, with a length of 9"
        context_windows=(("mistral-", 128_000), ("codestral-", 256_000), ("devstral-", 128_000),
                         ("magistral-", 128_000)),
    ),
    Preset(
        name="together",
        display_name="Together AI",
        base_url="https://api.together.ai/v1",
        default_model="openai/gpt-oss-120b",
        env_keys=("TOGETHER_API_KEY",),
        models=("openai/gpt-oss-120b", "openai/gpt-oss-20b",
                "meta-llama/Llama-3.3-70B-Instruct-Turbo", "deepseek-ai/DeepSeek-V3.1",
                "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"),
        description=N_("Open models served by Together AI (ids are vendor/model)."),
        context_windows=(("openai/gpt-oss", 131_072), ("meta-llama/Llama-3.3", 131_072),
                         ("deepseek-ai/DeepSeek-V3", 128_000), ("Qwen/Qwen3-Coder", 262_144)),
    ),
    Preset(
        name="fireworks",
        display_name="Fireworks AI",
        base_url="https://api.fireworks.ai/inference/v1",
        default_model="accounts/fireworks/models/gpt-oss-120b",
        env_keys=("FIREWORKS_API_KEY",),
        models=("accounts/fireworks/models/gpt-oss-120b",
                "accounts/fireworks/models/deepseek-v3p1",
                "accounts/fireworks/models/qwen3-coder-480b-a35b-instruct",
                "accounts/fireworks/models/kimi-k2-instruct-0905"),
        description=N_("Open models served by Fireworks AI (ids are accounts/fireworks/models/…)."),
        context_windows=(("accounts/fireworks/models/gpt-oss", 131_072),
                         ("accounts/fireworks/models/deepseek-v3", 163_840),
                         ("accounts/fireworks/models/qwen3-coder", 262_144),
                         ("accounts/fireworks/models/kimi-k2", 131_072)),
    ),
    Preset(
        name="cerebras",
        display_name="Cerebras",
        base_url="https://api.cerebras.ai/v1",
        default_model="gpt-oss-120b",
        env_keys=("CEREBRAS_API_KEY",),
        # Cerebras reserves the whole output limit against the rate limit up front
        max_tokens_param="max_completion_tokens",
        models=("gpt-oss-120b", "zai-glm-4.7", "gemma-4-31b"),
        description=N_("Very fast inference of open models on Cerebras."),
        # 65,536 on the free tier, 131,072 on paid ones: the key does not say which
        context_windows=(("gpt-oss", 65_536), ("zai-glm", 65_536), ("gemma-", 65_536)),
    ),
    Preset(
        name="perplexity",
        display_name="Perplexity",
        base_url="https://api.perplexity.ai",
        default_model="sonar-pro",
        env_keys=("PERPLEXITY_API_KEY", "PPLX_API_KEY"),
        native_tools=False,  # the Sonar chat API refuses "tools"
        models_path="",  # and it has no model list
        models=("sonar-pro", "sonar", "sonar-reasoning-pro", "sonar-deep-research"),
        description=N_("Sonar models from Perplexity: answers grounded in a live web search."),
        context_windows=(("sonar", 127_072), ("sonar-pro", 200_000)),
    ),
    Preset(
        name="azure",
        display_name="Azure OpenAI",
        base_url="",  # the resource's endpoint: [providers.azure] endpoint or the variable
        default_model="gpt-5.4-mini",
        env_keys=("AZURE_OPENAI_API_KEY",),
        base_url_env="AZURE_OPENAI_ENDPOINT",
        max_tokens_param="max_completion_tokens",
        vision=True,
        description=N_("OpenAI models deployed in an Azure resource (endpoint, deployment, "
                    "api-version)."),
        context_windows=_OPENAI_WINDOWS,
        models_path="",  # deployments are listed by Azure's management API, not this one
        kind="azure",
    ),
    Preset(
        name="lmstudio",
        display_name="LM Studio",
        base_url="http://localhost:1234/v1",
        default_model=AUTO_MODEL,
        requires_key=False,
        base_url_env="LMSTUDIO_BASE_URL",
        priority=5,
        auto_select=False,
        description=N_("A model served by LM Studio on this machine (default: the first loaded)."),
    ),
    Preset(
        name="vllm",
        display_name="vLLM",
        base_url="http://localhost:8000/v1",
        default_model=AUTO_MODEL,
        env_keys=("VLLM_API_KEY",),
        requires_key=False,
        base_url_env="VLLM_BASE_URL",
        priority=4,
        auto_select=False,
        description=N_("A vLLM server (default: its first model; VLLM_API_KEY if it needs one)."),
    ),
)
