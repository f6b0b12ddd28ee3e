"""Choose a structured-output method the model's server accepts, and fall back when refused.

Many OpenAI-compatible servers refuse OpenAI's `response_format: json_schema` (llama.cpp's
and llama-cpp-python's among them; the latter with HTTP 500 "Input should be 'text' or
'json_object'"), and some refuse tool calls. When a request is refused for its
structured-output method, the next method is tried: json_schema -> function_calling ->
json_mode. The method that works is remembered for that model and server for the rest of
the process, and the switch is logged once.
"""

from __future__ import annotations

import logging
import threading

from critic_loop.state.context import StructuredOutputMethod

logger = logging.getLogger(__name__)

FALLBACKS: dict[StructuredOutputMethod, StructuredOutputMethod | None] = {
    "json_schema": "function_calling",
    "function_calling": "json_mode",
    "json_mode": None,
}
"""The method to try when a server refuses one."""

REFUSAL_WORDS: dict[StructuredOutputMethod, tuple[str, ...]] = {
    "json_schema": ("json_schema", "response_format"),
    "function_calling": ("tool", "function"),
    "json_mode": ("json_object", "response_format"),
}
"""Words a server's refusal of each method mentions."""

REFUSAL_STATUSES = frozenset({400, 404, 405, 415, 422, 500, 501})
"""HTTP statuses servers use to refuse a request they do not support."""

ServerKey = tuple[str, str | None]
"""A model spec and the server it is reached on."""

_chosen: dict[ServerKey, StructuredOutputMethod] = {}
_lock = threading.Lock()


def method_for(key: ServerKey, preferred: StructuredOutputMethod) -> StructuredOutputMethod:
    """Return the method to use for `key`: one that worked before, else `preferred`."""
    with _lock:
        return _chosen.get(key, preferred)


def is_refusal(error: BaseException, method: StructuredOutputMethod) -> bool:
    """Tell whether `error` is the server refusing `method` (not a bad answer or outage)."""
    status = getattr(error, "status_code", None)
    if status not in REFUSAL_STATUSES:
        return False
    message = str(error).lower()
    return any(word in message for word in REFUSAL_WORDS[method])


def fall_back(
    key: ServerKey, refused: StructuredOutputMethod, error: BaseException
) -> StructuredOutputMethod | None:
    """Record that `refused` does not work for `key`; return the method to try next, if any."""
    replacement = FALLBACKS[refused]
    if replacement is None:
        return None
    with _lock:
        if _chosen.get(key, refused) == refused:
            _chosen[key] = replacement
            logger.warning(
                "%s on %s refused structured output by %s (HTTP %s); using %s from now on",
                key[0],
                key[1] or "its provider",
                refused,
                getattr(error, "status_code", "?"),
                replacement,
            )
    return replacement


def forget() -> None:
    """Forget every remembered choice (for tests)."""
    with _lock:
        _chosen.clear()
