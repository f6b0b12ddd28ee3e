"""Fit the judge's threshold on P(met) to people's labels, and cross-validate the fit.

A label's P(met) is 1 for a pass the judge quoted, None for a fail no threshold can turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from critic_loop.cli.agreement import Agreement
from critic_loop.nodes.verifiers.judge_profile import DEFAULT_THRESHOLD, JudgeProfile

# the largest false-pass rate a fitted threshold may have on the labels it is fitted on
MAX_FALSE_PASS = 0.10

# the figures a profile keeps of its cross-validation
FIGURES = ("n", "agreement", "kappa", "false_pass_rate", "false_fail_rate")


@dataclass(frozen=True)
class Scored:
    """One labelled criterion of an artifact, and the judge's P(met) for it."""

    p_met: float | None
    label: bool
    group: str
    """The artifact it belongs to: folds keep an artifact's criteria together."""


def decisions(scored: Sequence[Scored], threshold: float) -> list[bool]:
    """Decide each criterion: P(met) at or above `threshold`."""
    return [item.p_met is not None and item.p_met >= threshold for item in scored]


def agreement(scored: Sequence[Scored], decided: Sequence[bool]) -> Agreement:
    """Return the table of labels against decisions."""
    return Agreement.of((item.label, passed) for item, passed in zip(scored, decided, strict=True))


def fit_threshold(scored: Sequence[Scored], max_false_pass: float = MAX_FALSE_PASS) -> float:
    """Return the threshold with the fewest false fails and few enough false passes.

    Of equals, the higher (the safe side); `DEFAULT_THRESHOLD` when no threshold keeps
    false passes within `max_false_pass`.
    """
    unmet = sum(not item.label for item in scored)
    best: tuple[int, float] | None = None
    for threshold in sorted({item.p_met for item in scored if item.p_met is not None}):
        passed = decisions(scored, threshold)
        false_pass = sum(p and not item.label for p, item in zip(passed, scored, strict=True))
        false_fail = sum(item.label and not p for p, item in zip(passed, scored, strict=True))
        if false_pass <= max_false_pass * unmet and (best is None or false_fail <= best[0]):
            best = (false_fail, threshold)
    return DEFAULT_THRESHOLD if best is None else best[1]


def folds(scored: Sequence[Scored], count: int) -> list[int]:
    """Assign each criterion a fold, by its artifact's order of first appearance."""
    order = {group: index for index, group in enumerate(dict.fromkeys(i.group for i in scored))}
    return [order[item.group] % count for item in scored]


def cross_validated(
    scored: Sequence[Scored], fit: Callable[[Sequence[Scored]], float], count: int = 5
) -> list[bool]:
    """Decide each criterion with a threshold fitted on the other folds' labels."""
    assigned = folds(scored, count)
    thresholds = {
        fold: fit([item for item, f in zip(scored, assigned, strict=True) if f != fold])
        for fold in set(assigned)
    }
    return [
        decisions([item], thresholds[fold])[0] for item, fold in zip(scored, assigned, strict=True)
    ]


def fit_profile(
    scored: Sequence[Scored], model: str, count: int = 5
) -> tuple[JudgeProfile, Agreement]:
    """Fit a profile on all of `scored`; return it and its cross-validated table.

    In the table each label was decided by a threshold fitted without its artifact's
    labels, so it does not flatter; the profile keeps its figures.
    """
    table = agreement(scored, cross_validated(scored, fit_threshold, count))
    figures: dict[str, Any] = table.as_json()
    return JudgeProfile(
        model=model,
        threshold=fit_threshold(scored),
        labels=len(scored),
        cross_validated={name: figures[name] for name in FIGURES},
    ), table
