"""The run settings that follow from a model, however it was named (settings chosen stand).

A small model by its name ("qwen2.5-coder-0.5b-instruct": 0.5B), or one of unknown size
found on the run's server, gets `LOCAL_SETTINGS`; a critic with a judge profile gets
`judge_mode: extract_ask`. The critic's profile gives the judge's settings, the worker's its cap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from critic_loop.nodes.verifiers.judge_profile import judge_profile
from critic_loop.state.context import LOCAL_SETTINGS, WORKER_FIELDS

SMALL_MODEL_PARAMS = 4.0  # billions of parameters at most of a model given `LOCAL_SETTINGS`

Source = Literal["small model", "found on the server", "none"]

_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)b(?![a-z])")


class ModelProfile(BaseModel):
    """What applies to one model, and where it came from."""

    model: str
    source: Source
    settings: dict[str, Any]


_looked_up: set[str] = set()


def profile_known(spec: str) -> bool:
    """Say whether `model_profile(spec)` would read nothing (a file, a package's data)."""
    return spec in _looked_up


def model_profile(spec: str, found: bool = False) -> ModelProfile:
    """Return the profile of `spec` (`found`: on the run's server, unnamed), or `ProfileProblem`."""
    _, _, name = spec.partition(":")
    found_size = _SIZE.search(name.lower())  # "llama-3.1-8b-instruct": 8 (billion)
    size = float(found_size[1]) if found_size else None
    source: Source
    if (size is not None and size <= SMALL_MODEL_PARAMS) or (size is None and found):
        source = "small model" if size is not None else "found on the server"
        settings = dict(LOCAL_SETTINGS)
    else:
        source, settings = "none", {}
    if judge_profile(spec) is not None:
        settings["judge_mode"] = "extract_ask"
    _looked_up.add(spec)
    return ModelProfile(model=spec, source=source, settings=settings)


def profile_settings(
    worker: ModelProfile, critic: ModelProfile, chosen: Mapping[str, Any] | set[str]
) -> dict[str, Any]:
    """Return the settings the two profiles give a run, except those the run chose."""
    given = {k: v for k, v in critic.settings.items() if k not in WORKER_FIELDS}
    given |= {k: v for k, v in worker.settings.items() if k in WORKER_FIELDS}
    return {key: value for key, value in given.items() if key not in chosen}
