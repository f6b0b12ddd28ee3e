"""The configurations compared, as plain `Context` settings.

Every configuration runs with the same model as worker and critic, memory off (so tasks are
independent), `on_exhausted="best"` (the run returns its best draft), and the same round
budget; a configuration's own settings come last and win.
"""

from __future__ import annotations

from typing import Any

CONFIGS: dict[str, dict[str, Any]] = {
    # one worker call with critic-loop's own worker prompt; graded only by the hidden grader
    "single_shot": {"max_iterations": 1, "candidates": 1, "on_stall": "resample"},
    # the plain revision loop: one draft, stop when progress stalls
    "stop": {"candidates": 1, "on_stall": "stop"},
    # one draft, a fresh sample when revising stalls (the defaults until 2026-12)
    "resample": {"candidates": 1, "on_stall": "resample"},
    # critic-loop as it ships
    "default": {},
    # three candidate drafts in round 1, then revisions and fresh samples to the round cap
    "candidates3": {"candidates": 3, "on_stall": "resample"},
}

DEFAULT_CONFIGS = ("single_shot", "resample", "default", "candidates3")

BASELINE = "single_shot"
"""The configuration every other one is compared with."""

OWNED = ("worker_model", "critic_model", "base_url", "max_iterations", "memory", "on_exhausted")
"""Settings the harness owns (`--model`, `--base-url`, `--rounds`); `--set` may not."""


def shared_settings(model: str, base_url: str | None, rounds: int) -> dict[str, Any]:
    """Return the settings every configuration shares."""
    return {
        "worker_model": model,
        "critic_model": model,
        "base_url": base_url,
        "max_iterations": rounds,
        "memory": False,
        "on_exhausted": "best",
    }
