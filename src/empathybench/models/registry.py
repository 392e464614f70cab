"""Model ids (``provider/name``) → specs → adapters.

Every provider is listed once here, with its default endpoint and the environment
variable that holds its key. Adapters are imported lazily so the core install never
needs torch or a provider SDK it does not use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from empathybench.errors import ParameterError, UserError
from empathybench.extras import require_module
from empathybench.models.base import GenerationParams, ModelAPI, ModelSpec
from empathybench.models.guided import ANSWER_MODES, AnswerMode
from empathybench.models.local_precision import DEFAULT_DTYPE, dtype_option
from empathybench.validation import check_number, check_url


@dataclass(frozen=True)
class Provider:
    name: str
    adapter: str
    """``module:Class`` of the adapter, imported on first use."""
    base_url: str | None = None
    key_env: str | None = None
    key_required: bool = True
    description: str = ""
    lean_client: bool = False
    """An OpenAI-compatible provider that uses the lean client unless ``client=sdk`` is set."""


_OPENAI = "empathybench.models.openai_compatible:OpenAICompatibleModel"
_ANTHROPIC = "empathybench.models.anthropic_model:AnthropicModel"
_LOCAL = "empathybench.models.local:LocalModel"
_OPENAI_LEAN = "empathybench.models.openai_http:OpenAIHttpModel"
CLIENTS = ("lean", "sdk")
"""``--option client=…`` for OpenAI-compatible providers: our aiohttp client or the SDK."""
PROVIDERS: dict[str, Provider] = {
    provider.name: provider
    for provider in (
        Provider(
            "openai",
            _OPENAI,
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            description="OpenAI API",
        ),
        Provider(
            "openrouter",
            _OPENAI,
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            description="OpenRouter (name is 'vendor/model')",
        ),
        Provider(
            "deepseek",
            _OPENAI,
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            description="DeepSeek API",
        ),
        Provider(
            "ollama",
            _OPENAI,
            "http://127.0.0.1:11434/v1",
            None,
            key_required=False,
            description="a local Ollama server",
            lean_client=True,
        ),
        Provider(
            "vllm",
            _OPENAI,
            "http://127.0.0.1:8000/v1",
            "VLLM_API_KEY",
            key_required=False,
            description="a vLLM OpenAI-compatible server",
            lean_client=True,
        ),
        Provider(
            "llamacpp",
            _OPENAI,
            "http://127.0.0.1:8080/v1",
            "LLAMACPP_API_KEY",
            key_required=False,
            description="a llama.cpp / llama-cpp-python server",
            lean_client=True,
        ),
        Provider(
            "openai-compatible",
            _OPENAI,
            None,
            "OPENAI_COMPATIBLE_API_KEY",
            key_required=False,
            description="any OpenAI-compatible server (with a base URL)",
            lean_client=True,
        ),
        Provider(
            "anthropic",
            _ANTHROPIC,
            None,
            "ANTHROPIC_API_KEY",
            description="Anthropic API",
        ),
        Provider(
            "local",
            _LOCAL,
            None,
            None,
            key_required=False,
            description="'local/smollm2' (bundled) or local/PATH to a HF directory or GGUF",
        ),
        Provider(
            "mock",
            "empathybench.models.mock:MockModel",
            None,
            None,
            key_required=False,
            description="scripted deterministic answers, for tests and dry runs",
        ),
    )
}


def parse_model_id(
    model_id: str,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    system_prompt: str | None = None,
    params: GenerationParams | None = None,
    options: dict[str, str | int | float | bool] | None = None,
) -> ModelSpec:
    """``provider/name`` plus options into a ModelSpec (errors list the known providers)."""
    provider_name, _, name = model_id.partition("/")
    if not name or provider_name not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise UserError(
            f"unknown model id {model_id!r}: use provider/name with a provider from: {known}"
        )
    provider = PROVIDERS[provider_name]
    check_url("base_url", base_url)
    check_model_options(options or {}, "options")
    url = base_url or provider.base_url
    if provider_name == "openai-compatible" and not url:
        raise ParameterError(
            "openai-compatible models need base_url (e.g. http://127.0.0.1:8000/v1)",
            parameters=["base_url"],
        )
    options = provider_options(provider_name, options or {})
    return ModelSpec(
        provider=provider_name,
        name=name,
        base_url=url,
        api_key_env=api_key_env or provider.key_env,
        system_prompt=system_prompt,
        params=params or GenerationParams(),
        options=options or {},
    )


def provider_options(
    provider: str, options: dict[str, str | int | float | bool]
) -> dict[str, str | int | float | bool]:
    """``options`` as recorded: a local model's ``dtype`` checked (before any file is written
    or model loaded) and left out when it is the default, so an explicit default shares the
    default's cache key and run directory."""
    if provider != "local" or "dtype" not in options:
        return options
    if dtype_option(options) == DEFAULT_DTYPE:
        return {key: value for key, value in options.items() if key != "dtype"}
    return options


def recorded_spec(spec: ModelSpec) -> ModelSpec:
    """A hand-built ``spec`` with its options as ``parse_model_id`` records them."""
    options = provider_options(spec.provider, spec.options)
    return spec if options == spec.options else spec.model_copy(update={"options": options})


OPTION_RULES: dict[str, tuple[type, float | None]] = {
    "latency": (float, 0),
    "timeout": (float, 0),
    "fail_every": (int, 0),
    "fail_times": (int, 0),
    "threads": (int, 1),
    "batch_size": (int, 1),
    "repetition_penalty": (float, 0),
    "no_repeat_ngram": (int, 0),
    "no_copy_ngram": (int, 0),
    "structured_output": (bool, None),
}
"""Provider options read as numbers or switches: ``name → (type, minimum)``; others pass
through as given."""


