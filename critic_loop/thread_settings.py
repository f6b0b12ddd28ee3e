"""The settings a thread ran with, kept in its checkpoints' metadata, and whose they are."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from critic_loop.state.context import Context

# the checkpoint metadata key `run_loop` keeps a run's settings under
SETTINGS_KEY = "critic_loop_settings"

# metadata LangGraph server writes on every checkpoint of its runs (a client cannot drop it)
SERVER_KEYS = ("graph_id", "assistant_id")

# the settings that choose a model: resuming with others needs `--switch-models`
MODEL_SETTINGS = ("worker_model", "critic_model", "critic_models", "distill_model")


@dataclass(frozen=True)
class StoredSettings:
    """The settings a thread ran with."""

    values: dict[str, Any]
    by_client: bool
    """A served client chose them: they are held to the operator's policy on resume."""


def settings_metadata(context: Context, by_client: bool) -> dict[str, str]:
    """Return the checkpoint metadata that keeps `context`'s own settings and its models."""
    kept = context.model_fields_set | {"worker_model", "critic_model"}
    settings = context.model_dump(mode="json", include=kept)
    return {SETTINGS_KEY: json.dumps({"settings": settings, "by_client": by_client})}


def stored_settings(metadata: Mapping[str, Any] | None) -> StoredSettings | None:
    """Return the settings a checkpoint's metadata says its run used, or None if it says none."""
    metadata = metadata or {}
    record = metadata.get(SETTINGS_KEY)
    if isinstance(record, str) and not any(key in metadata for key in SERVER_KEYS):
        try:
            parsed = json.loads(record)
            values = {k: v for k, v in parsed["settings"].items() if k in Context.model_fields}
            return StoredSettings(values, by_client=parsed.get("by_client") is not False)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
    values = {key: value for key, value in metadata.items() if key in Context.model_fields}
    return StoredSettings(values, by_client=True) if values else None
