"""Turn "provider:model" strings into chat models, or say clearly why one cannot be made.

Built-in providers go through LangChain's `init_chat_model` (`openai:...`,
`google_genai:...`, and any other provider it knows whose package is installed).
`openai:` models can point at any OpenAI-compatible server through a base URL; such
servers usually need no API key. Extra providers (a company gateway, a test double) are
registered under a name of their own with `critic_loop.providers`.
"""

from __future__ import annotations

import os
from typing import Any

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from critic_loop.errors import MissingApiKey, ModelSetupError
from critic_loop.providers import registered_provider
from critic_loop.state.context import StructuredOutputMethod

API_KEY_VARIABLES: dict[str, tuple[str, ...]] = {
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
"""Environment variables that hold each hosted provider's API key (any one suffices)."""

STRICT_SCHEMA_PROVIDERS = frozenset({"openai", "azure_openai"})
"""Providers whose structured output accepts `strict=True`."""


def split_model_spec(spec: str) -> tuple[str, str]:
    """Split "provider:model" into its two parts."""
    provider, _, model = spec.partition(":")
    return provider.strip(), model.strip()


def openai_base_url(base_url: str | None) -> str | None:
    """Pick the OpenAI-compatible server: the context's, else OPENAI_BASE_URL, else none."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or None


def load_chat_model(
    spec: str,
    *,
    role: str,
    temperature: float,
    base_url: str | None = None,
    max_tokens: int | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> BaseChatModel:
    """Create the chat model for `spec` ("provider:model") for the given role.

    `timeout` (seconds per request) and `max_retries` (repeats of requests that failed on
    rate limits, server errors or the network) go to the provider's client.

    Raises:
        ModelSetupError: the provider is unknown or its package is missing, or the API key
            it needs is not set. Raised before any request is made.
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
    server = openai_base_url(base_url) if provider == "openai" else None
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
        created: BaseChatModel = init_chat_model(model, model_provider=provider, **kwargs)
        return created
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


def with_json_output(
    model: BaseChatModel,
    spec: str,
    schema: dict[str, Any],
    method: StructuredOutputMethod,
) -> Runnable[Any, dict[str, Any]]:
    """Bind `model` to answer in `schema`, returning LangChain's raw/parsed/error triple.

    The result maps "raw" to the model's message, "parsed" to the parsed object (or None)
    and "parsing_error" to the exception when the answer could not be parsed.
    """
    provider, _ = split_model_spec(spec)
    options: dict[str, Any] = {"method": method, "include_raw": True}
    if method != "json_mode" and provider in STRICT_SCHEMA_PROVIDERS:
        options["strict"] = True
    structured: Runnable[Any, dict[str, Any]] = model.with_structured_output(  # type: ignore[assignment]
        schema, **options
    )
    return structured
