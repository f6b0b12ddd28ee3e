"""Turn "provider:model" strings into chat models, or say clearly why one cannot be made.

Built-in providers go through LangChain's `init_chat_model`; `openai:` models may point at
any OpenAI-compatible server (no API key needed); others are registered (`provider_registry`).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel

from critic_loop.nodes.models.provider_registry import registered_provider
from critic_loop.state.context import Context
from critic_loop.state.errors import MissingApiKey, ModelSetupError

API_KEY_VARIABLES: dict[str, tuple[str, ...]] = {  # any one holds the provider's key
    "openai": ("OPENAI_API_KEY",),
    "google_genai": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "mistralai": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
}

STRICT_SCHEMA_PROVIDERS = frozenset({"openai", "azure_openai"})  # accept `strict=True`


def split_model_spec(spec: str) -> tuple[str, str]:
    """Split "provider:model" into its two parts."""
    provider, _, model = spec.partition(":")
    return provider.strip(), model.strip()


def _openai_base_url(base_url: str | None) -> str | None:
    return base_url or os.environ.get("OPENAI_BASE_URL") or None


def model_server(spec: str, context: Context) -> str | None:
    """Return the server `spec`'s requests go to, when it is an OpenAI-compatible one."""
    provider, _ = split_model_spec(spec)
    return _openai_base_url(context.base_url) if provider == "openai" else None


def load_chat_model(
    spec: str,
    *,
    role: str,
    temperature: float,
    base_url: str | None = None,
    max_tokens: int | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    top_logprobs: int | None = None,
) -> BaseChatModel:
    """Return the chat model for `spec` ("provider:model"); built-in ones once per settings.

    `timeout` and `max_retries` go to the provider's client; `top_logprobs` is for `openai:`.
    Raises `ModelSetupError` (unknown provider, missing package or API key) before any request.
    """
    provider, model = split_model_spec(spec)
    factory = registered_provider(provider)
    if factory is not None:
        return factory(model, temperature=temperature, base_url=base_url, max_tokens=max_tokens)
    kwargs: dict[str, Any] = {"temperature": temperature}
    if timeout is not None:
        kwargs["timeout"] = timeout
    if max_retries is not None:
        kwargs["max_retries"] = max_retries
    server = _openai_base_url(base_url) if provider == "openai" else None
    if top_logprobs is not None and provider == "openai":
        kwargs |= {"logprobs": True, "top_logprobs": top_logprobs}
    if max_tokens is not None:
        if server:  # local servers know max_tokens, not OpenAI's newer max_completion_tokens
            kwargs["extra_body"] = {"max_tokens": max_tokens}
        else:
            kwargs["max_tokens"] = max_tokens
    if server:
        kwargs["base_url"] = server
        if not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = "not-needed"  # local servers ignore it; the client insists
    else:
        _require_api_key(spec, provider, role)
    try:
        return _created(provider, model, json.dumps(kwargs, sort_keys=True), _credentials(provider))
    except ImportError as error:
        raise ModelSetupError(
            f"The {role} model {spec!r} needs a package that is not installed: {error}"
        ) from error
    except ValueError as error:
        if "provider" not in str(error).lower():
            raise
        raise ModelSetupError(
            f"The {role} model {spec!r} names an unknown provider {provider!r}. Use a "
            "provider LangChain's init_chat_model knows (openai, google_genai, anthropic, "
            "...) or register one with register_chat_model_provider."
        ) from error


def _credentials(provider: str) -> tuple[str | None, ...]:  # a changed key, a new client
    return tuple(os.environ.get(name) for name in API_KEY_VARIABLES.get(provider, ()))


@functools.lru_cache(maxsize=64)
def _created(
    provider: str, model: str, settings: str, credentials: tuple[str | None, ...]
) -> BaseChatModel:
    # chat models hold no per-call state, and building one costs more than a round's logic;
    # the settings come as JSON, to key the cache
    created: BaseChatModel = init_chat_model(model, model_provider=provider, **json.loads(settings))
    return created


def _require_api_key(spec: str, provider: str, role: str) -> None:
    variables = API_KEY_VARIABLES.get(provider)
    if variables is None or any(os.environ.get(name) for name in variables):
        return
    wanted = " or ".join(variables)
    message = f"The {role} model {spec!r} needs an API key: set {wanted}."
    if provider == "openai":
        message += (
            " To use a local OpenAI-compatible server instead (llama.cpp, Ollama, vLLM), "
            "set base_url in the context or OPENAI_BASE_URL."
        )
    raise MissingApiKey(message)


def worker_model(context: Context, temperature: float) -> BaseChatModel:
    """Return the worker's chat model at `temperature`, with the context's other settings."""
    return load_chat_model(
        context.worker_model,
        role="worker",
        temperature=temperature,
        base_url=context.base_url,
        max_tokens=context.worker_max_tokens,
        timeout=context.request_timeout,
        max_retries=context.max_retries,
    )


def grading_model(
    spec: str, role: str, context: Context, top_logprobs: int | None = None
) -> BaseChatModel:
    """Return a grading model (judge or distiller): the critic's settings for `spec`."""
    return load_chat_model(
        spec,
        role=role,
        temperature=context.critic_temperature,
        base_url=context.base_url,
        max_tokens=context.critic_max_tokens,
        timeout=context.request_timeout,
        max_retries=context.max_retries,
        top_logprobs=top_logprobs,
    )


def role_tags(role: str) -> list[str]:
    """Return the tags chat UIs filter the `messages` stream by (the worker's, the critic's)."""
    return ["critic_loop", f"critic_loop:{role}"]