def check_model_options(options: dict[str, str | int | float | bool], parameter: str) -> None:
    """Each known option has a value of its type (checked before any model is called)."""
    for key, value in options.items():
        if key not in OPTION_RULES:
            continue
        kind, minimum = OPTION_RULES[key]
        if kind is bool:
            if not isinstance(value, bool):
                raise ParameterError.about(parameter, f"{key}={value}: must be true or false")
            continue
        number_ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not number_ok or (kind is int and not isinstance(value, int)):
            what = "a whole number" if kind is int else "a number"
            raise ParameterError.about(parameter, f"{key}={value}: must be {what}")
        check_number(f"{parameter} {key}", float(value), minimum=minimum)


GUIDED_BY_DEFAULT = frozenset({"local", "llamacpp", "vllm"})
"""Providers that answer guided without options: the local engine fills the fields itself;
llama.cpp and vLLM servers take a JSON schema (``response_format``) and constrain to it."""


def guided_unsupported(spec: ModelSpec) -> str | None:
    """Why ``spec`` cannot answer in guided mode, or None when it can."""
    provider = PROVIDERS[spec.provider]
    if spec.provider == "local":
        return None
    if provider.adapter == _OPENAI:
        default = spec.provider in GUIDED_BY_DEFAULT
        if spec.options.get("structured_output", default) is True:
            return None
        return (
            f"answer_mode=guided needs structured output (a JSON schema); {spec.id} does not "
            "use it by default: add the option structured_output=true if the server supports "
            "JSON-schema response_format, or use answer_mode=free"
        )
    return (
        f"answer_mode=guided is not available for {spec.provider} models (they cannot be "
        "held to a JSON schema here); use answer_mode=free"
    )


def answer_mode_named(requested: str) -> AnswerMode:
    """``requested`` as an answer mode (``guided`` or ``free``)."""
    for mode in ANSWER_MODES:
        if requested == mode:
            return mode
    raise ParameterError(
        f"answer_mode must be one of: {', '.join(ANSWER_MODES)}, not {requested!r}",
        parameters=["answer_mode"],
    )


def resolve_answer_mode(spec: ModelSpec, requested: str | None) -> AnswerMode:
    """The answer mode of a run: ``requested``, else guided for local models, free otherwise.

    Raises ``ParameterError`` for an unknown mode, guided on a provider that cannot do it,
    or free on a local model given options that only guided decoding reads.
    """
    if requested is None:
        return "guided" if spec.provider == "local" else "free"
    mode = answer_mode_named(requested)
    if mode == "guided" and (reason := guided_unsupported(spec)) is not None:
        raise ParameterError(reason, parameters=["answer_mode"])
    if mode == "free":
        refuse_guided_only_options(spec, "with answer_mode=free")
    return mode


def refuse_guided_only_options(spec: ModelSpec, why: str) -> None:
    """A local model answering free must not be given options only guided decoding reads
    (they would be ignored); ``why`` says why the run answers free."""
    guided_only = [key for key in GUIDED_ONLY_OPTIONS if key in spec.options]
    if spec.provider == "local" and guided_only:
        raise ParameterError(
            f"the local option(s) {', '.join(guided_only)} shape guided answers only and "
            f"would be ignored {why}: drop them, or answer in guided mode",
            parameters=["answer_mode"],
        )


GUIDED_ONLY_OPTIONS = (
    "repetition_penalty",
    "no_repeat_ngram",
    "no_copy_ngram",
    "choice_score",
    "reply_opening",
)
"""Local options read only by guided decoding (``local_guided.GuidedDecoding``)."""


def resolve_api_key(spec: ModelSpec) -> str | None:
    """The key from the environment; a clear error naming the variable when it is needed."""
    provider = PROVIDERS[spec.provider]
    key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    if not key and provider.key_required:
        raise UserError(
            f"{spec.id} needs an API key: set the environment variable {spec.api_key_env}"
        )
    return key or None


def adapter_path(spec: ModelSpec) -> str:
    """``module:Class`` of the adapter for ``spec``, after the ``client`` option."""
    provider = PROVIDERS.get(spec.provider)
    if provider is None:
        raise UserError(f"unknown provider {spec.provider!r}; known: {', '.join(PROVIDERS)}")
    client = spec.options.get("client")
    if client is None:
        return _OPENAI_LEAN if provider.lean_client else provider.adapter
    if provider.adapter != _OPENAI:
        raise UserError(f"{spec.id}: option client applies only to OpenAI-compatible providers")
    if client not in CLIENTS:
        raise UserError(f"{spec.id}: option client must be one of {', '.join(CLIENTS)}")
    return _OPENAI_LEAN if client == "lean" else _OPENAI


def create_model(spec: ModelSpec, *, max_connections: int | None = None) -> ModelAPI:
    """Instantiate the adapter for ``spec`` (imports its module on first use).

    ``max_connections`` sizes the connection pool of an adapter that keeps one.
    """
    import importlib

    path = adapter_path(spec)
    module_name, _, class_name = path.partition(":")
    extra = {_OPENAI: "openai", _ANTHROPIC: "anthropic", _LOCAL: "local"}.get(path)
    if extra is None:
        module = importlib.import_module(module_name)
    else:
        module = require_module(module_name, extra=extra, needed_for=f"{spec.provider}/… models")
    adapter: ModelAPI = getattr(module, class_name)(spec)
    size_pool = getattr(adapter, "size_pool", None)
    if max_connections is not None and callable(size_pool):
        size_pool(max_connections)
    return adapter
