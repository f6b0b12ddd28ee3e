"""Fit a yes/no judge to people's labels: thresholds, worked examples, cross-validation.

Pure functions over scored labels (the judge's P(met) for a labelled criterion, its kind,
and the artifact it belongs to). `critic-loop calibrate --fit` grades the labels once,
fits a `JudgeProfile` on all of them, and reports figures where every label was decided
by a profile fitted without its artifact (folds split by artifact, never inside one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from critic_loop.cli.agreement import Agreement
from critic_loop.nodes.verifiers.judge_profile import (
    DEFAULT_THRESHOLD,
    Example,
    JudgeProfile,
    KindSettings,
)

MAX_FALSE_PASS = 0.10
"""The largest false-pass rate a fitted threshold may have on the labels it is fitted on."""

MIN_KIND_LABELS = 12
"""A kind gets a threshold of its own only with this many labels, both answers among them."""

EXAMPLES_PER_KIND = 4
"""Worked examples shown before a question: half met, half not, of its kind first."""


@dataclass(frozen=True)
class Scored:
    """One labelled criterion of an artifact, and the judge's P(met) for it."""

    p_met: float | None
    """None: the judge gave no probability (it counts as not met)."""
    label: bool
    kind: str
    group: str
    """The artifact it belongs to: folds keep an artifact's criteria together."""


def decisions(scored: Sequence[Scored], profile: JudgeProfile) -> list[bool]:
    """Decide each criterion with `profile`'s threshold for its kind."""
    return [
        item.p_met is not None and item.p_met >= profile.settings_for(item.kind).threshold
        for item in scored
    ]


def agreement(scored: Sequence[Scored], decided: Sequence[bool]) -> Agreement:
    """Return the table of labels against decisions."""
    return Agreement.of((item.label, passed) for item, passed in zip(scored, decided, strict=True))


def fit_threshold(scored: Sequence[Scored], max_false_pass: float = MAX_FALSE_PASS) -> float:
    """Return the threshold with the fewest false fails and few enough false passes.

    Of equals, the higher (the safe side); `DEFAULT_THRESHOLD` when no threshold keeps
    false passes within `max_false_pass`.
    """
    probabilities = sorted({item.p_met for item in scored if item.p_met is not None})
    unmet = sum(not item.label for item in scored)
    best: tuple[int, float] | None = None
    for threshold in probabilities:
        passed = [item.p_met is not None and item.p_met >= threshold for item in scored]
        false_pass = sum(p and not item.label for p, item in zip(passed, scored, strict=True))
        false_fail = sum(item.label and not p for p, item in zip(passed, scored, strict=True))
        if false_pass <= max_false_pass * unmet and (best is None or false_fail <= best[0]):
            best = (false_fail, threshold)
    return DEFAULT_THRESHOLD if best is None else best[1]


def choose_examples(
    labelled: Sequence[tuple[Example, str]], kind: str, count: int = EXAMPLES_PER_KIND
) -> list[Example]:
    """Choose `count` worked examples for `kind` from (example, its kind) pairs.

    Examples of that kind come first, then any; met and not met alternate; ties keep the
    labels' order.
    """
    ordered = [e for e, k in labelled if k == kind] + [e for e, k in labelled if k != kind]
    met = [example for example in ordered if example.met]
    unmet = [example for example in ordered if not example.met]
    chosen: list[Example] = []
    while len(chosen) < count and (met or unmet):
        for side in (met, unmet):
            if side and len(chosen) < count:
                chosen.append(side.pop(0))
    return chosen


def fit_profile(
    scored: Sequence[Scored], model: str, max_false_pass: float = MAX_FALSE_PASS
) -> JudgeProfile:
    """Fit one threshold to all of `scored`, and one per kind with enough labels."""
    kinds: dict[str, KindSettings] = {}
    for kind in sorted({item.kind for item in scored}):
        mine = [item for item in scored if item.kind == kind]
        answers = {item.label for item in mine}
        if len(mine) >= MIN_KIND_LABELS and answers == {True, False}:
            kinds[kind] = KindSettings(threshold=fit_threshold(mine, max_false_pass))
    default = KindSettings(threshold=fit_threshold(scored, max_false_pass))
    return JudgeProfile(model=model, default=default, kinds=kinds, labels=len(scored))


def folds(scored: Sequence[Scored], count: int) -> list[int]:
    """Assign each criterion a fold, by its artifact's order of first appearance."""
    order = {group: index for index, group in enumerate(dict.fromkeys(i.group for i in scored))}
    return [order[item.group] % count for item in scored]


def cross_validated(
    scored: Sequence[Scored],
    fit: Callable[[Sequence[Scored]], JudgeProfile],
    count: int = 5,
) -> list[bool]:
    """Decide each criterion with a profile fitted on the other folds' labels."""
    assigned = folds(scored, count)
    decided = [False] * len(scored)
    for fold in set(assigned):
        training = [item for item, f in zip(scored, assigned, strict=True) if f != fold]
        profile = fit(training)
        held = [index for index, f in enumerate(assigned) if f == fold]
        for index, passed in zip(held, decisions([scored[i] for i in held], profile), strict=True):
            decided[index] = passed
    return decided


FIGURES = ("n", "agreement", "kappa", "false_pass_rate", "false_fail_rate")
"""The figures a profile keeps of its cross-validation."""


def fit_with_figures(
    scored: Sequence[Scored], model: str, count: int = 5
) -> tuple[JudgeProfile, dict[str, Any], dict[str, Any]]:
    """Fit a profile on all of `scored`; return it, the unfitted figures and the fitted ones.

    The unfitted figures decide with `DEFAULT_THRESHOLD`; the fitted ones decide each label
    with a profile fitted on the other folds (`cross_validated`), so neither flatters.
    """
    profile = fit_profile(scored, model)
    unfitted = agreement(scored, decisions(scored, JudgeProfile(model=model))).as_json()
    fitted = agreement(
        scored, cross_validated(scored, lambda part: fit_profile(part, model), count)
    ).as_json()
    profile.cross_validated = {name: fitted[name] for name in FIGURES}
    return profile, unfitted, fitted
