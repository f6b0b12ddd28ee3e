"""Fit the judge's bar to people's labels: a threshold on P(met), and what a quotation adds.

A label's P(met) is the judge's yes/no look (`p_met`), with `quoted` when the judge also gave
words of the artifact that show it; a pass code decided is 1, a fail no bar can turn None.
The figures a profile keeps come from folds: each label decided by a bar fitted without
its group (its family, or its artifact).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from critic_loop.cli.agreement import Agreement
from critic_loop.nodes.verifiers.judge_profile import DEFAULT_THRESHOLD, JudgeProfile

# the largest false-pass rate a fitted bar may have on the labels it is fitted on
MAX_FALSE_PASS = 0.10

# what a quotation may be worth, tried in turn (0: the look alone)
QUOTE_WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)

# the figures a profile keeps of its cross-validation
FIGURES = ("n", "agreement", "kappa", "false_pass_rate", "false_fail_rate")


@dataclass(frozen=True)
class Scored:
    """One labelled criterion of an artifact, and what the judge said of it."""

    p_met: float | None
    label: bool
    group: str
    """What folds keep together: its family, or its artifact."""
    quoted: bool = False
    """The judge also gave words of the artifact that show it."""


@dataclass(frozen=True)
class Bar:
    """Pass at `threshold`, a quotation counting `weight` towards P(met)."""

    threshold: float = DEFAULT_THRESHOLD
    weight: float = 0.0

    def passes(self, item: Scored) -> bool:
        """Decide one criterion."""
        bonus = self.weight if item.quoted else 0.0
        return item.p_met is not None and item.p_met + bonus >= self.threshold - 1e-12


def agreement(scored: Sequence[Scored], decided: Sequence[bool]) -> Agreement:
    """Return the table of labels against decisions."""
    return Agreement.of((item.label, passed) for item, passed in zip(scored, decided, strict=True))


def fit_bar(scored: Sequence[Scored], max_false_pass: float = MAX_FALSE_PASS) -> Bar:
    """Return the bar with the fewest false fails and few enough false passes.

    Of equals, the lower weight and then the higher threshold (the safe side); the default
    bar when none keeps false passes within `max_false_pass`.
    """
    unmet = sum(not item.label for item in scored)
    best: tuple[int, float, float] | None = None  # (false fails, weight, -threshold)
    for weight in QUOTE_WEIGHTS if any(item.quoted for item in scored) else (0.0,):
        shifted = {
            item.p_met + (weight if item.quoted else 0.0)
            for item in scored
            if item.p_met is not None
        }
        for threshold in sorted(shifted):
            bar = Bar(threshold, weight)
            table = agreement(scored, [bar.passes(item) for item in scored])
            key = (table.false_fail, weight, -threshold)
            if table.false_pass <= max_false_pass * unmet and (best is None or key < best):
                best = key
    return Bar() if best is None else Bar(-best[2], best[1])


def folds(scored: Sequence[Scored], count: int) -> list[int]:
    """Assign each criterion a fold, by its group's order of first appearance."""
    order = {group: index for index, group in enumerate(dict.fromkeys(i.group for i in scored))}
    return [order[item.group] % count for item in scored]


def cross_validated(scored: Sequence[Scored], count: int = 5) -> list[bool]:
    """Decide each criterion with a bar fitted on the other folds' labels."""
    assigned = folds(scored, count)
    bars = {
        fold: fit_bar([item for item, f in zip(scored, assigned, strict=True) if f != fold])
        for fold in set(assigned)
    }
    return [bars[fold].passes(item) for item, fold in zip(scored, assigned, strict=True)]


def fit_profile(
    scored: Sequence[Scored], model: str, count: int = 5
) -> tuple[JudgeProfile, Agreement]:
    """Fit a profile on all of `scored`; return it and its cross-validated table.

    In the table each label was decided by a bar fitted without its group's labels, so it
    does not flatter; the profile keeps its figures.
    """
    table = agreement(scored, cross_validated(scored, count))
    figures: dict[str, Any] = table.as_json()
    bar = fit_bar(scored)
    return JudgeProfile(
        model=model,
        threshold=bar.threshold,
        quote_weight=bar.weight,
        labels=len(scored),
        cross_validated={name: figures[name] for name in FIGURES},
    ), table
