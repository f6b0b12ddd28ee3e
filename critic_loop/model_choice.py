"""Choose models for the command line when the user named none: whatever this machine has.

- an OpenAI-compatible server (`--base-url`, `CRITIC_LOOP_BASE_URL` or `OPENAI_BASE_URL`):
  the model it serves (asked from its `/models`), judged one criterion per call, which is
  what small local models need;
- else an OpenAI key: the `Context` defaults (OpenAI);
- else a Gemini key (`GOOGLE_API_KEY` / `GEMINI_API_KEY`): Gemini Flash drafts, Gemini Pro
  judges;
- else nothing, and preflight explains both ways forward.

A named server that cannot say what it serves is an error (`DiscoveryFailed`), not a
silent fall back to OpenAI's model names.
"""

from __future__ import annotations

import json
import logging
import os
import urllib.request
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger(__name__)

GEMINI_MODELS = {
    "worker_model": "google_genai:gemini-2.5-flash",
    "critic_model": "google_genai:gemini-2.5-pro",
}

LOCAL_SETTINGS: dict[str, Any] = {"judge_granularity": "criterion", "worker_max_tokens": 1024}
"""Settings that suit small models on local servers (unless the user chose otherwise)."""


class DiscoveryFailed(RuntimeError):
    """A local server was named but could not say which model it serves."""


def served_model(base_url: str, timeout: float = 15.0) -> str | None:
    """Return the first model an OpenAI-compatible server lists, or None if it cannot say."""
    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as reply:
            listing = json.load(reply)
    except (OSError, ValueError) as error:
        logger.warning("could not list the models of %s: %s", base_url, error)
        return None
    models = listing.get("data") or []
    return str(models[0]["id"]) if models and "id" in models[0] else None


def choose_models(chosen: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Return context settings for models the user left unset (`chosen` are theirs)."""
    if "worker_model" in chosen or "critic_model" in chosen:
        return {}
    if any(f"CRITIC_LOOP_{name}" in environ for name in ("WORKER_MODEL", "CRITIC_MODEL")):
        return {}
    base_url = chosen.get("base_url") or environ.get("CRITIC_LOOP_BASE_URL")
    base_url = base_url or environ.get("OPENAI_BASE_URL")
    if base_url:
        model = served_model(base_url)
        if model is None:
            raise DiscoveryFailed(
                f"could not ask {base_url} which model it serves (is the server up?); "
                "name one with --model openai:<name>"
            )
        local = {key: value for key, value in LOCAL_SETTINGS.items() if key not in chosen}
        return {"worker_model": f"openai:{model}", "critic_model": f"openai:{model}", **local}
    if environ.get("OPENAI_API_KEY"):
        return {}
    if environ.get("GOOGLE_API_KEY") or environ.get("GEMINI_API_KEY"):
        return dict(GEMINI_MODELS)
    return {}


def choose_models_from_environment(chosen: Mapping[str, Any]) -> dict[str, Any]:
    """`choose_models` with this process's environment."""
    return choose_models(chosen, os.environ)
