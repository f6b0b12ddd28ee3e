"""A judge profile: the bar on P(met) `critic-loop calibrate --fit` learned, and a quote's weight.

A critic model's is the operator's (`CRITIC_LOOP_JUDGE_PROFILE`, if fitted for that model), else
one shipped in `judge_profiles/`; never the context's: a served client cannot supply one.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from critic_loop.state.errors import ModelSetupError
from critic_loop.state.operator_settings import operator_settings

DEFAULT_THRESHOLD = 0.5  # of a judge nobody fitted: "yes" likelier than "no"
SHIPPED = Path(__file__).with_name("judge_profiles")  # one JSON file per model name


class JudgeProfile(BaseModel):
    """A fitted judge for one critic model."""

    model: str = Field(description="The critic model the labels were graded by.")
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.0, le=1.0)
    quote_weight: float = Field(
        default=0.0, ge=0.0, le=1.0, description="What words of the draft that show it add."
    )
    labels: int = Field(default=0, ge=0, description="How many labelled pairs it was fitted on.")
    cross_validated: dict[str, float | int | None] = Field(
        default_factory=dict, description="Its figures on labels held out from each fit."
    )
    source: str = Field(default="", exclude=True, description="The file it was read from.")


class ProfileProblem(ModelSetupError):
    """A judge profile file that cannot be read."""


@functools.cache
def load_profile(path: Path) -> JudgeProfile:
    """Raise `ProfileProblem` if the file is missing or is not a judge profile."""
    try:
        found = JudgeProfile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as error:
        raise ProfileProblem(f"cannot read the judge profile {path}: {error.strerror}") from None
    except (ValueError, ValidationError) as error:
        raise ProfileProblem(f"{path} is not a judge profile: {error}") from None
    return found.model_copy(update={"source": str(path)})


def judge_profile(critic_model: str) -> JudgeProfile | None:
    """Raise `ProfileProblem` if the operator named a file that is no judge profile."""
    path = operator_settings().judge_profile
    own = _operators(path) if path else None
    if own is not None and own.model == critic_model:
        return own
    provider, _, name = critic_model.partition(":")
    shipped = _shipped().get(name) if provider == "openai" else None
    return load_profile(shipped) if shipped is not None else None


@functools.cache
def _operators(path: str) -> JudgeProfile | None:  # None until `calibrate --fit` wrote it
    return load_profile(Path(path)) if Path(path).exists() else None


@functools.cache
def _shipped() -> dict[str, Path]:
    return {path.stem: path for path in SHIPPED.glob("*.json")}


def save_profile(profile: JudgeProfile, path: Path) -> None:
    """Write `profile` to `path` as JSON (replacing the file whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(profile.model_dump_json(indent=1) + "\n", encoding="utf-8")
    partial.replace(path)
    load_profile.cache_clear()
    _operators.cache_clear()
