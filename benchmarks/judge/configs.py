"""The judge configurations compared, as plain `Context` settings.

Every configuration grades with the same critic model, the judge grading every criterion
(`skip_judge_on_failed_check: false`, as `critic-loop calibrate` does), on top of the
settings a run picks for the model found on a local server (its profile: `extract_ask`
for the local 0.5B model, with its shipped judge profile), so `default` is what a user of
a local model gets. A configuration's own settings come last and win. Names are checked
against the installed critic_loop's `Context` before anything runs.
"""

from __future__ import annotations

from typing import Any

from benchmarks.harness.configs import shared
from critic_loop.nodes.models.profiles import model_profile

VERDICT = {"judge_mode": "verdict", "lint_checks": False}
"""The judge decides each criterion itself (the local defaults before the benchmark chose)."""

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
    "samples3": {**VERDICT, "critic_samples": 3, "critic_temperature": 0.7},
    # the same three samples, but a criterion passes only if all three pass it
    "samples3_unanimous": {
        **VERDICT,
        "critic_samples": 3,
        "critic_temperature": 0.7,
        "critic_min_agreement": 1.0,
    },
    # a panel of three critic models (here the one local model, three times) at 0.7
    "panel3": {
        **VERDICT,
        "critic_models": ["{model}", "{model}", "{model}"],
        "critic_temperature": 0.7,
    },
}
"""Each configuration's own `Context` settings ("{model}" stands for the critic model).

The verdict-mode configurations (`verdict` and after) pin `judge_mode: verdict` and no
lint checks, so they measure what they measured before the local defaults changed.
"""

DEFAULT_CONFIGS = (
    "default",
    "extract",
    "extract_once",
    "verdict",
    "verdict_lint",
    "rubric",
    "samples3",
    "samples3_unanimous",
    "panel3",
)
"""The configurations a run compares unless told otherwise (`extract_lint` is `default`)."""


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

    def filled(value: Any) -> Any:
        if isinstance(value, str):
            return value.replace("{model}", model)
        if isinstance(value, list):
            return [filled(item) for item in value]
        return value

    return {
        name: {key: filled(value) for key, value in settings.items()}
        for name, settings in CONFIGS.items()
    }
