"""Which models a run uses when it names none: what this machine has. One rule, everywhere.

docs/models.md ("When no model is named") states it; every node's context is settled by
`operator_policy.within_policy`, which applies it after the policy passed the run's `base_url`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.request
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from critic_loop.nodes.models.profiles import model_profile, profile_known, profile_settings
from critic_loop.nodes.models.redaction import redacted
from critic_loop.state.context import LOCAL_SETTINGS as LOCAL_SETTINGS
from critic_loop.state.context import MODEL_FIELDS as MODEL_FIELDS  # naming either: none found
from critic_loop.state.context import Context
from critic_loop.state.errors import DiscoveryFailed as DiscoveryFailed

logger = logging.getLogger(__name__)

GEMINI_MODELS = {
    "worker_model": "google_genai:gemini-2.5-flash",
    "critic_model": "google_genai:gemini-2.5-pro",
}

DISCOVERY_TIMEOUT = 30.0  # seconds for a `/models` answer: a busy local server is slow
DISCOVERY_ATTEMPTS = 3  # tries, waiting 1 s, then 2 s, between them
DISCOVERY_TTL = 300.0  # seconds an answer is reused (a server restarted is noticed)

_answers: dict[str, tuple[float, str]] = {}  # base URL: (when it answered, time.time(); model)
_asking = threading.Lock()


def _listed_model(base_url: str, timeout: float) -> str | None:
    with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=timeout) as reply:
        listing = json.load(reply)
    models = listing.get("data") if isinstance(listing, dict) else None
    first = models[0] if isinstance(models, list) and models else None
    return str(first["id"]) if isinstance(first, dict) and "id" in first else None


def discover_model(base_url: str, timeout: float = DISCOVERY_TIMEOUT) -> str:
    """Return the first model the server at `base_url` lists, else raise `DiscoveryFailed`."""
    problem, shown = "it lists no model", redacted(base_url.rstrip("/"))
    for attempt in range(1, DISCOVERY_ATTEMPTS + 1):
        try:
            model = _listed_model(base_url, timeout)
        except (OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            if isinstance(reason, ConnectionRefusedError):  # naming a model won't help
                raise DiscoveryFailed(
                    f"nothing answers at {shown} (connection refused): start the "
                    "model server there, or point --base-url (or OPENAI_BASE_URL) at one that runs"
                ) from error
            problem = f"{type(error).__name__}: {reason}"
            logger.debug(
                "asking %s for its models failed (attempt %d): %s", shown, attempt, problem
            )
            if attempt < DISCOVERY_ATTEMPTS:
                time.sleep(float(attempt))
            continue
        if model is not None:
            return model
        break
    raise DiscoveryFailed(
        f"asked {shown}/models which model it serves ({DISCOVERY_ATTEMPTS} tries, "
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


def _known_model(base_url: str) -> str | None:
    answer = _answers.get(base_url.rstrip("/"))
    if answer is None or not 0 <= time.time() - answer[0] <= DISCOVERY_TTL:
        return None
    return answer[1]


def _answers_file() -> Path:  # shared by the user's processes: a busy server answers late
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "critic-loop/servers"


def _stored_answers() -> dict[str, tuple[float, str]]:
    with suppress(OSError, ValueError, TypeError):
        stored = json.loads(_answers_file().read_text())
        return {str(url): (float(at), str(model)) for url, (at, model) in stored.items()}
    return {}


def _model_at(base_url: str) -> str:
    # asked once per DISCOVERY_TTL by any process; a failure is not kept: the next run asks
    key = base_url.rstrip("/")
    with _asking:  # runs starting together ask once
        if _known_model(key) is None:  # the file only then: a node may call this on its loop
            _answers.update(_stored_answers())
        if _known_model(key) is None:
            _answers[key] = (time.time(), discover_model(key))
            with suppress(OSError):
                _answers_file().parent.mkdir(parents=True, exist_ok=True)
                _answers_file().write_text(json.dumps(_answers))
        return _answers[key][1]


def forget_servers() -> None:
    """Forget every server's answer (tests do, and so can a caller that restarted one)."""
    _answers.clear()
    with suppress(OSError):
        _answers_file().unlink(missing_ok=True)


def server_url(base_url: str | None, environ: Mapping[str, str]) -> str | None:
    """Return the OpenAI-compatible server a run uses: `base_url`, else the environment's."""
    return base_url or environ.get("CRITIC_LOOP_BASE_URL") or environ.get("OPENAI_BASE_URL")


def names_a_model(chosen: Mapping[str, Any] | set[str], environ: Mapping[str, str]) -> bool:
    """Say whether a run chose its models (`chosen`: its fields, or their names)."""
    if any(field in chosen for field in MODEL_FIELDS):
        return True
    return any(f"CRITIC_LOOP_{field.upper()}" in environ for field in MODEL_FIELDS)


def _found_models(chosen: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    if names_a_model(chosen, environ):
        return {}
    base_url = server_url(chosen.get("base_url"), environ)
    if base_url:
        model = f"openai:{_model_at(base_url)}"
        return {"worker_model": model, "critic_model": model}
    google = environ.get("GOOGLE_API_KEY") or environ.get("GEMINI_API_KEY")
    return dict(GEMINI_MODELS) if google and not environ.get("OPENAI_API_KEY") else {}


def _named(field: str, chosen: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    named = chosen.get(field) or environ.get(f"CRITIC_LOOP_{field.upper()}")
    return str(named or Context.model_fields[field].default)


def available_models(chosen: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Return the models a run left unset and their profiles' settings it left unset.

    Raises `DiscoveryFailed` (the server cannot say) or `ModelSetupError` (a judge profile).
    """
    found = _found_models(chosen, environ)
    models, served = {**chosen, **found}, found != GEMINI_MODELS
    worker, critic = (
        model_profile(_named(field, models, environ), served and field in found)
        for field in MODEL_FIELDS
    )
    return {**found, **profile_settings(worker, critic, chosen)}


def with_available_models(context: Context, environ: Mapping[str, str] | None = None) -> Context:
    """Return `context` with the models this machine has, where it named none (docs/models.md)."""
    environ = os.environ if environ is None else environ
    chosen = {name: getattr(context, name) for name in context.model_fields_set}
    found = available_models(chosen, environ)
    return context.model_copy(update=found) if found else context


def needs_discovery(context: Context, environ: Mapping[str, str] | None = None) -> bool:
    """Say whether applying the rule to `context` would ask a server or read a profile."""
    environ = os.environ if environ is None else environ
    if not all(profile_known(spec) for spec in (context.worker_model, context.critic_model)):
        return True
    if names_a_model(context.model_fields_set, environ):
        return False
    base_url = server_url(context.base_url, environ)
    return base_url is not None and _known_model(base_url) is None
