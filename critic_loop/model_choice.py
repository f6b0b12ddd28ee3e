"""Choose models for the command line when the user named none: whatever this machine has.

- an OpenAI-compatible server (`--base-url`, `CRITIC_LOOP_BASE_URL` or `OPENAI_BASE_URL`):
  the model it serves (asked from its `/models`), judged one criterion per call by a judge
  that only copies evidence (code decides), with criteria code can decide checked by
  code, which is what small local models need;
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
import time
import urllib.request
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger(__name__)

GEMINI_MODELS = {
    "worker_model": "google_genai:gemini-2.5-flash",
    "critic_model": "google_genai:gemini-2.5-pro",
}

LOCAL_SETTINGS: dict[str, Any] = {
    "judge_granularity": "criterion",
    "judge_mode": "extract",
    "lint_checks": True,
    "worker_max_tokens": 1024,
}
"""Settings that suit small models on local servers (unless the user chose otherwise).

The judge's were chosen on the judge benchmark (`benchmarks/judge/results`): with the
local 0.5B model, a judge that only copies evidence, with the criteria code can decide
checked by code, was right more often than one asked to decide.
"""


class DiscoveryFailed(RuntimeError):
    """A local server was named but could not say which model it serves."""


DISCOVERY_TIMEOUT = 30.0
"""Seconds to wait for a server's `/models` answer: a busy local server is slow to reply."""

DISCOVERY_ATTEMPTS = 3
"""How many times to ask before giving up (waiting 1 s, then 2 s, between attempts)."""


def _listed_model(base_url: str, timeout: float) -> str | None:
    with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as reply:
        listing = json.load(reply)
    models = listing.get("data") if isinstance(listing, dict) else None
    first = models[0] if isinstance(models, list) and models else None
    return str(first["id"]) if isinstance(first, dict) and "id" in first else None


def discover_model(
    base_url: str, timeout: float = DISCOVERY_TIMEOUT, attempts: int = DISCOVERY_ATTEMPTS
) -> str:
    """Return the first model the OpenAI-compatible server at `base_url` lists.

    A busy server gets `attempts` tries of `timeout` seconds each.

    Raises:
        DiscoveryFailed: the server never answered, or lists no model; the message names
            the server, what went wrong and how to go on without it.
    """
    problem = "it lists no model"
    for attempt in range(1, attempts + 1):
        try:
            model = _listed_model(base_url, timeout)
        except (OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            problem = f"{type(error).__name__}: {reason}"
            logger.debug(
                "asking %s for its models failed (attempt %d): %s", base_url, attempt, problem
            )
            if attempt < attempts:
                time.sleep(float(attempt))
            continue
        if model is not None:
            return model
        break
    raise DiscoveryFailed(
        f"asked {base_url.rstrip('/')}/models which model it serves ({attempts} tries, "
        f"{timeout:g} s each) and got no answer: {problem}. Is the server up at that address? "
        "Or name the model yourself with --model openai:<name>"
    )


def served_model(base_url: str, timeout: float = DISCOVERY_TIMEOUT) -> str | None:
    """Return the first model an OpenAI-compatible server lists, or None if it cannot say."""
    try:
        return discover_model(base_url, timeout)
    except DiscoveryFailed as failure:
        logger.warning("%s", failure)
        return None


def choose_models(chosen: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Return context settings for models the user left unset (`chosen` are theirs)."""
    if "worker_model" in chosen or "critic_model" in chosen:
        return {}
    if any(f"CRITIC_LOOP_{name}" in environ for name in ("WORKER_MODEL", "CRITIC_MODEL")):
        return {}
    base_url = chosen.get("base_url") or environ.get("CRITIC_LOOP_BASE_URL")
    base_url = base_url or environ.get("OPENAI_BASE_URL")
    if base_url:
        model = discover_model(base_url)
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
