"""A judge profile: what `critic-loop calibrate --fit` learned from people's labels.

A yes/no judge passes a criterion when its probability of "yes" (`yes_no.p_met`) reaches
a threshold. The profile holds that threshold, one per kind of criterion where the labels
showed a kind needs its own (`rubric_lint.criterion_kind`), the worked examples shown
before each question, and the cross-validated figures the fit earned. It belongs to the
operator: a run finds it through the operator's settings (a path in the environment),
never through its context, so a served client can neither choose nor supply one.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from critic_loop.state.operator_settings import operator_settings

DEFAULT_THRESHOLD = 0.5
"""The threshold of a judge nobody fitted: "yes" likelier than "no"."""


class Example(BaseModel):
    """A labelled criterion of an artifact, shown to the judge as a worked example."""

    artifact: str
    statement: str
    met: bool


class KindSettings(BaseModel):
    """How the judge decides one kind of criterion."""

    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0.0, le=1.0)
    examples: list[Example] = Field(default_factory=list)


class JudgeProfile(BaseModel):
    """A fitted judge for one critic model."""

    model: str = Field(description="The critic model the labels were graded by.")
    default: KindSettings = Field(default_factory=KindSettings)
    kinds: dict[str, KindSettings] = Field(
        default_factory=dict, description="Settings of the kinds that differ from `default`."
    )
    labels: int = Field(default=0, ge=0, description="How many labelled pairs it was fitted on.")
    cross_validated: dict[str, float | int | None] = Field(
        default_factory=dict, description="Its figures on labels held out from each fit."
    )

    def settings_for(self, kind: str) -> KindSettings:
        """Return how a criterion of `kind` is decided."""
        return self.kinds.get(kind, self.default)


class ProfileProblem(ValueError):
    """A judge profile file that cannot be read."""


def load_profile(path: Path) -> JudgeProfile:
    """Read a judge profile (JSON).

    Raises:
        ProfileProblem: the file is missing or is not a judge profile (the message says why).
    """
    try:
        return JudgeProfile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as error:
        raise ProfileProblem(f"cannot read the judge profile {path}: {error.strerror}") from None
    except (ValueError, ValidationError) as error:
        raise ProfileProblem(f"{path} is not a judge profile: {error}") from None


def operator_judge_profile(critic_model: str) -> JudgeProfile | None:
    """Return the operator's judge profile (`CRITIC_LOOP_JUDGE_PROFILE`) if it fits the model.

    Raises:
        ProfileProblem: the operator named a file that is no judge profile.
    """
    path = operator_settings().judge_profile
    profile = _loaded(path) if path else None
    return profile if profile is not None and profile.model == critic_model else None


@functools.cache
def _loaded(path: str) -> JudgeProfile:
    return load_profile(Path(path))


def save_profile(profile: JudgeProfile, path: Path) -> None:
    """Write `profile` to `path` as JSON (replacing the file whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(profile.model_dump_json(indent=1) + "\n", encoding="utf-8")
    partial.replace(path)
