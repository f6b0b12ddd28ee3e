"""Every labelled pair, grouped by family, and leave-one-family-out folds over them.

A judge fitted on some kinds of text and criteria is measured on a kind it never saw:
`folds()` yields, for each family, the pairs of every other family to fit on and the
family's own pairs to measure on. An item keeps the name of the set its case comes from,
so its key is the one the probe caches answers under.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import get_args

from benchmarks.judge.cases import CASES, Case, Family, Pair
from benchmarks.judge.degenerate import DEGENERATE
from benchmarks.judge.everyday import EVERYDAY
from benchmarks.judge.held_out import HELD_OUT
from benchmarks.judge.run_drafts import RUN_DRAFTS

SETS: dict[str, tuple[Case, ...]] = {
    "fit": CASES,
    "held_out": HELD_OUT,
    "run_drafts": RUN_DRAFTS,
    "degenerate": DEGENERATE,
    "everyday": EVERYDAY,
}
"""Every labelled set, by the name its items' keys carry."""

LABELLED: tuple[Case, ...] = tuple(case for cases in SETS.values() for case in cases)
"""Every labelled case, set after set."""


@dataclass(frozen=True)
class Item:
    """One labelled pair, and the set it comes from."""

    set: str
    case: Case
    pair: Pair

    @property
    def key(self) -> str:
        """Name the pair: set/case/pair."""
        return f"{self.set}/{self.case.id}/{self.pair.id}"


@dataclass(frozen=True)
class Fold:
    """Leave one family out: fit on `train`, measure on `test` (the family's own pairs)."""

    family: Family
    train: tuple[Item, ...]
    test: tuple[Item, ...]


def items(sets: Iterable[str] = SETS) -> Iterator[Item]:
    """Every labelled pair of the named sets, in order."""
    return (Item(name, case, pair) for name in sets for case in SETS[name] for pair in case.pairs)


def families(chosen: Iterable[Item] | None = None) -> dict[Family, list[Item]]:
    """Return the items of each family (all labelled pairs by default), in `Family`'s order."""
    grouped: dict[Family, list[Item]] = {family: [] for family in get_args(Family)}
    for item in items() if chosen is None else chosen:
        grouped[item.case.family].append(item)
    return {family: found for family, found in grouped.items() if found}


def folds(chosen: Iterable[Item] | None = None) -> Iterator[Fold]:
    """Yield one fold per family: every other family's items to fit on, its own to measure."""
    everything = list(items() if chosen is None else chosen)
    for family in families(everything):
        train = tuple(item for item in everything if item.case.family != family)
        test = tuple(item for item in everything if item.case.family == family)
        yield Fold(family, train, test)
