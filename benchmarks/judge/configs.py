"""The judge configurations compared, as plain `Context` settings.

Each grades every criterion with the same critic model on top of the settings a run picks
for that model on a local server (so `default` is what a local user gets); its own win.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.harness.configs import shared
from critic_loop.nodes.models.profiles import model_profile

VERDICT = {"judge_mode": "verdict", "lint_checks": False}
"""The judge decides each criterion itself (the local defaults before the benchmark chose)."""
SAMPLES3 = {**VERDICT, "critic_samples": 3, "critic_temperature": 0.7}

CONFIGS: dict[str, dict[str, Any]] = {
    # what `critic-loop calibrate` and `run` use for a model on a local server
    "default": {},
    # the judge only copies the words that show each criterion; code decides
    "extract": {"judge_mode": "extract", "lint_checks": False},
    # the same, asked once: words that are not in the artifact are not asked for again
    "extract_once": {"judge_mode": "extract", "lint_checks": False, "critic_attempts": 1},
    # the same as extract, with the criteria the rubric linter decides checked by code
    "extract_lint": {"judge_mode": "extract", "lint_checks": True},
    # the judge decides each criterion (met / not met / not sure, quoting the artifact)
    "verdict": VERDICT,
    # the same, with the criteria the rubric linter decides checked by code
    "verdict_lint": {**VERDICT, "lint_checks": True},
    # one judge call for the whole rubric instead of one per criterion
    "rubric": {**VERDICT, "judge_granularity": "rubric"},
    # three samples of the judge at temperature 0.7; a strict majority passes a criterion
    "samples3": SAMPLES3,
    # the same three samples, but a criterion passes only if all three pass it
    "samples3_unanimous": {**SAMPLES3, "critic_min_agreement": 1.0},
    # a panel of three critic models (here the one local model, three times) at 0.7
    "panel3": {**VERDICT, "critic_models": ["{model}"] * 3, "critic_temperature": 0.7},
}
"""Each configuration's own `Context` settings ("{model}" stands for the critic model)."""

DEFAULT_CONFIGS = tuple(name for name in CONFIGS if name != "extract_lint")  # it is default


def shared_settings(model: str, base_url: str | None, extra: dict[str, Any]) -> dict[str, Any]:
    """Return the settings every configuration shares, with `extra` (from `--set`) added.

    Raises:
        ConfigError: `extra` sets a field the harness owns.
    """
    return shared(
        extra,
        ("critic_model", "worker_model", "base_url"),
        "--model and --base-url",
        worker_model=model,
        critic_model=model,
        base_url=base_url,
        skip_judge_on_failed_check=False,
        memory=False,
        **model_profile(model, found=True).settings,
    )


def table_for(model: str) -> dict[str, dict[str, Any]]:
    """Return `CONFIGS` with "{model}" replaced by the critic model."""
    return json.loads(json.dumps(CONFIGS).replace("{model}", json.dumps(model)[1:-1]))
